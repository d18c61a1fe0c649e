// Every path from a token to a caller of the API checks what the token stands
// on, at every use, with the bound a personal access token has: an OpenID
// access token stops when the app it was issued to is deactivated (and works
// again once it is reactivated: the app's state, not an end) and while its
// user is not active — even a token that outlived the change; a machine user's
// client-credentials tokens (opaque and JWT) end with its lock and when its
// secret is regenerated or removed. And another
// process sharing the PostgreSQL refuses within the caches' bound (1 s).
// Real clients: openid-client, the login UI over HTTP, a child Keyhold.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildKeyhold, type ChildKeyhold } from '../../support/child-keyhold.js';
import { announcePostgresSkip, postgresAvailable, tempDir } from '../../support/databases.js';
import { restReason } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { browser, logIn } from '../../support/oidc-login.js';

const API_SCOPE = 'urn:keyhold:iam:api:aud';
const PASSWORD = 'state follows tokens 4';

async function addUser(kh: TestKeyhold, username: string): Promise<string> {
  const res = await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'T', familyName: 'S' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } });
  expect(res.status).toBe(200);
  return res.body.userId;
}

/** The user's API token: the console app's, granted the API scope. */
async function apiToken(kh: TestKeyhold, username: string): Promise<string> {
  const base = `http://localhost:${kh.port}`;
  const config = await oidc.discovery(new URL(base), 'keyhold-console', undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: `${base}/console/`, scope: `openid profile ${API_SCOPE}`, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
  const back = await logIn(browser(base), url, username, PASSWORD);
  return (await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier })).access_token;
}

/** The console app's ids, for DeactivateApp. */
async function consoleApp(kh: TestKeyhold): Promise<{ projectId: string; appId: string }> {
  const projects = (await kh.rest('POST', '/management/v1/projects/_search', {})).body.result as { id: string; name: string }[];
  const projectId = projects.find((p) => p.name === 'Keyhold')!.id;
  const apps = (await kh.rest('POST', `/management/v1/projects/${projectId}/apps/_search`, {})).body.result as { id: string; oidcConfig?: { clientId: string } }[];
  return { projectId, appId: apps.find((a) => a.oidcConfig?.clientId === 'keyhold-console')!.id };
}

const nextSecond = () => new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 10));

/** GET /auth/v1/users/me at `base` with the token: the status. */
const meAt = async (base: string, token: string) => (await fetch(`${base}/auth/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })).status;

describe('one process', () => {
  let kh: TestKeyhold;
  let base: string;
  beforeAll(async () => {
    kh = await startTestKeyhold();
    base = `http://localhost:${kh.port}`;
  }, 60_000);
  afterAll(async () => kh?.close());

  it('an API token stops at once when its app is deactivated, on the API and at userinfo; works again once it is reactivated', async () => {
    await addUser(kh, 'state.app');
    const token = await apiToken(kh, 'state.app');
    const { projectId, appId } = await consoleApp(kh);
    expect(await meAt(base, token)).toBe(200);
    expect((await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${appId}/_deactivate`, {})).status).toBe(200);
    try {
      const refused = await kh.rest('GET', '/auth/v1/users/me', undefined, { authorization: `Bearer ${token}` });
      expect([refused.status, restReason(refused.body)]).toEqual([401, 'UNAUTHENTICATED']);
      expect((await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    } finally {
      expect((await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${appId}/_reactivate`, {})).status).toBe(200);
    }
    expect(await meAt(base, token)).toBe(200);
  });

  it('an API token that outlived its user\'s lock or deactivation (stored before tokens named their user) is refused while the user is not active', async () => {
    const userId = await addUser(kh, 'state.user');
    const token = await apiToken(kh, 'state.user');
    // As rows stored before tokens named their user: the change cannot delete them, the user's state still counts.
    await kh.database.sql.query({ text: `update oidc_payloads set account_id = null where account_id = $1`, params: [userId] });
    for (const [step, undo] of [['lock', 'unlock'], ['deactivate', 'reactivate']]) {
      expect((await kh.rest('POST', `/v2/users/${userId}/${step}`, {})).status).toBe(200);
      expect(await meAt(base, token), step).toBe(401);
      expect((await kh.rest('POST', `/v2/users/${userId}/${undo}`, {})).status).toBe(200);
    }
  });

  it("a machine user's client-credentials tokens, opaque and JWT, end with its lock: refused after the unlock too", async () => {
    for (const accessTokenType of ['ACCESS_TOKEN_TYPE_BEARER', 'ACCESS_TOKEN_TYPE_JWT']) {
      const added = await kh.rest('POST', '/management/v1/users/machine', { userName: `state-${accessTokenType}`, name: 'State', accessTokenType });
      const secret = await kh.rest('PUT', `/management/v1/users/${added.body.userId}/secret`, {});
      const config = await oidc.discovery(new URL(base), secret.body.clientId, undefined, oidc.ClientSecretBasic(secret.body.clientSecret), { execute: [oidc.allowInsecureRequests] });
      const { access_token: token } = await oidc.clientCredentialsGrant(config);
      expect(await meAt(base, token), accessTokenType).toBe(200);
      await nextSecond(); // a JWT of the lock's own second counts as before it (its iat has whole seconds)
      expect((await kh.rest('POST', `/v2/users/${added.body.userId}/lock`, {})).status).toBe(200);
      expect((await kh.rest('POST', `/v2/users/${added.body.userId}/unlock`, {})).status).toBe(200);
      expect(await meAt(base, token), accessTokenType).toBe(401);
      await nextSecond(); // …and so would a new one of that second
      expect(await meAt(base, (await oidc.clientCredentialsGrant(config)).access_token), `${accessTokenType}: a new token`).toBe(200);
    }
  });

  it("a machine user's client-credentials tokens, opaque and JWT, end when its secret is regenerated or removed", async () => {
    for (const accessTokenType of ['ACCESS_TOKEN_TYPE_BEARER', 'ACCESS_TOKEN_TYPE_JWT']) {
      const added = await kh.rest('POST', '/management/v1/users/machine', { userName: `rotated-${accessTokenType}`, name: 'Rotated', accessTokenType });
      const path = `/management/v1/users/${added.body.userId}/secret`;
      const tokenWith = async (secret: { clientId: string; clientSecret: string }) =>
        (await oidc.clientCredentialsGrant(await oidc.discovery(new URL(base), secret.clientId, undefined, oidc.ClientSecretBasic(secret.clientSecret), { execute: [oidc.allowInsecureRequests] }))).access_token;
      const old = await tokenWith((await kh.rest('PUT', path, {})).body);
      expect(await meAt(base, old), accessTokenType).toBe(200);
      // What another process still holding the old secret would store after the change's delete: the same row again.
      const stored = await kh.database.sql.query<{ key: string; payload: unknown; expires_at: Date; account_id: string }>({
        text: `select key, payload::text as payload, expires_at, account_id from oidc_payloads where model = 'ClientCredentials' and account_id = $1`,
        params: [added.body.userId],
      });
      await nextSecond(); // a JWT of the change's own second counts as before it
      const rotated = (await kh.rest('PUT', path, {})).body;
      for (const row of stored) {
        await kh.database.sql.query({
          text: `insert into oidc_payloads (model, key, payload, expires_at, account_id) values ('ClientCredentials', $1, $2::jsonb, $3, $4)`,
          params: [row.key, row.payload, row.expires_at, row.account_id],
        });
      }
      expect(await meAt(base, old), `${accessTokenType}: a token of the old secret`).toBe(401);
      await nextSecond();
      const current = await tokenWith(rotated);
      expect(await meAt(base, current), `${accessTokenType}: a token of the new secret`).toBe(200);
      await nextSecond();
      expect((await kh.rest('DELETE', path)).status).toBe(200);
      expect(await meAt(base, current), `${accessTokenType}: after the secret was removed`).toBe(401);
    }
  });
});

announcePostgresSkip('token state across two processes');

describe.skipIf(!postgresAvailable)('two processes on one PostgreSQL', () => {
  let a: TestKeyhold;
  let b: ChildKeyhold;
  let baseA: string;
  beforeAll(async () => {
    a = await startTestKeyhold({ postgres: true });
    baseA = `http://localhost:${a.port}`;
    b = await startChildKeyhold({ dataDir: await tempDir('keyhold-state-b-'), databaseUrl: a.config.databaseUrl!, env: { KEYHOLD_ISSUER: baseA } });
  }, 120_000);
  afterAll(async () => {
    await b?.kill('SIGTERM');
    await a?.close();
  });

  /** How long after `change` the other process refuses the token (ms), polling every 50 ms up to 3 s. */
  async function refusedAfter(token: string, change: () => Promise<unknown>): Promise<number> {
    expect(await meAt(b.url, token)).toBe(200);
    await change();
    const started = Date.now();
    while (Date.now() - started < 3000) {
      if ((await meAt(b.url, token)) === 401) return Date.now() - started;
      await new Promise((r) => setTimeout(r, 50));
    }
    return Infinity;
  }

  it("what one process changes, the other refuses: a lock at once (the token is gone), a deactivated app within the caches' bound", async () => {
    const userId = await addUser(a, 'state.twice');
    const token = await apiToken(a, 'state.twice');
    // At once: the very next request at the other process is refused (a bound in milliseconds measured the machine's load).
    expect(await meAt(b.url, token)).toBe(200);
    expect((await a.rest('POST', `/v2/users/${userId}/lock`, {})).status).toBe(200);
    expect(await meAt(b.url, token)).toBe(401);

    expect((await a.rest('POST', `/v2/users/${userId}/unlock`, {})).status).toBe(200);
    const again = await apiToken(a, 'state.twice');
    const { projectId, appId } = await consoleApp(a);
    const ms = await refusedAfter(again, () => a.rest('POST', `/management/v1/projects/${projectId}/apps/${appId}/_deactivate`, {}));
    expect(ms).toBeLessThanOrEqual(1_500); // 1 s cache + polling and request time
    expect((await a.rest('POST', `/management/v1/projects/${projectId}/apps/${appId}/_reactivate`, {})).status).toBe(200);
  }, 60_000);
});
