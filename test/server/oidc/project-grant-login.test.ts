// hasProjectCheck with project grants: a project that admits only users whose
// org has it admits the users of an org it is granted to (AddProjectGrant), and
// no longer once that grant is deactivated or removed — neither a new login nor
// the tokens given before (refresh, userinfo, introspection ask the same check).
// A real relying party (openid-client) and the login UI over HTTP.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inOrg } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn } from '../../support/oidc-login.js';

const PASSWORD = 'granted project login 7';
const REDIRECT = 'http://localhost:5177/cb';

describe('hasProjectCheck honours project grants', () => {
  let kh: TestKeyhold;
  let base: string;
  let projectId: string;
  let config: oidc.Configuration;
  let partner: string;
  beforeAll(async () => {
    kh = await startTestKeyhold();
    base = `http://localhost:${kh.port}`;
    projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Shared', hasProjectCheck: true })).body.id;
    expect((await kh.rest('POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'reader', displayName: 'Reader' })).status).toBe(200);
    partner = (await kh.rest('POST', '/v2/organizations', { name: 'Partner' })).body.organizationId;
    const app = await addApp(kh, projectId, {
      redirectUris: [REDIRECT],
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      devMode: true,
    });
    config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret!), { execute: [oidc.allowInsecureRequests] });
  }, 60_000);
  afterAll(async () => kh?.close());

  async function partnerUser(name: string): Promise<string> {
    const res = await kh.rest(
      'POST',
      '/v2/users/human',
      { username: name, organization: { orgId: partner }, profile: { givenName: 'P', familyName: 'U' }, email: { email: `${name}@example.com` }, password: { password: PASSWORD, changeRequired: false } },
    );
    expect(res.status).toBe(200);
    return name;
  }

  /** The tokens of a login; 'refused' when the login's checks refuse it, or the error the app was sent back with. */
  async function login(username: string): Promise<oidc.TokenEndpointResponse | string> {
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid offline_access', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    let back: URL;
    try {
      back = await logIn(browser(base), url, username, PASSWORD);
    } catch (e) {
      // The checks refuse on the login's own page, as for a user the project does not admit.
      if (String(e).includes('<title>Sign-in failed</title>')) return 'refused';
      throw e;
    }
    if (back.searchParams.get('error')) return back.searchParams.get('error')!;
    return oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });
  }

  async function uses(tokens: oidc.TokenEndpointResponse) {
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!).then(
      () => 'refreshed',
      (e: oidc.ResponseBodyError) => e.error,
    );
    const userinfo = (await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status;
    return { refreshed, userinfo, active: (await oidc.tokenIntrospection(config, tokens.access_token)).active };
  }

  it('a user of the granted org logs in; after RemoveProjectGrant it cannot, and its refresh fails', async () => {
    const username = await partnerUser('partner.ada');
    expect(await login(username)).toBe('refused');

    const added = await kh.rest('POST', `/management/v1/projects/${projectId}/grants`, { grantedOrgId: partner, roleKeys: ['reader'] });
    expect(added.status).toBe(200);
    const tokens = await login(username);
    expect(typeof tokens).toBe('object');
    const issued = tokens as oidc.TokenEndpointResponse;
    expect(await uses(issued)).toMatchObject({ refreshed: 'refreshed', userinfo: 200, active: true });

    expect((await kh.rest('DELETE', `/management/v1/projects/${projectId}/grants/${added.body.grantId}`)).status).toBe(200);
    expect(await uses(issued)).toEqual({ refreshed: 'invalid_grant', userinfo: 401, active: false });
    expect(await login(username)).toBe('refused');
  });

  it('a deactivated project grant admits nobody until it is reactivated', async () => {
    const username = await partnerUser('partner.bob');
    const again = await kh.rest('POST', `/management/v1/projects/${projectId}/grants`, { grantedOrgId: partner, roleKeys: ['reader'] });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const { grantId } = again.body;
    const tokens = (await login(username)) as oidc.TokenEndpointResponse;
    expect(typeof tokens).toBe('object');
    expect((await kh.rest('POST', `/management/v1/projects/${projectId}/grants/${grantId}/_deactivate`, {})).status).toBe(200);
    expect(await uses(tokens)).toMatchObject({ userinfo: 401, active: false });
    expect(await login(username)).toBe('refused');
    expect((await kh.rest('POST', `/management/v1/projects/${projectId}/grants/${grantId}/_reactivate`, {})).status).toBe(200);
    expect(typeof (await login(username))).toBe('object');
    // The granted org's own user grant gives the role claim the granted org's name (ZITADEL's shape).
    const userId = (await kh.rest('POST', '/v2/users', { queries: [{ userNameQuery: { userName: username } }] })).body.result?.[0]?.userId;
    expect(userId).toBeTruthy();
    const grant = await kh.rest('POST', `/management/v1/users/${userId}/grants`, { projectId, roleKeys: ['reader'] }, inOrg(partner));
    expect(grant.status).toBe(200);
  });
});
