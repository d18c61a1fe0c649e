// A project's login checks (projectRoleCheck, hasProjectCheck) hold for the
// tokens given before, not only at login: once the user may no longer log in to
// the project — its grant removed, or a check switched on — its refresh token
// gets no new tokens, its access token no userinfo, and introspection calls it
// inactive. A real relying party (openid-client) and the login UI over HTTP.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn } from '../../support/oidc-login.js';

const PASSWORD = 'checks hold after login 5';
const REDIRECT = 'http://localhost:5176/cb';

describe('login checks after the login', () => {
  let kh: TestKeyhold;
  let base: string;
  beforeAll(async () => {
    kh = await startTestKeyhold();
    base = `http://localhost:${kh.port}`;
  }, 60_000);
  afterAll(async () => kh?.close());

  /** A project (with the given checks), a user (granted `editor` when asked) and a web app allowed refresh tokens; then a login. */
  async function loggedIn(name: string, project: { projectRoleCheck: boolean }, granted: boolean, appFields: Record<string, unknown> = {}) {
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name, ...project })).body.id as string;
    expect((await kh.rest('POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'editor', displayName: 'Editor' })).status).toBe(200);
    const username = `${name.toLowerCase()}.user`;
    const userId = (await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'C', familyName: 'H' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } })).body.userId as string;
    let grantId: string | undefined;
    if (granted) grantId = (await kh.rest('POST', `/management/v1/users/${userId}/grants`, { projectId, roleKeys: ['editor'] })).body.userGrantId;
    const app = await addApp(kh, projectId, {
      redirectUris: [REDIRECT],
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      devMode: true,
      ...appFields,
    });
    const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret!), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid offline_access', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const back = await logIn(browser(base), url, username, PASSWORD);
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });
    expect(tokens.refresh_token).toBeTruthy();
    return { projectId, userId, grantId, config, tokens };
  }

  const userinfo = async (token: string) => (await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status;

  /** What each use of the tokens answers now. */
  async function uses(config: oidc.Configuration, tokens: oidc.TokenEndpointResponse) {
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!).then(
      () => 'refreshed',
      (e: oidc.ResponseBodyError) => e.error,
    );
    return { refreshed, userinfo: await userinfo(tokens.access_token), active: (await oidc.tokenIntrospection(config, tokens.access_token)).active };
  }

  it('projectRoleCheck: the grant removed after the login ends refresh, userinfo and introspection', async () => {
    const { userId, grantId, config, tokens } = await loggedIn('Checked', { projectRoleCheck: true }, true);
    expect(await uses(config, tokens)).toMatchObject({ refreshed: 'refreshed', userinfo: 200, active: true });
    expect((await kh.rest('DELETE', `/management/v1/users/${userId}/grants/${grantId}`)).status).toBe(200);
    expect(await uses(config, tokens)).toEqual({ refreshed: 'invalid_grant', userinfo: 401, active: false });
  });

  it('projectRoleCheck switched on after the login of a user without a grant ends its tokens too; switched off, they work again', async () => {
    const { projectId, config, tokens } = await loggedIn('Later', { projectRoleCheck: false }, false);
    expect(await userinfo(tokens.access_token)).toBe(200);
    expect((await kh.rest('PUT', `/management/v1/projects/${projectId}`, { name: 'Later', projectRoleCheck: true })).status).toBe(200);
    expect(await uses(config, tokens)).toEqual({ refreshed: 'invalid_grant', userinfo: 401, active: false });
    expect((await kh.rest('PUT', `/management/v1/projects/${projectId}`, { name: 'Later', projectRoleCheck: false })).status).toBe(200);
    expect(await userinfo(tokens.access_token)).toBe(200);
  });

  it('a JWT access token too: its userinfo ends with the grant', async () => {
    const { userId, grantId, tokens } = await loggedIn('Signed', { projectRoleCheck: true }, true, { accessTokenType: 'OIDC_TOKEN_TYPE_JWT' });
    expect(tokens.access_token.split('.')).toHaveLength(3);
    expect(await userinfo(tokens.access_token)).toBe(200);
    expect((await kh.rest('DELETE', `/management/v1/users/${userId}/grants/${grantId}`)).status).toBe(200);
    expect(await userinfo(tokens.access_token)).toBe(401);
  });
});
