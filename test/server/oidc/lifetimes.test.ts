// Lifetimes per instance (KEYHOLD_*_SECONDS): access token, ID token, refresh
// token idle and absolute (the grant), login session — ZITADEL's defaults, and
// each as configured, seen on the tokens and the stored state.
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/server/config.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn } from '../../support/oidc-login.js';

describe('configuration', () => {
  it("defaults are ZITADEL's; bad values are refused naming the variable", () => {
    expect(loadConfig({}).oidc.lifetimes).toEqual({ accessToken: 43_200, idToken: 43_200, refreshIdle: 2_592_000, refreshAbsolute: 7_776_000, session: 1_209_600, deviceCode: 300, devicePollInterval: 5 });
    expect(() => loadConfig({ KEYHOLD_ACCESS_TOKEN_LIFETIME_SECONDS: '12h' })).toThrow(/KEYHOLD_ACCESS_TOKEN_LIFETIME_SECONDS: expected a whole number/);
    expect(() => loadConfig({ KEYHOLD_ID_TOKEN_LIFETIME_SECONDS: '1' })).toThrow(ConfigError);
    expect(() => loadConfig({ KEYHOLD_REFRESH_TOKEN_IDLE_SECONDS: '1000', KEYHOLD_REFRESH_TOKEN_ABSOLUTE_SECONDS: '999' })).toThrow(/KEYHOLD_REFRESH_TOKEN_IDLE_SECONDS: must not exceed KEYHOLD_REFRESH_TOKEN_ABSOLUTE_SECONDS/);
  });
});

describe('on a Keyhold with short lifetimes', () => {
  let kh: TestKeyhold;
  beforeAll(async () => {
    kh = await startTestKeyhold({
      env: {
        KEYHOLD_ACCESS_TOKEN_LIFETIME_SECONDS: '60',
        KEYHOLD_ID_TOKEN_LIFETIME_SECONDS: '120',
        KEYHOLD_REFRESH_TOKEN_IDLE_SECONDS: '300',
        KEYHOLD_REFRESH_TOKEN_ABSOLUTE_SECONDS: '600',
        KEYHOLD_LOGIN_SESSION_SECONDS: '900',
      },
    });
  }, 60_000);
  afterAll(async () => kh?.close());

  it('tokens, refresh tokens, the grant and the login session last as configured', async () => {
    const base = `http://localhost:${kh.port}`;
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Lifetimes' })).body.id;
    expect((await kh.rest('POST', '/v2/users/human', { username: 'brief', profile: { givenName: 'B', familyName: 'R' }, email: { email: 'b@example.com' }, password: { password: 'short lived tokens 17', changeRequired: false } })).status).toBe(200);
    const app = await addApp(kh, projectId, {
      redirectUris: ['http://localhost:5177/cb'],
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      devMode: true,
    });
    const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret!), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: 'http://localhost:5177/cb', scope: 'openid offline_access', prompt: 'consent', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const now = Math.floor(Date.now() / 1000);
    const back = await logIn(browser(base), url, 'brief', 'short lived tokens 17');
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });
    expect(tokens.expires_in).toBeGreaterThanOrEqual(59);
    expect(tokens.expires_in).toBeLessThanOrEqual(60);
    const id = decodeJwt(tokens.id_token!);
    expect(id.exp! - id.iat!).toBe(120);
    const refresh = await oidc.tokenIntrospection(config, tokens.refresh_token!);
    expect(refresh.active).toBe(true);
    expect(refresh.exp! - refresh.iat!).toBe(300);
    // The grant (absolute end of every refresh token) and the login session, as stored.
    const rows = await kh.database.sql.query<{ model: string; expires_at: string | Date }>({ text: "select model, expires_at from oidc_payloads where model in ('Grant', 'Session')", params: [] });
    const left = (model: string) => Math.round(new Date(rows.find((r) => r.model === model)!.expires_at).getTime() / 1000) - now;
    expect(left('Grant')).toBeGreaterThanOrEqual(599);
    expect(left('Grant')).toBeLessThanOrEqual(605);
    expect(left('Session')).toBeGreaterThanOrEqual(899);
    expect(left('Session')).toBeLessThanOrEqual(905);
  }, 60_000);
});
