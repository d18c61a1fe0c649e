// URIs and origins a browser would read differently from what Keyhold stores,
// through real clients (REST over HTTP/1.1, gRPC and Connect via connect-node):
// each ambiguous entry is a 400 naming its index, nothing is created, and the
// unambiguous spellings are stored exactly as sent.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDCAppType, OIDCAuthMethodType } from '../../../gen/keyhold/management/v1/app_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
let projectId: string;
let n = 0;
const uniqueName = () => `uri-${++n}-${Date.now()}`;

beforeAll(async () => {
  kh = await startTestKeyhold();
  projectId = (await kh.client(ManagementService).addProject({ name: 'URIs' })).id;
});
afterAll(async () => kh?.close());

const path = () => `/management/v1/projects/${projectId}/apps/oidc`;
const violationsOf = (body: any): { field: string; description: string }[] =>
  body.details.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest').fieldViolations;
const appCount = async () => (await kh.rest('POST', `/management/v1/projects/${projectId}/apps/_search`, { query: { limit: 1000 } })).body.result?.length ?? 0;

describe('redirect URIs a browser would read differently are refused', () => {
  it('the loopback URI with a backslash (a browser goes to localhost, RFC 3986 to evil.com) on a NATIVE app', async () => {
    const before = await appCount();
    const res = await kh.rest('POST', path(), {
      name: uniqueName(),
      appType: 'OIDC_APP_TYPE_NATIVE',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      redirectUris: ['http://127.0.0.1:8080/cb', 'http://localhost\\@evil.com/cb'],
    });
    expect(res.status).toBe(400);
    expect(restReason(res.body)).toBe('INVALID_REQUEST');
    expect(restFields(res.body)).toEqual(['redirectUris[1]']);
    expect(violationsOf(res.body)[0]!.description).toMatch(/backslash/);
    expect(await appCount()).toBe(before);
  });

  it('every ambiguous entry at once, each named by its index (REST)', async () => {
    const redirectUris = [
      'https://a.example/cb', // fine
      'https:example.com/cb',
      'https:///cb',
      'https://user:pw@a.example/cb',
      'file:///etc/passwd',
      'https://%65vil.example/cb',
      'http://127.1/cb',
      'https://a.example/a/../cb',
      'https://*/cb',
      'https://bücher.example/cb',
    ];
    const res = await kh.rest('POST', path(), { name: uniqueName(), redirectUris, postLogoutRedirectUris: ['https://a.example\\bye'] }, { 'accept-language': 'de' });
    expect(res.status).toBe(400);
    expect(restFields(res.body)).toEqual([...redirectUris.slice(1).map((_, i) => `redirectUris[${i + 1}]`), 'postLogoutRedirectUris[0]']);
    const descriptions = violationsOf(res.body).map((v) => v.description);
    expect(descriptions[0]).toContain('https://example.com/cb'); // what the browser would have made of it
    expect(descriptions.every((d) => d.length > 20)).toBe(true);
  });

  it('file: on a WEB app and wss: on a USER_AGENT app over gRPC; a custom scheme on a NATIVE app stays fine', async () => {
    const client = kh.client(ManagementService, 'grpc');
    const web = await rpcError(client.addOIDCApp({ projectId, name: uniqueName(), redirectUris: ['file://localhost/cb'] }));
    expect([web.code, web.fields]).toEqual([Code.InvalidArgument, ['redirectUris[0]']]);
    const ua = await rpcError(client.addOIDCApp({ projectId, name: uniqueName(), appType: OIDCAppType.OIDC_APP_TYPE_USER_AGENT, redirectUris: ['wss://a.example/cb'] }));
    expect(ua.fields).toEqual(['redirectUris[0]']);
    const native = await client.addOIDCApp({
      projectId,
      name: uniqueName(),
      appType: OIDCAppType.OIDC_APP_TYPE_NATIVE,
      authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE,
      redirectUris: ['com.example.app:/oauth2redirect'],
    });
    expect(native.noneCompliant).toBe(false);
  });
});

describe('unambiguous spellings are stored exactly as sent', () => {
  it('HTTPS://A.EXAMPLE:443/cb, http://localhost:3000 and https://a.example/cb are stored (and reported) as sent', async () => {
    const client = kh.client(ManagementService, 'connect');
    const added = await client.addOIDCApp({
      projectId,
      name: uniqueName(),
      appType: OIDCAppType.OIDC_APP_TYPE_USER_AGENT,
      authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE,
      redirectUris: ['HTTPS://A.EXAMPLE:443/cb', 'HTTP://LOCALHOST:4200/cb', 'https://a.example/cb', 'http://localhost:3000'],
    });
    // The compliance report reads the stored values: the http URI is named as registered.
    const http = added.complianceProblems.find((p) => p.key.endsWith('Code.RedirectUris.HttpOnlyForWeb'));
    expect(http?.localizedMessage).toContain('HTTP://LOCALHOST:4200/cb');
    const { app } = await client.getAppByID({ projectId, appId: added.appId });
    expect(app?.oidcConfig?.redirectUris).toEqual(['HTTPS://A.EXAMPLE:443/cb', 'HTTP://LOCALHOST:4200/cb', 'https://a.example/cb', 'http://localhost:3000']);
  });
});

describe('additional origins: only the serialized form a browser sends', () => {
  it('HTTPS://A.EXAMPLE, :443, an empty port, a * host and a trailing backslash are each a 400 naming the entry', async () => {
    const before = await appCount();
    const additionalOrigins = ['https://ok.example', 'HTTPS://A.EXAMPLE', 'https://a.example:443', 'https://a.example:', 'https://*', 'https://a.example\\'];
    const res = await kh.rest('POST', path(), { name: uniqueName(), redirectUris: ['https://a.example/cb'], additionalOrigins });
    expect(res.status).toBe(400);
    expect(restFields(res.body)).toEqual(['additionalOrigins[1]', 'additionalOrigins[2]', 'additionalOrigins[3]', 'additionalOrigins[4]', 'additionalOrigins[5]']);
    expect(violationsOf(res.body)[0]!.description).toContain('https://a.example');
    const grpc = await rpcError(kh.client(ManagementService, 'grpc').addOIDCApp({ projectId, name: uniqueName(), additionalOrigins: ['https://A.example'] }));
    expect([grpc.code, grpc.fields]).toEqual([Code.InvalidArgument, ['additionalOrigins[0]']]);
    expect(await appCount()).toBe(before);
  });

  it('serialized origins, an app scheme included, are stored as sent', async () => {
    const origins = ['https://a.example:8443', 'http://[::1]:3000', 'capacitor://localhost'];
    const res = await kh.rest('POST', path(), { name: uniqueName(), redirectUris: ['https://a.example/cb'], additionalOrigins: origins });
    expect(res.status).toBe(200);
    const app = await kh.rest('GET', `/management/v1/projects/${projectId}/apps/${res.body.appId}`);
    expect(app.body.app.oidcConfig.additionalOrigins).toEqual(origins);
  });
});
