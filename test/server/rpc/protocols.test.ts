// One started server, one port: the same RPC and the same error over connect-node
// gRPC (HTTP/2), gRPC-Web (HTTP/1.1), Connect JSON (HTTP/1.1), @grpc/grpc-js and REST.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../../gen/keyhold/auth/v1/auth_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { restFields, rpcError, restReason } from '../../support/errors.js';
import { assertRestStatus } from '../../reliability/support.js';
import { grpcJsCall, grpcJsClient, grpcJsMetadata, grpcJsStatusDetails } from '../../support/grpc-js.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
beforeAll(async () => {
  kh = await startTestKeyhold();
});
afterAll(async () => kh?.close());

const PROTOCOLS = ['grpc', 'grpcWeb', 'connect'] as const;

describe('the same RPC over every protocol on one port', () => {
  it.each(PROTOCOLS)('GetMyUser over connect-node %s', async (protocol) => {
    const me = await kh.client(AuthService, protocol).getMyUser({});
    expect(me.user?.username).toBe('admin');
    expect(me.roles).toEqual(['IAM_OWNER']);
    expect(me.organizationId).toBe(kh.bootstrap.created && kh.bootstrap.orgId);
  });

  it('GetMyUser over @grpc/grpc-js', async () => {
    const client = grpcJsClient('auth', kh.port);
    const me = await grpcJsCall(client, 'GetMyUser', {}, grpcJsMetadata(kh.adminToken));
    client.close();
    expect(me.user.username).toBe('admin');
    expect(me.roles).toEqual(['IAM_OWNER']);
  });

  it('GetMyUser over REST', async () => {
    const res = await kh.rest('GET', '/auth/v1/users/me');
    expect(res.status).toBe(200);
    expect(res.body.user.username).toBe('admin');
    expect(res.body.user.details.sequence).toMatch(/^\d+$/); // uint64 as a string
    expect(res.body.user.details.creationDate).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('a write made over gRPC is read back over REST and grpc-js', async () => {
    const created = await kh.client(ManagementService, 'grpc').addProject({ name: 'Protocols' });
    const rest = await kh.rest('GET', `/management/v1/projects/${created.id}`);
    expect(rest.status).toBe(200);
    expect(rest.body.project).toMatchObject({ id: created.id, name: 'Protocols', state: 'PROJECT_STATE_ACTIVE' });
    const client = grpcJsClient('management', kh.port);
    const viaJs = await grpcJsCall(client, 'GetProjectByID', { id: created.id }, grpcJsMetadata(kh.adminToken));
    client.close();
    expect(viaJs.project.name).toBe('Protocols');
  });
});

describe('one error, five transports', () => {
  const missing = '01aaaaaaaaaaaaaaaaaaaaaaaa';

  it.each(PROTOCOLS)('NOT_FOUND with reason PROJECT_NOT_FOUND over %s', async (protocol) => {
    const err = await rpcError(kh.client(ManagementService, protocol).getProjectByID({ id: missing }));
    expect(err.code).toBe(Code.NotFound);
    expect(err.reason).toBe('PROJECT_NOT_FOUND');
    expect(err.errorInfo?.domain).toBe('keyhold');
    expect(err.errorInfo?.metadata.projectId).toBe(missing);
    expect(err.message).toBe(`Project ${missing} was not found.`);
  });

  it('NOT_FOUND with the same details over grpc-js (grpc-status-details-bin)', async () => {
    const client = grpcJsClient('management', kh.port);
    const err = await grpcJsCall(client, 'GetProjectByID', { id: missing }, grpcJsMetadata(kh.adminToken)).catch((e) => e);
    client.close();
    expect(err.code).toBe(5);
    expect(err.details).toBe(`Project ${missing} was not found.`);
    expect(grpcJsStatusDetails(err).errorInfo?.reason).toBe('PROJECT_NOT_FOUND');
  });

  it('NOT_FOUND over REST as a google.rpc.Status body with HTTP 404', async () => {
    const res = await kh.rest('GET', `/management/v1/projects/${missing}`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe(5);
    expect(res.body.message).toBe(`Project ${missing} was not found.`);
    expect(res.body.details[0]).toEqual({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'PROJECT_NOT_FOUND',
      domain: 'keyhold',
      metadata: { projectId: missing, requestId: res.headers.get('x-request-id') },
    });
    expect(res.body.details.at(-1)).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en' });
  });

  it('the localized message follows Accept-Language', async () => {
    const res = await kh.rest('GET', `/management/v1/projects/${missing}`, undefined, { 'accept-language': 'de-DE,de;q=0.9' });
    expect(res.body.details.at(-1)).toMatchObject({ locale: 'de', message: `Das Projekt ${missing} wurde nicht gefunden.` });
    const err = await rpcError(kh.client(ManagementService, 'grpc', undefined, { 'accept-language': 'de' }).getProjectByID({ id: missing }));
    expect(err.localized?.locale).toBe('de');
  });
});

describe("fastify's own failures answer as Status JSON on REST paths", () => {
  it('invalid JSON → 400 MALFORMED_BODY', async () => {
    const res = await kh.rest('POST', '/management/v1/projects', '{"name":');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(3);
    expect(restReason(res.body)).toBe('MALFORMED_BODY');
  });

  it('a wrong content type → 415 as Status', async () => {
    const res = await kh.rest('POST', '/management/v1/projects', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect(restReason(res.body)).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('a 3 MiB body → 413 as Status', async () => {
    const res = await kh.rest('POST', '/management/v1/projects', JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe(8);
    expect(restReason(res.body)).toBe('BODY_TOO_LARGE');
  });

  it('an unknown path → 404 ROUTE_NOT_FOUND', async () => {
    const res = await kh.rest('GET', '/management/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(restReason(res.body)).toBe('ROUTE_NOT_FOUND');
  });

  it('a wrong method on a known path → 405 METHOD_NOT_ALLOWED with an Allow header and the endpoint template', async () => {
    const res = await kh.rest('PUT', '/management/v1/projects');
    expect(res.status).toBe(405);
    expect(restReason(res.body)).toBe('METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('POST');
    const one = await kh.rest('POST', '/management/v1/projects/01aaaaaaaaaaaaaaaaaaaaaaaa');
    expect(one.headers.get('allow')).toBe('GET, PUT, DELETE');
    expect(one.body.message).toBe('The endpoint /management/v1/projects/{id} does not answer this HTTP method; the Allow header lists those it does.');
    // A path parameter with a digit in its name ({u2f_id}) is a parameter like any other.
    const u2f = await kh.rest('PUT', '/v2/users/01aaaaaaaaaaaaaaaaaaaaaaaa/u2f/01bbbbbbbbbbbbbbbbbbbbbbbb');
    expect(u2f.status).toBe(405);
    expect(u2f.headers.get('allow')).toContain('POST');
    expect(u2f.body.message).toContain('/v2/users/{user_id}/u2f/{u2f_id}');
  });

  it('an unknown field and an unknown enum name → 400 naming the field', async () => {
    const unknown = await kh.rest('POST', '/management/v1/projects', { name: 'ok', colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.find((d: any) => d.fieldViolations)?.fieldViolations[0].field).toBe('colour');
  });

  it('no token → 401 UNAUTHENTICATED on REST and gRPC', async () => {
    const res = await kh.rest('GET', '/auth/v1/users/me', undefined, { authorization: '' });
    expect(res.status).toBe(401);
    expect(restReason(res.body)).toBe('UNAUTHENTICATED');
    const err = await rpcError(kh.client(AuthService, 'grpc', 'not-a-token').getMyUser({}));
    expect(err.code).toBe(Code.Unauthenticated);
  });

  it('/healthz and /readyz answer', async () => {
    expect((await kh.rest('GET', '/healthz')).body).toEqual({ status: 'SERVING' });
    expect((await kh.rest('GET', '/readyz')).status).toBe(200);
  });
});

describe('no error echoes the path or the query the client sent (a token put there by mistake)', () => {
  const token = 'kh_Sup3rSecretT0kenValue';
  const echoes = (res: { body: unknown }) => JSON.stringify(res.body).includes(token) || JSON.stringify(res.body).includes('Sup3rSecret');

  it('a path parameter over the length limit → 414 as a Status, without the path', async () => {
    const res = await kh.rest('GET', `/management/v1/projects/${token}${'a'.repeat(150)}?access_token=${token}`);
    expect(res.status).toBe(414);
    expect(assertRestStatus(res.status, res.body, '414').reason).toBe('REQUEST_MALFORMED');
    expect(res.body.code).toBe(3);
    expect(echoes(res)).toBe(false);
  });

  it('a path that is not valid percent-encoding → 400 as a Status, without the path', async () => {
    const res = await kh.rest('GET', `/management/v1/projects/%E0%A4%A${token}?access_token=${token}`);
    expect(res.status).toBe(400);
    expect(assertRestStatus(res.status, res.body, 'bad url').reason).toBe('REQUEST_MALFORMED');
    expect(echoes(res)).toBe(false);
  });

  it('404 and 405 say neither the path nor the query', async () => {
    for (const [method, path] of [['GET', `/management/v1/${token}?access_token=${token}`], ['PUT', `/management/v1/projects?access_token=${token}`], ['GET', `/${token}`]]) {
      const res = await kh.rest(method, path);
      expect([404, 405], path).toContain(res.status);
      expect(echoes(res), `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(false);
    }
  });

  it('an unknown query parameter: its value never comes back, nor a name that could be a token', async () => {
    const byValue = await kh.rest('GET', `/auth/v1/users/me?access_token=${token}`);
    expect(byValue.status).toBe(400);
    expect(restFields(byValue.body)).toEqual(['access_token']);
    expect(echoes(byValue)).toBe(false);
    const byName = await kh.rest('GET', `/auth/v1/users/me?${token}-xyz`);
    expect(byName.status).toBe(400);
    expect(echoes(byName)).toBe(false);
  });

  it("connect's 405 (GET on a method with side effects) names the method's path and allows POST", async () => {
    const res = await kh.rest('GET', `/keyhold.management.v1.ManagementService/AddProject?message=${token}`);
    expect(res.status).toBe(405);
    expect(restReason(res.body)).toBe('METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('POST');
    expect(echoes(res)).toBe(false);
  });
});
