// Idempotency-Key on the creates whose answer is shown once, on PGlite and on
// PostgreSQL: a lost answer is asked again and comes back the same (the same
// secret, which works); another request under the key, a bad key, requests at
// once, another caller's key, a refused first try, the window's end; and the
// table keeps the answer sealed.
import { request } from 'node:http';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { sql } from '../../../src/store/sql.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import { bearer, machineCaller, type MachineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { createSoftAuthenticator } from '../../support/soft-authenticator.js';
import { startRegistration } from '../../support/u2f.js';

announcePostgresSkip('Idempotency-Key on PostgreSQL');

const ORIGIN = 'https://login.example';
const backends = [{ backend: 'PGlite', postgres: false }, ...(postgresAvailable ? [{ backend: 'PostgreSQL', postgres: true }] : [])];

let counter = 0;
/** A key no other request of this file uses. */
const newKey = () => `key-${process.pid}-${++counter}-${Math.random().toString(36).slice(2)}`;

describe.each(backends)('Idempotency-Key on $backend', ({ postgres }) => {
  let kh: TestKeyhold;
  let projectId: string;
  let other: MachineCaller;

  beforeAll(async () => {
    kh = await startTestKeyhold({ postgres, env: { KEYHOLD_WEBAUTHN_RP_IDS: 'login.example', KEYHOLD_WEBAUTHN_ORIGINS: ORIGIN } });
    projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Shop' })).body.id;
    other = await machineCaller(kh, undefined, `other-owner-${postgres}`, ['ORG_OWNER']);
  }, 60_000);
  afterAll(async () => kh?.close());

  const addApp = (name: string, key?: string, token = kh.adminToken) =>
    kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name, redirectUris: ['https://shop.example/cb'] }, bearer(token, key === undefined ? {} : { 'idempotency-key': key }));
  const regenerate = (appId: string, key: string, token = kh.adminToken) =>
    kh.rest('POST', `/management/v1/projects/${projectId}/apps/${appId}/oidc_config/_generate_client_secret`, {}, bearer(token, { 'idempotency-key': key }));
  const appsNamed = async (name: string) =>
    (await kh.rest('POST', `/management/v1/projects/${projectId}/apps/_search`, {})).body.result.filter((a: { name: string }) => a.name === name);

  /** What the token endpoint says to the client's secret: invalid_grant (a bogus code) once the client is authenticated, invalid_client otherwise. */
  async function tokenEndpointSays(clientId: string, secret: string): Promise<string> {
    const res = await fetch(`${kh.url}/oauth/v2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: 'https://shop.example/cb' }),
    });
    return ((await res.json()) as { error: string }).error;
  }

  it('a lost AddOIDCApp answer asked again with its key comes back the same, over REST and gRPC-Web, and its secret works at the token endpoint', async () => {
    const key = newKey();
    const first = await addApp('Lost answer', key);
    expect(first.status).toBe(200);
    expect(first.body.clientSecret).toBeTruthy();
    const again = await addApp('Lost answer', key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // The same request over gRPC-Web (the message, not its JSON, is what is compared).
    const web = await kh.client(ManagementService, 'grpcWeb', kh.adminToken, { 'idempotency-key': key }).addOIDCApp({ projectId, name: 'Lost answer', redirectUris: ['https://shop.example/cb'] });
    expect(web.clientSecret).toBe(first.body.clientSecret);
    expect(web.appId).toBe(first.body.appId);
    expect(await appsNamed('Lost answer')).toHaveLength(1);
    expect(await tokenEndpointSays(first.body.clientId, again.body.clientSecret)).toBe('invalid_grant');
    expect(await tokenEndpointSays(first.body.clientId, `${again.body.clientSecret}x`)).toBe('invalid_client');
    // Without a key a repeat is a new request, as before.
    const plain = await addApp('Lost answer');
    expect(plain.status).toBe(409);
    expect(restReason(plain.body)).toBe('APP_NAME_TAKEN');
  });

  it('the same key with another request is refused, naming the conflict: 422 over REST, FAILED_PRECONDITION over gRPC; nothing more is made', async () => {
    const key = newKey();
    expect((await addApp('Keyed once', key)).status).toBe(200);
    const rest = await addApp('Keyed twice', key);
    expect(rest.status).toBe(422);
    expect(restReason(rest.body)).toBe('IDEMPOTENCY_KEY_REUSED');
    const grpc = await rpcError(
      kh.client(ManagementService, 'grpc', kh.adminToken, { 'idempotency-key': key }).addOIDCApp({ projectId, name: 'Keyed thrice', redirectUris: ['https://shop.example/cb'] }),
    );
    expect(grpc.code).toBe(Code.FailedPrecondition);
    expect(grpc.reason).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await appsNamed('Keyed twice')).toHaveLength(0);
    expect(await appsNamed('Keyed thrice')).toHaveLength(0);
  });

  it('8 requests at once with one key (REST and gRPC): one app is made; every answer is its answer or "in progress"', async () => {
    const key = newKey();
    const grpc = kh.client(ManagementService, 'grpc', kh.adminToken, { 'idempotency-key': key });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 === 0
          ? addApp('Raced', key).then((r) => (r.status === 200 ? { ok: r.body.clientSecret as string } : { status: r.status, reason: restReason(r.body) }))
          : grpc
              .addOIDCApp({ projectId, name: 'Raced', redirectUris: ['https://shop.example/cb'] })
              .then((r) => ({ ok: r.clientSecret }))
              .catch(async (e) => ({ status: 409, reason: (await rpcError(Promise.reject(e))).reason })),
      ),
    );
    const apps = await appsNamed('Raced');
    expect(apps).toHaveLength(1);
    const secrets = new Set(answers.flatMap((a) => ('ok' in a ? [a.ok] : [])));
    expect(secrets.size).toBe(1);
    for (const a of answers) if (!('ok' in a)) expect(a).toEqual({ status: 409, reason: 'IDEMPOTENCY_KEY_IN_PROGRESS' });
    // Once it is over, every repeat gets the answer.
    const after = await addApp('Raced', key);
    expect(after.body.clientSecret).toBe([...secrets][0]);
  });

  it("a key is its caller's: another caller's same key runs on its own, and never gets the first caller's answer", async () => {
    const app = (await addApp('Shared key')).body;
    const key = newKey();
    const mine = await regenerate(app.appId, key);
    const theirs = await regenerate(app.appId, key, other.token);
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(theirs.body.clientSecret).not.toBe(mine.body.clientSecret);
    // Each caller's repeat gets its own answer back.
    expect((await regenerate(app.appId, key)).body.clientSecret).toBe(mine.body.clientSecret);
    expect((await regenerate(app.appId, key, other.token)).body.clientSecret).toBe(theirs.body.clientSecret);
    expect(await tokenEndpointSays(app.clientId, theirs.body.clientSecret)).toBe('invalid_grant');
  });

  it('a refused request keeps nothing: its retry with the key runs', async () => {
    const taken = (await addApp('Taken name')).body;
    const key = newKey();
    const refused = await addApp('Taken name', key);
    expect(restReason(refused.body)).toBe('APP_NAME_TAKEN');
    expect((await kh.rest('DELETE', `/management/v1/projects/${projectId}/apps/${taken.appId}`)).status).toBe(200);
    const retried = await addApp('Taken name', key);
    expect(retried.status).toBe(200);
    expect(retried.body.appId).not.toBe(taken.appId);
  });

  it('a key that is not 1–255 printable ASCII characters, or sent twice, is a 400 naming the header (gRPC: INVALID_ARGUMENT), and nothing runs', async () => {
    for (const bad of ['', 'x'.repeat(256), 'clé']) {
      const res = await addApp('Bad key', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(restReason(res.body)).toBe('IDEMPOTENCY_KEY_INVALID');
      expect(restFields(res.body)).toEqual(['Idempotency-Key']);
    }
    const grpc = await rpcError(
      kh.client(ManagementService, 'grpc', kh.adminToken, { 'idempotency-key': 'x'.repeat(256) }).addOIDCApp({ projectId, name: 'Bad key', redirectUris: ['https://shop.example/cb'] }),
    );
    expect(grpc.code).toBe(Code.InvalidArgument);
    expect(grpc.fields).toEqual(['Idempotency-Key']);
    // Sent twice, it would name two requests: refused before any protocol reads it.
    const twice = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(`${kh.url}/management/v1/projects/${projectId}/apps/oidc`, {
        method: 'POST',
        headers: { authorization: `Bearer ${kh.adminToken}`, 'content-type': 'application/json', 'idempotency-key': ['one', 'two'] },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on('error', reject).end(JSON.stringify({ name: 'Bad key', redirectUris: ['https://shop.example/cb'] }));
    });
    expect(twice.status).toBe(400);
    expect(restReason(twice.body)).toBe('REPEATED_HEADER');
    expect(await appsNamed('Bad key')).toHaveLength(0);
    // The longest key is fine.
    expect((await addApp('Long key', 'k'.repeat(255))).status).toBe(200);
  });

  it('every operation whose answer is shown once repeats its answer under the key', async () => {
    const machine = await machineCaller(kh, undefined, `machine-${postgres}`);
    const jwtApp = (await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: 'Key app', redirectUris: ['https://shop.example/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' })).body;
    const basicApp = (await addApp('Secret app')).body;
    const reg = await startRegistration(kh, other.userId, other.token);
    const credential = createSoftAuthenticator().makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId, fmt: 'packed' });
    const expiry = new Date(Date.now() + 86_400_000).toISOString();
    const operations: [string, string, string, unknown, string][] = [
      ['AddPersonalAccessToken', 'POST', `/management/v1/users/${machine.userId}/pats`, {}, 'token'],
      ['GenerateMachineSecret', 'PUT', `/management/v1/users/${machine.userId}/secret`, {}, 'clientSecret'],
      ['AddAppKey', 'POST', `/management/v1/projects/${projectId}/apps/${jwtApp.appId}/keys`, { type: 'KEY_TYPE_JSON', expirationDate: expiry }, 'keyDetails'],
      ['RegenerateOIDCClientSecret', 'POST', `/management/v1/projects/${projectId}/apps/${basicApp.appId}/oidc_config/_generate_client_secret`, {}, 'clientSecret'],
      ['VerifyU2FRegistration', 'POST', `/v2/users/${other.userId}/u2f/${reg.u2fId}`, { publicKeyCredential: credential, tokenName: 'Key' }, 'details'],
    ];
    for (const [operation, method, path, body, shown] of operations) {
      const key = newKey();
      const token = operation === 'VerifyU2FRegistration' ? other.token : kh.adminToken;
      const first = await kh.rest(method, path, body, bearer(token, { 'idempotency-key': key }));
      expect(first.status, `${operation}: ${JSON.stringify(first.body)}`).toBe(200);
      expect(first.body[shown], operation).toBeTruthy();
      const again = await kh.rest(method, path, body, bearer(token, { 'idempotency-key': key }));
      expect(again.status, operation).toBe(200);
      expect(again.body, operation).toEqual(first.body);
      // Without the key the second request is a new one (a new secret, or "already verified").
      const fresh = await kh.rest(method, path, body, bearer(token));
      expect(JSON.stringify(fresh.body), operation).not.toBe(JSON.stringify(first.body));
    }
  });

  it('the kept answer is sealed (no secret, key, client or user id in the table); after its window a repeat runs again and the sweep deletes it', async () => {
    const app = (await addApp('Sealed')).body;
    const key = newKey();
    const first = (await regenerate(app.appId, key)).body;
    const rows = await kh.database.sql.query<Record<string, unknown>>(sql`select * from idempotent_answers`);
    expect(rows.length).toBeGreaterThan(0);
    const dump = JSON.stringify(rows);
    for (const clear of [first.clientSecret, Buffer.from(first.clientSecret).toString('base64'), key, app.clientId, app.appId, kh.bootstrap.created ? kh.bootstrap.adminUserId : '']) {
      if (clear) expect(dump).not.toContain(clear);
    }
    // The window is over (as 24 h later): the key names a new request.
    await kh.database.sql.query(sql`update idempotent_answers set expires_at = now() - interval '1 second'`);
    const later = await regenerate(app.appId, key);
    expect(later.status).toBe(200);
    expect(later.body.clientSecret).not.toBe(first.clientSecret);
    await kh.database.sql.query(sql`update idempotent_answers set expires_at = now() - interval '1 second'`);
    expect(await kh.housekeeping.sweep()).toBeGreaterThan(0);
    expect(await kh.database.sql.query(sql`select key from idempotent_answers`)).toEqual([]);
  });
});
