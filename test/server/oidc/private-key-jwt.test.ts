// private_key_jwt, end to end with real clients: AddAppKey over REST
// gives ZITADEL's JSON key file; a backend imports its PEM with jose and
// openid-client authenticates with it (PrivateKeyJwt) through code + PKCE via
// the login UI. Then every refusal, told apart at the token endpoint by the
// error: a bogus code answers invalid_grant once the client is authenticated,
// invalid_client when its assertion is refused.
import { randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import { decodeJwt, exportJWK, generateKeyPair, importPKCS8, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restFields, restReason } from '../../support/errors.js';
import { postgresAvailable } from '../../support/databases.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn } from '../../support/oidc-login.js';

let kh: TestKeyhold;
let base: string;
let projectId: string;
let userId: string;
const USERNAME = 'grace.hopper';
const PASSWORD = 'correct horse battery staple 18';
const REDIRECT = 'http://localhost:5173/callback';

interface KeyFile {
  type: string;
  keyId: string;
  key: string;
  appId: string;
  clientId: string;
}

beforeAll(async () => {
  // On PostgreSQL where there is one (the replay check is meant for processes sharing it), else PGlite.
  kh = await startTestKeyhold({ postgres: postgresAvailable });
  base = `http://localhost:${kh.port}`;
  projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Keys' })).body.id;
  const user = await kh.rest('POST', '/v2/users/human', {
    username: USERNAME,
    profile: { givenName: 'Grace', familyName: 'Hopper' },
    email: { email: 'grace@example.com' },
    password: { password: PASSWORD, changeRequired: false },
  });
  expect(user.status).toBe(200);
  userId = user.body.userId;
}, 60_000);
afterAll(async () => kh?.close());

const keyApp = () => addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' });

async function addKey(appId: string, expirationDate?: Date): Promise<{ file: KeyFile; key: CryptoKey }> {
  const res = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${appId}/keys`, { type: 'KEY_TYPE_JSON', ...(expirationDate ? { expirationDate: expirationDate.toISOString() } : {}) });
  expect(res.status).toBe(200);
  const file = JSON.parse(Buffer.from(res.body.keyDetails, 'base64').toString('utf8')) as KeyFile;
  expect(file.keyId).toBe(res.body.id);
  return { file, key: await importPKCS8(file.key, 'RS256') };
}

const tokenEndpoint = () => `${base}/oauth/v2/token`;

/** A client assertion as a backend makes it; `claims` override the usual ones. */
function assertion(file: KeyFile, key: CryptoKey, claims: Record<string, unknown> = {}, header: { alg?: string; kid?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: file.clientId, sub: file.clientId, aud: tokenEndpoint(), jti: randomUUID(), iat: now, exp: now + 60, ...claims })
    .setProtectedHeader({ alg: header.alg ?? 'RS256', kid: header.kid ?? file.keyId })
    .sign(key);
}

/** The token endpoint's error for a bogus code with this assertion: invalid_grant = the client was authenticated. */
async function tokenError(clientId: string, clientAssertion: string): Promise<string> {
  const res = await fetch(tokenEndpoint(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: 'not-a-code',
      redirect_uri: REDIRECT,
      code_verifier: 'v'.repeat(43),
      client_id: clientId,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: clientAssertion,
    }),
  });
  return ((await res.json()) as { error: string }).error;
}

describe('private_key_jwt', () => {
  it('openid-client with the key file from AddAppKey completes code + PKCE; only the public key is stored', async () => {
    const app = await keyApp();
    const { file, key } = await addKey(app.appId);
    expect(file).toMatchObject({ type: 'application', appId: app.appId, clientId: app.clientId });
    expect(file.key).toMatch(/^-----BEGIN PRIVATE KEY-----/);

    const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.PrivateKeyJwt({ key, kid: file.keyId }), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid profile', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', nonce });
    const back = await logIn(browser(base), url, USERNAME, PASSWORD);
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedNonce: nonce });
    expect(tokens.access_token).toBeTruthy();
    const claims = tokens.claims()!;
    expect(claims.aud).toBe(app.clientId);
    expect(claims.sub).toBe(userId);
    // The access token works at userinfo, as any app's.
    expect((await oidc.fetchUserInfo(config, tokens.access_token, userId)).preferred_username).toBe(USERNAME);
    expect(decodeJwt(tokens.id_token!).iss).toBe(base);

    // The event and the table hold the public key only; ListAppKeys shows the key without it.
    const rows = await kh.database.sql.query<{ payload: any }>({ text: `select payload from events where type = 'app.key.added' and aggregate_id = $1`, params: [app.appId] });
    expect(rows[0]!.payload.publicKey).toMatchObject({ kty: 'RSA', kid: file.keyId });
    expect(rows[0]!.payload.publicKey).not.toHaveProperty('d');
    expect(JSON.stringify(rows)).not.toContain('PRIVATE KEY');
    const listed = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${app.appId}/keys/_search`, {});
    expect(listed.status).toBe(200);
    expect(listed.body.result).toEqual([expect.objectContaining({ id: file.keyId, type: 'KEY_TYPE_JSON', expirationDate: '9999-12-31T23:59:59Z' })]);
    expect(JSON.stringify(listed.body)).not.toContain('PRIVATE');
  });

  it('a replayed jti is refused (the jti is recorded in the database, shared by every process)', async () => {
    const app = await keyApp();
    const { file, key } = await addKey(app.appId);
    const once = await assertion(file, key);
    expect(await tokenError(app.clientId, once)).toBe('invalid_grant');
    expect(await tokenError(app.clientId, once)).toBe('invalid_client');
    // Sent five times at once: one is accepted (the insert that decides it is raced in test/store/oidc-replay.test.ts).
    const racing = await assertion(file, key);
    const answers = await Promise.all(Array.from({ length: 5 }, () => tokenError(app.clientId, racing)));
    expect(answers.filter((a) => a === 'invalid_grant')).toHaveLength(1);
    expect(answers.filter((a) => a === 'invalid_client')).toHaveLength(4);
    const rows = await kh.database.sql.query<{ n: number }>({ text: `select count(*)::int as n from oidc_payloads where model = 'ReplayDetection'`, params: [] });
    expect(rows[0]!.n).toBeGreaterThan(0);
  });

  it('aud: the issuer and the token endpoint are accepted, anything else refused', async () => {
    const app = await keyApp();
    const { file, key } = await addKey(app.appId);
    expect(await tokenError(app.clientId, await assertion(file, key, { aud: base }))).toBe('invalid_grant');
    expect(await tokenError(app.clientId, await assertion(file, key, { aud: tokenEndpoint() }))).toBe('invalid_grant');
    expect(await tokenError(app.clientId, await assertion(file, key, { aud: 'https://elsewhere.example/token' }))).toBe('invalid_client');
    expect(await tokenError(app.clientId, await assertion(file, key, { iss: 'someone-else' }))).toBe('invalid_client');
  });

  it('an expired assertion, or one signed by a key not the app’s (RS256 or ES256), is refused', async () => {
    const app = await keyApp();
    const { file, key } = await addKey(app.appId);
    const past = Math.floor(Date.now() / 1000) - 3600;
    expect(await tokenError(app.clientId, await assertion(file, key, { iat: past - 60, exp: past }))).toBe('invalid_client');
    const other = await addKey((await keyApp()).appId);
    expect(await tokenError(app.clientId, await assertion(file, other.key, {}, { kid: file.keyId }))).toBe('invalid_client');
    const ec = await generateKeyPair('ES256');
    expect((await exportJWK(ec.publicKey)).kty).toBe('EC');
    expect(await tokenError(app.clientId, await assertion(file, ec.privateKey, {}, { alg: 'ES256' }))).toBe('invalid_client');
  });

  it('a removed key and an expired key are refused; the app’s other key still works', async () => {
    const app = await keyApp();
    const removed = await addKey(app.appId);
    const kept = await addKey(app.appId);
    // Expires in 5 s: long enough for the first use on a loaded machine (1.5 s was not, once).
    const expiring = await addKey(app.appId, new Date(Date.now() + 5000));
    const expiresAt = Date.now() + 5000;
    expect(await tokenError(app.clientId, await assertion(removed.file, removed.key))).toBe('invalid_grant');
    expect(await tokenError(app.clientId, await assertion(expiring.file, expiring.key))).toBe('invalid_grant');
    const gone = await kh.rest('DELETE', `/management/v1/projects/${projectId}/apps/${app.appId}/keys/${removed.file.keyId}`);
    expect(gone.status).toBe(200);
    expect(await tokenError(app.clientId, await assertion(removed.file, removed.key))).toBe('invalid_client');
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 300));
    expect(await tokenError(app.clientId, await assertion(expiring.file, expiring.key))).toBe('invalid_client');
    expect(await tokenError(app.clientId, await assertion(kept.file, kept.key))).toBe('invalid_grant');
    const again = await kh.rest('DELETE', `/management/v1/projects/${projectId}/apps/${app.appId}/keys/${removed.file.keyId}`);
    expect(again.status).toBe(404);
    expect(restReason(again.body)).toBe('APP_KEY_NOT_FOUND');
  });

  it('AddAppKey refuses an app without private_key_jwt, a past expiry and a missing type, changing nothing', async () => {
    const basic = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC' });
    const refused = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${basic.appId}/keys`, { type: 'KEY_TYPE_JSON' });
    expect(refused.status).toBe(400);
    expect(restReason(refused.body)).toBe('APP_KEY_NEEDS_PRIVATE_KEY_JWT');
    const app = await keyApp();
    const bad = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${app.appId}/keys`, { expirationDate: new Date(Date.now() - 1000).toISOString() });
    expect(bad.status).toBe(400);
    expect(restFields(bad.body).sort()).toEqual(['expirationDate', 'type']);
    const listed = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${app.appId}/keys/_search`, {});
    expect(listed.body.result ?? []).toEqual([]);
  });
});
