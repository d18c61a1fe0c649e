// offline_access as clients send it: scope `openid offline_access` with no
// prompt. An app allowed the refresh token grant gets a refresh token without a
// consent page; an app without the grant gets none (docs/security.md section 3).
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn } from '../../support/oidc-login.js';

const REDIRECT = 'http://localhost:5178/cb';
const PASSWORD = 'offline without a prompt 7';

describe('offline_access without prompt=consent', () => {
  let kh: TestKeyhold;
  let base: string;
  let projectId: string;
  beforeAll(async () => {
    kh = await startTestKeyhold();
    base = `http://localhost:${kh.port}`;
    projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Offline' })).body.id;
    expect((await kh.rest('POST', '/v2/users/human', { username: 'offline', profile: { givenName: 'O', familyName: 'A' }, email: { email: 'o@example.com' }, password: { password: PASSWORD, changeRequired: false } })).status).toBe(200);
  }, 60_000);
  afterAll(async () => kh?.close());

  /** openid-client's code flow as a library sends it by default: no prompt. */
  async function codeFlow(grantTypes: string[]) {
    const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', grantTypes, devMode: true });
    const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret!), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid offline_access', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const back = await logIn(browser(base), url, 'offline', PASSWORD);
    return { config, tokens: await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier }) };
  }

  it('an app allowed the refresh grant gets a refresh token that refreshes, with no consent page', async () => {
    const { config, tokens } = await codeFlow(['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN']);
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.scope?.split(' ')).toContain('offline_access');
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
    expect(refreshed.refresh_token).toBeTruthy();
  }, 30_000);

  it('an app without the refresh grant gets no refresh token, and the login still succeeds', async () => {
    const { tokens } = await codeFlow(['OIDC_GRANT_TYPE_AUTHORIZATION_CODE']);
    expect(tokens.access_token).toBeTruthy();
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.scope?.split(' ') ?? []).not.toContain('offline_access');
  }, 30_000);
});
