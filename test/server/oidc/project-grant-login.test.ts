// hasProjectCheck with project grants: a project that admits only users whose
// org has it admits the users of an org it is granted to (AddProjectGrant), and
// no longer once that grant is deactivated or removed — neither a new login nor
// the tokens given before (refresh, userinfo, introspection ask the same check).
// A real relying party (openid-client) and the login UI over HTTP; with
// PostgreSQL, a grant removed at one process ends the tokens at another.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import { inOrg } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn, sendTo, type AppCreated } from '../../support/oidc-login.js';
import { twoProcesses, within } from '../../support/two-processes.js';

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

announcePostgresSkip('project grants seen by a second process');
describe.runIf(postgresAvailable)('project grants on two processes sharing one PostgreSQL', () => {
  const processes = twoProcesses('project-grants');
  const basic = (app: AppCreated) => `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`;

  /** A login at `server` (as the issuer's browser): its tokens, or 'refused'. */
  async function loginAt(server: string, app: AppCreated, username: string): Promise<{ access_token: string; refresh_token: string } | 'refused'> {
    const { issuer } = processes;
    const verifier = oidc.randomPKCECodeVerifier();
    const authorize = new URL(`${issuer}/oauth/v2/authorize`);
    authorize.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    let back: URL;
    try {
      back = await logIn(browser(issuer, {}, sendTo(server)), authorize, username, PASSWORD);
    } catch (e) {
      if (String(e).includes('<title>Sign-in failed</title>')) return 'refused';
      throw e;
    }
    const res = await fetch(`${server}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app) },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier }),
    });
    expect(res.status).toBe(200);
    return res.json();
  }

  it('the grant removed at the first process: the second refuses the tokens and the login within the bound', async () => {
    const { a, b } = processes;
    const projectId = (await a.rest('POST', '/management/v1/projects', { name: 'Twin shared', hasProjectCheck: true })).body.id;
    await a.rest('POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'reader', displayName: 'Reader' });
    const partner = (await a.rest('POST', '/v2/organizations', { name: 'Twin partner' })).body.organizationId;
    const created = await a.rest('POST', '/v2/users/human', {
      username: 'twin.partner',
      organization: { orgId: partner },
      profile: { givenName: 'T', familyName: 'P' },
      email: { email: 'twin.partner@example.com' },
      password: { password: PASSWORD, changeRequired: false },
    });
    expect(created.status).toBe(200);
    const app = await addApp(a, projectId, {
      redirectUris: [REDIRECT],
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      devMode: true,
    });
    const { grantId } = (await a.rest('POST', `/management/v1/projects/${projectId}/grants`, { grantedOrgId: partner, roleKeys: ['reader'] })).body;
    const tokens = await loginAt(b.url, app, 'twin.partner');
    if (tokens === 'refused') throw new Error('the granted org\'s user was refused');
    const userinfo = async () => (await fetch(`${b.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status;
    expect(await userinfo()).toBe(200);

    expect((await a.rest('DELETE', `/management/v1/projects/${projectId}/grants/${grantId}`)).status).toBe(200);
    expect(await within(async () => (await userinfo()) === 401)).toBeLessThanOrEqual(2000);
    const refreshed = await fetch(`${b.url}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app) },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
    });
    expect(refreshed.status).toBe(400);
    expect(await loginAt(b.url, app, 'twin.partner')).toBe('refused');
  }, 120_000);
});
