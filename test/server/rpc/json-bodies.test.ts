// JSON that JSON.parse would read by guessing — invalid UTF-8, a key twice, half
// a surrogate pair — is refused with a 400 naming the problem on every protocol
// that takes JSON (REST, Connect, gRPC-Web+json, gRPC+json), and changes
// nothing. Also: an empty body is an empty message, and a bad nested field is
// named by its full path. Bytes are sent as is, over plain HTTP/1.1 (fetch) and
// node:http2, since no generated client can produce such JSON.
import { fromBinary } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../../gen/google/rpc/status_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { restFields, restReason } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { grpcFrame, h2Session, rawGrpc } from '../../reliability/support.js';

let kh: TestKeyhold;
let projectId: string;
beforeAll(async () => {
  kh = await startTestKeyhold();
  projectId = (await kh.client(ManagementService).addProject({ name: 'JSON bodies' })).id;
});
afterAll(async () => kh?.close());

const enc = new TextEncoder();
const bytesOf = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

/** POSTs raw bytes over HTTP/1.1; the JSON answer when there is one. */
async function post(path: string, body: Uint8Array | undefined, headers: Record<string, string> = {}, method = 'POST') {
  const res = await fetch(`${kh.url.replace('127.0.0.1', 'localhost')}${path}`, {
    method,
    headers: { authorization: `Bearer ${kh.adminToken}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : Buffer.from(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: any;
  try {
    json = JSON.parse(bytes.toString());
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, bytes, json };
}

const appNames = async () => (await kh.client(ManagementService).listApps({ projectId })).result.map((a) => a.name);
const projectNames = async () => (await kh.client(ManagementService).listProjects({})).result.map((p) => p.name);

/** Connect's error JSON: the ErrorInfo reason and BadRequest fields, from the binary details. */
function connectDetails(json: any): { reason?: string; fields: string[] } {
  const info = json?.details?.find((d: any) => d.type === 'google.rpc.ErrorInfo');
  const bad = json?.details?.find((d: any) => d.type === 'google.rpc.BadRequest');
  return { reason: info?.debug?.reason, fields: bad?.debug?.fieldViolations?.map((v: any) => v.field) ?? [] };
}

/** The status in a gRPC-Web answer's trailer frame. */
function grpcWebTrailer(body: Buffer): { status?: number; reason?: string } {
  for (let at = 0; at + 5 <= body.length; ) {
    const length = body.readUInt32BE(at + 1);
    if (body[at] === 0x80) {
      const lines = body.subarray(at + 5, at + 5 + length).toString().split('\r\n');
      const get = (name: string) => lines.find((l) => l.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim();
      const bin = get('grpc-status-details-bin');
      const status = bin ? fromBinary(StatusSchema, Buffer.from(bin, 'base64')) : undefined;
      const info = status?.details.find((d) => d.typeUrl.endsWith('ErrorInfo'));
      return { status: Number(get('grpc-status')), reason: info ? fromBinary(ErrorInfoSchema, info.value).reason : undefined };
    }
    at += 5 + length;
  }
  return {};
}

const DUPLICATE = (name: string) => `{"projectId":"${projectId}","name":"${name}","authMethodType":"OIDC_AUTH_METHOD_TYPE_NONE","authMethodType":"OIDC_AUTH_METHOD_TYPE_BASIC"}`;

describe('REST', () => {
  it('a key twice (NONE then BASIC) → 400 JSON_DUPLICATE_KEY naming it; no app, no secret', async () => {
    const res = await post(`/management/v1/projects/${projectId}/apps/oidc`, enc.encode(DUPLICATE('rest twice')));
    expect(res.status).toBe(400);
    expect(restReason(res.json)).toBe('JSON_DUPLICATE_KEY');
    expect(restFields(res.json)).toEqual(['authMethodType']);
    expect(res.bytes.toString()).not.toMatch(/clientSecret/);
    expect(await appNames()).not.toContain('rest twice');
  });

  it('a key twice deep inside (profile.givenName) → 400 naming the path', async () => {
    const body = `{"username":"twice","profile":{"givenName":"A","familyName":"B","givenName":"C"},"email":{"email":"t@example.com"}}`;
    const res = await post('/v2/users/human', enc.encode(body));
    expect(res.status).toBe(400);
    expect(restReason(res.json)).toBe('JSON_DUPLICATE_KEY');
    expect(restFields(res.json)).toEqual(['profile.givenName']);
  });

  it('invalid UTF-8 → 400 BODY_NOT_UTF8, nothing stored (not U+FFFD)', async () => {
    const res = await post('/management/v1/projects', bytesOf('{"name":"bad ', [0xc3, 0x28], ' bytes"}'));
    expect(res.status).toBe(400);
    expect(restReason(res.json)).toBe('BODY_NOT_UTF8');
    expect((await projectNames()).filter((n) => n.startsWith('bad '))).toEqual([]);
  });

  it('half a surrogate pair as an escape → 400 JSON_UNPAIRED_SURROGATE on the field', async () => {
    const res = await post('/management/v1/projects', enc.encode('{"name":"lone \\ud800"}'));
    expect(res.status).toBe(400);
    expect(restReason(res.json)).toBe('JSON_UNPAIRED_SURROGATE');
    expect(restFields(res.json)).toEqual(['name']);
  });

  it('a "__proto__" key → 400, as fastify refused it before', async () => {
    const res = await post('/management/v1/projects', enc.encode('{"name":"proto","__proto__":{"x":1}}'));
    expect(res.status).toBe(400);
    expect(restReason(res.json)).toBe('JSON_PROTOTYPE_KEY');
  });

  it('syntax errors still say "not valid JSON", without quoting the body back', async () => {
    const res = await post('/management/v1/projects', enc.encode('{"name":"kh_secretvalue",}'));
    expect(res.status).toBe(400);
    expect(restReason(res.json)).toBe('MALFORMED_BODY');
    expect(res.bytes.toString()).not.toContain('kh_secretvalue');
  });

  it('a bodiless POST and DELETE with content-type application/json are empty messages (200)', async () => {
    const app = await kh.client(ManagementService).addOIDCApp({ projectId, name: 'bodiless' });
    const regenerated = await post(`/management/v1/projects/${projectId}/apps/${app.appId}/oidc_config/_generate_client_secret`, undefined);
    expect(regenerated.status).toBe(200);
    expect(regenerated.json.clientSecret).toMatch(/^\S{32,}$/);
    const zero = await post(`/management/v1/projects/${projectId}/apps/${app.appId}/oidc_config/_generate_client_secret`, new Uint8Array(0));
    expect(zero.status).toBe(200);
    const removed = await post(`/management/v1/projects/${projectId}/apps/${app.appId}`, undefined, { 'content-length': '0' }, 'DELETE');
    expect(removed.status).toBe(200);
    expect(await appNames()).not.toContain('bodiless');
  });

  it('an unknown or wrongly typed nested field is named by its full path, not its parent', async () => {
    const body = { username: 'nested', profile: { givenName: 'A', familyName: 'B', preferredLanguage: 'de' }, email: { email: 'n@example.com' } };
    const res = await post('/v2/users/human', enc.encode(JSON.stringify(body)));
    expect(res.status).toBe(400);
    expect(restFields(res.json)).toEqual(['profile.preferredLanguage']);
    const typed = await post('/v2/users/human', enc.encode(JSON.stringify({ ...body, profile: { givenName: 7, familyName: 'B' } })));
    expect(restFields(typed.json)).toEqual(['profile.givenName']);
    const list = await post(`/management/v1/projects/${projectId}/apps/oidc`, enc.encode(JSON.stringify({ name: 'l', redirectUris: ['https://a.example/cb', 5, 'x', { a: 1 }], responseTypes: ['OIDC_RESPONSE_TYPE_CODE', 'NOPE'] })));
    expect(restFields(list.json)).toEqual(['redirectUris[1]', 'redirectUris[3]', 'responseTypes[1]']);
    const twoNames = await post(`/management/v1/projects/${projectId}/apps/oidc`, enc.encode(JSON.stringify({ name: 'l', redirectUris: [], redirect_uris: [] })));
    expect(restFields(twoNames.json)).toEqual(['redirect_uris']);
  });
});

describe('Connect (application/json)', () => {
  const connect = (method: string) => `/keyhold.management.v1.ManagementService/${method}`;

  it('a key twice → invalid_argument JSON_DUPLICATE_KEY; no app', async () => {
    const res = await post(connect('AddOIDCApp'), enc.encode(DUPLICATE('connect twice')));
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('invalid_argument');
    expect(connectDetails(res.json)).toEqual({ reason: 'JSON_DUPLICATE_KEY', fields: ['authMethodType'] });
    expect(await appNames()).not.toContain('connect twice');
  });

  it('the same inside a gzip-compressed body', async () => {
    const { gzipSync } = await import('node:zlib');
    const res = await post(connect('AddOIDCApp'), gzipSync(DUPLICATE('connect gzip twice')), { 'content-encoding': 'gzip' });
    expect(connectDetails(res.json).reason).toBe('JSON_DUPLICATE_KEY');
    expect(await appNames()).not.toContain('connect gzip twice');
  });

  it('invalid UTF-8 → BODY_NOT_UTF8; half a surrogate pair → JSON_UNPAIRED_SURROGATE', async () => {
    const bad = await post(connect('AddProject'), bytesOf('{"name":"bad ', [0xff], '"}'));
    expect(bad.status).toBe(400);
    expect(connectDetails(bad.json).reason).toBe('BODY_NOT_UTF8');
    const lone = await post(connect('AddProject'), enc.encode('{"name":"\\udc00"}'));
    expect(connectDetails(lone.json)).toEqual({ reason: 'JSON_UNPAIRED_SURROGATE', fields: ['name'] });
  });

  it('an empty body is the empty message, as on REST', async () => {
    const res = await post(connect('ListProjects'), undefined);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.json.result)).toBe(true);
  });

  it('a bad nested field is named by its path and its value is not echoed', async () => {
    const body = { username: 'c-nested', profile: { givenName: 'A', familyName: 'B', preferredLanguage: 'kh_notechoed' }, email: { email: 'c@example.com' } };
    const res = await post('/keyhold.user.v2.UserService/AddHumanUser', enc.encode(JSON.stringify(body)));
    expect(res.status).toBe(400);
    expect(connectDetails(res.json)).toEqual({ reason: 'INVALID_REQUEST', fields: ['profile.preferredLanguage'] });
    const typed = await post(connect('AddOIDCApp'), enc.encode(JSON.stringify({ projectId, name: 'x', redirectUris: ['https://a.example/cb', 'kh_secret'.length, true] })));
    expect(connectDetails(typed.json).fields).toEqual(['redirectUris[1]', 'redirectUris[2]']);
    const secret = await post(connect('AddProject'), enc.encode(JSON.stringify({ name: ['kh_secretvalue'] })));
    expect(connectDetails(secret.json).fields).toEqual(['name']);
    expect(secret.bytes.toString()).not.toContain('kh_secretvalue');
  });
});

describe('gRPC-Web and gRPC with +json', () => {
  it('gRPC-Web+json: a key twice → grpc-status 3 JSON_DUPLICATE_KEY in the trailer; no app', async () => {
    const res = await post('/keyhold.management.v1.ManagementService/AddOIDCApp', grpcFrame(enc.encode(DUPLICATE('grpc-web twice'))), {
      'content-type': 'application/grpc-web+json',
    });
    expect(res.status).toBe(200);
    expect(grpcWebTrailer(res.bytes)).toEqual({ status: 3, reason: 'JSON_DUPLICATE_KEY' });
    expect(await appNames()).not.toContain('grpc-web twice');
  });

  it('gRPC+json over HTTP/2: invalid UTF-8 and a key twice → INVALID_ARGUMENT; a clean message works', async () => {
    const session = h2Session(kh.port);
    try {
      const headers = { 'content-type': 'application/grpc+json', authorization: `Bearer ${kh.adminToken}` };
      const path = '/keyhold.management.v1.ManagementService/AddOIDCApp';
      const twice = await rawGrpc(session, path, grpcFrame(enc.encode(DUPLICATE('grpc twice'))), headers);
      expect([twice.grpcStatus, twice.reason]).toEqual([3, 'JSON_DUPLICATE_KEY']);
      const bad = await rawGrpc(session, path, grpcFrame(bytesOf(`{"projectId":"${projectId}","name":"grpc `, [0xe2, 0x82], '"}')), headers);
      expect([bad.grpcStatus, bad.reason]).toEqual([3, 'BODY_NOT_UTF8']);
      const ok = await rawGrpc(session, path, grpcFrame(enc.encode(JSON.stringify({ projectId, name: 'grpc json ok' }))), headers);
      expect(ok.grpcStatus).toBe(0);
    } finally {
      session.close();
    }
    expect(await appNames()).toContain('grpc json ok');
    expect(await appNames()).not.toContain('grpc twice');
  });
});
