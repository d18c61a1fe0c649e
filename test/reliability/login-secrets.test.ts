// What a login hands out stays secret. One Keyhold logging at trace level
// serves a whole sign-in with real clients — a wrong password, then the right
// one on the login page, consent for a refresh token, the code redeemed by
// openid-client, a refresh, userinfo, introspection and revocation — and then:
// no log line, no event and no row of any table holds the password (right or
// wrong), the code, an access, refresh or ID token, or the client secret; the
// OpenID Provider's state keeps each code and token only under its SHA-256.
import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { addApp, browser, logIn } from '../support/oidc-login.js';

const USERNAME = 'secret.keeper';
const PASSWORD = 'a passphrase nobody logs 42';
const WRONG = 'a wrong passphrase nobody logs 43';
const REDIRECT = 'http://localhost:5181/cb';

let kh: TestKeyhold;
/** Every secret the sign-in made or carried, by what it is. */
const secrets: Record<string, string> = {};
/** The bearer artifacts the provider stores (under their hash), and its state before the revocation ended them. */
const bearers: { model: string; value: string }[] = [];
let storedState: Record<string, unknown>[] = [];

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

async function rows(text: string): Promise<Record<string, unknown>[]> {
  return kh.database.sql.query<Record<string, unknown>>({ text, params: [] });
}
const asText = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? String(v) : v));

beforeAll(async () => {
  kh = await startTestKeyhold({ env: { KEYHOLD_LOG_LEVEL: 'trace' } });
  const base = `http://localhost:${kh.port}`;
  const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Secret login' })).body.id;
  const user = await kh.rest('POST', '/v2/users/human', {
    username: USERNAME,
    profile: { givenName: 'Secret', familyName: 'Keeper' },
    email: { email: 'keeper@example.com' },
    password: { password: PASSWORD, changeRequired: false },
  });
  expect(user.status).toBe(200);
  const app = await addApp(kh, projectId, {
    redirectUris: [REDIRECT],
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
  });
  secrets.clientSecret = app.clientSecret!;
  const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret!), { execute: [oidc.allowInsecureRequests] });
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid profile offline_access',
    prompt: 'consent',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });

  await expect(logIn(browser(base), url, USERNAME, WRONG)).rejects.toThrow(/did not return/);
  secrets.wrongPassword = WRONG;
  const back = await logIn(browser(base), url, USERNAME, PASSWORD);
  secrets.password = PASSWORD;
  secrets.code = back.searchParams.get('code')!;
  const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });
  Object.assign(secrets, { accessToken: tokens.access_token, refreshToken: tokens.refresh_token!, idToken: tokens.id_token! });
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  Object.assign(secrets, { refreshedAccessToken: refreshed.access_token, refreshedRefreshToken: refreshed.refresh_token!, refreshedIdToken: refreshed.id_token! });
  expect((await oidc.fetchUserInfo(config, refreshed.access_token, user.body.userId)).preferred_username).toBe(USERNAME);
  expect((await oidc.tokenIntrospection(config, refreshed.access_token)).active).toBe(true);
  // Live now (the code was used up, the first refresh token rotated away); the revocation below ends the grant and them.
  bearers.push(
    { model: 'AccessToken', value: secrets.accessToken },
    { model: 'AccessToken', value: secrets.refreshedAccessToken },
    { model: 'RefreshToken', value: secrets.refreshedRefreshToken },
  );
  storedState = await rows(`select model, key, payload from oidc_payloads`);
  await oidc.tokenRevocation(config, refreshed.access_token);
  for (const [what, value] of Object.entries(secrets)) expect(value, what).toMatch(/^.{16,}$/);
}, 60_000);
afterAll(async () => kh?.close());

describe('a whole sign-in at trace level', () => {
  it('logs none of its secrets', () => {
    expect(kh.logLines.length).toBeGreaterThan(20);
    const log = kh.logLines.join('\n');
    for (const [what, value] of Object.entries(secrets)) expect(log.includes(value), `a log line holds the ${what}`).toBe(false);
    // Nor a password in any encoding a form or a URL would give it.
    expect(log.includes(encodeURIComponent(PASSWORD))).toBe(false);
    expect(log.includes(new URLSearchParams({ p: PASSWORD }).toString().slice(2))).toBe(false);
  });

  it('records the sign-in as events that hold none of them', async () => {
    const events = await rows(`select type, payload from events where type like 'user.%'`);
    const types = new Set(events.map((e) => e.type));
    for (const t of ['user.password.check.failed', 'user.login.succeeded', 'user.oidc.grant.saved', 'user.oidc.token.revoked']) expect(types, t).toContain(t);
    const text = asText(events);
    for (const [what, value] of Object.entries(secrets)) expect(text.includes(value), `an event holds the ${what}`).toBe(false);
  });

  it('leaves none of them in any table, events and the OpenID Provider’s state included', async () => {
    const tables = (await rows(`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`)).map((r) => String(r.name));
    expect(tables).toEqual(expect.arrayContaining(['events', 'users', 'apps', 'oidc_payloads']));
    let seen = 0;
    for (const table of tables) {
      const text = asText(await rows(`select * from "${table}"`));
      seen += text.length;
      for (const [what, value] of Object.entries(secrets)) expect(text.includes(value), `${table} holds the ${what}`).toBe(false);
    }
    expect(seen).toBeGreaterThan(10_000);
  });

  it('keeps each token it stored only under its SHA-256, without the value', async () => {
    for (const { model, value } of bearers) {
      const row = storedState.find((r) => r.model === model && r.key === sha256(value));
      expect(row, `${model} under its hash`).toBeDefined();
    }
    const text = asText(storedState);
    for (const [what, value] of Object.entries(secrets)) expect(text.includes(value), `the provider's state holds the ${what}`).toBe(false);
  });
});
