// Every API answer carries `cache-control: no-store` and
// `x-content-type-options: nosniff` (src/server/http/response-headers.ts) — the ones
// that carry a secret or a token first of all — on every protocol: REST, Connect
// and gRPC-Web over HTTP/1.1, gRPC over HTTP/2 (the fast path and the general
// one), successes and errors alike. Read off real clients' responses.
import { ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDCAuthMethodType } from '../../../gen/keyhold/management/v1/app_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
let projectId: string;
beforeAll(async () => {
  kh = await startTestKeyhold();
  projectId = (await kh.client(ManagementService).addProject({ name: 'Response headers' })).id;
});
afterAll(async () => kh?.close());

const EXPECTED = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
const policy = (h: Headers) => ({ 'cache-control': h.get('cache-control'), 'x-content-type-options': h.get('x-content-type-options') });

/** A client whose last response (or error) headers are kept. */
function capturing(protocol: 'grpc' | 'grpcWeb' | 'connect', extra: Record<string, string> = {}) {
  const seen: { header?: Headers } = {};
  const interceptor: Interceptor = (next) => async (req) => {
    req.header.set('authorization', `Bearer ${kh.adminToken}`);
    for (const [k, v] of Object.entries(extra)) req.header.set(k, v);
    try {
      const res = await next(req);
      seen.header = res.header;
      return res;
    } catch (e) {
      seen.header = ConnectError.from(e).metadata;
      throw e;
    }
  };
  const baseUrl = `http://localhost:${kh.port}`;
  const transport =
    protocol === 'grpc'
      ? createGrpcTransport({ baseUrl, interceptors: [interceptor] })
      : protocol === 'grpcWeb'
        ? createGrpcWebTransport({ baseUrl, httpVersion: '1.1', interceptors: [interceptor] })
        : createConnectTransport({ baseUrl, httpVersion: '1.1', interceptors: [interceptor] });
  return { client: createClient(ManagementService, transport), seen };
}

describe('answers that carry a secret or a token', () => {
  it.each(['connect', 'grpcWeb', 'grpc'] as const)('AddOIDCApp (secret), RegenerateOIDCClientSecret, AddPersonalAccessToken over %s', async (protocol) => {
    const { client, seen } = capturing(protocol);
    const app = await client.addOIDCApp({ projectId, name: `secret ${protocol}`, authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_BASIC });
    expect(app.clientSecret).not.toBe('');
    expect(policy(seen.header!)).toEqual(EXPECTED);
    const again = await client.regenerateOIDCClientSecret({ projectId, appId: app.appId });
    expect(again.clientSecret).not.toBe('');
    expect(policy(seen.header!)).toEqual(EXPECTED);
    const machine = await client.addMachineUser({ userName: `bot-${protocol}`, name: 'Bot' });
    const pat = await client.addPersonalAccessToken({ userId: machine.userId });
    expect(pat.token).not.toBe('');
    expect(policy(seen.header!)).toEqual(EXPECTED);
  });

  it('the gRPC general path (a grpc-timeout sends the call past the fast path) answers the same', async () => {
    const { client, seen } = capturing('grpc', { 'grpc-timeout': '10S' });
    const app = await client.addOIDCApp({ projectId, name: 'secret grpc general', authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_BASIC });
    expect(app.clientSecret).not.toBe('');
    expect(policy(seen.header!)).toEqual(EXPECTED);
  });

  it('REST: the same three', async () => {
    const app = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: 'secret rest', authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC' });
    expect(app.body.clientSecret).toBeTruthy();
    expect(policy(app.headers)).toEqual(EXPECTED);
    const again = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${app.body.appId}/oidc_config/_generate_client_secret`, {});
    expect(again.body.clientSecret).toBeTruthy();
    expect(policy(again.headers)).toEqual(EXPECTED);
    const machine = await kh.rest('POST', '/management/v1/users/machine', { userName: 'bot-rest', name: 'Bot' });
    const pat = await kh.rest('POST', `/management/v1/users/${machine.body.userId}/pats`, {});
    expect(pat.body.token).toBeTruthy();
    expect(policy(pat.headers)).toEqual(EXPECTED);
  });
});

describe('every other API answer', () => {
  it('reads and errors on every protocol, and REST errors of every kind', async () => {
    for (const protocol of ['connect', 'grpcWeb', 'grpc'] as const) {
      const { client, seen } = capturing(protocol);
      await client.getProjectByID({ id: projectId });
      expect(policy(seen.header!), `${protocol} read`).toEqual(EXPECTED);
      await client.getProjectByID({ id: '01aaaaaaaaaaaaaaaaaaaaaaaa' }).catch(() => {});
      expect(policy(seen.header!), `${protocol} error`).toEqual(EXPECTED);
    }
    for (const [method, path, body] of [
      ['GET', '/auth/v1/users/me', undefined],
      ['GET', '/management/v1/projects/01aaaaaaaaaaaaaaaaaaaaaaaa', undefined],
      ['POST', '/management/v1/projects', '{"name":'],
      ['GET', '/nowhere', undefined],
      ['GET', `/management/v1/projects/${'a'.repeat(200)}`, undefined],
      ['GET', '/healthz', undefined],
    ] as const) {
      const res = await kh.rest(method, path, body);
      expect(policy(res.headers), `${method} ${path} → ${res.status}`).toEqual(EXPECTED);
    }
  });
});
