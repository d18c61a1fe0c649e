// Identity providers and links over the API, REST and gRPC, in ZITADEL's
// shapes: the instance's providers on the admin API, an organization's own on
// the management API (in the org the call acts in); the client secret written
// and never answered (nor in the audit log); the redirect URI to register
// answered from the issuer; settings refused by field; an OpenID Connect
// provider updated only by its own call; another org's provider not found;
// a provider added here offered at a sign-in for its org; and the
// links of a user (AddIDPLink, ListIDPLinks, RemoveIDPLink): one identity, one
// user.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminService } from '../../../gen/keyhold/admin/v1/admin_pb.js';
import { IDPOwnerType, ProviderType } from '../../../gen/keyhold/idp/v1/idp_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { restFields, rpcError } from '../../support/errors.js';
import { addOrg, inOrg } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { humanUser, REDIRECT, startApp, stopApp } from '../../support/key-login.js';
import { browser } from '../../support/oidc-login.js';

const SECRET = 'upstream-client-secret-do-not-show';
const OIDC = { name: 'Company SSO', issuer: 'https://sso.example.com', clientId: 'keyhold', clientSecret: SECRET, scopes: ['openid', 'profile', 'email'], providerOptions: { isCreationAllowed: true, isAutoCreation: true } };
const GITHUB = {
  name: 'GitHub',
  clientId: 'gh-client',
  clientSecret: SECRET,
  authorizationEndpoint: 'https://github.com/login/oauth/authorize',
  tokenEndpoint: 'https://github.com/login/oauth/access_token',
  userEndpoint: 'https://api.github.com/user',
  scopes: ['read:user', 'user:email'],
  idAttribute: 'id',
  mapping: { email: 'email', preferredUsername: 'login', name: 'name' },
};

describe('identity providers over the API', () => {
  let kh: TestKeyhold;
  let orgB: string;

  beforeAll(async () => {
    [kh] = await Promise.all([startTestKeyhold(), startApp()]);
    orgB = await addOrg(kh, 'Org B');
  }, 60_000);
  afterAll(async () => {
    await kh?.close();
    await stopApp();
  });

  it('the presets fill in the endpoints: Google, Entra ID with its tenant, GitHub and GitLab over REST; each updated by its own call only; a tenant that is no GUID refused by name', async () => {
    const google = await kh.rest('POST', '/admin/v1/idps/google', { clientId: 'g-client', clientSecret: SECRET });
    expect(google.status).toBe(200);
    expect(google.body.callbackUrl).toBe(`${kh.issuer}/ui/login/idp/${google.body.id}/callback`);
    expect((await kh.rest('GET', `/admin/v1/idps/templates/${google.body.id}`)).body.idp).toMatchObject({ name: 'Google', type: 'PROVIDER_TYPE_OIDC', config: { oidc: { issuer: 'https://accounts.google.com', clientId: 'g-client', scopes: ['openid', 'profile', 'email'] } } });

    const tenant = '72f988bf-86f1-41af-91ab-2d7cd011db47';
    const entra = await kh.rest('POST', '/admin/v1/idps/azure', { name: 'Contoso', clientId: 'e-client', clientSecret: SECRET, tenant: { tenantId: tenant }, emailVerified: true });
    expect(entra.status).toBe(200);
    expect((await kh.rest('GET', `/admin/v1/idps/templates/${entra.body.id}`)).body.idp).toMatchObject({ name: 'Contoso', config: { oidc: { issuer: `https://login.microsoftonline.com/${tenant}/v2.0` }, trust: { emailVerified: true } } });
    const consumers = await kh.rest('POST', '/admin/v1/idps/azure', { clientId: 'e-client', clientSecret: SECRET, tenant: { tenantType: 'AZURE_AD_TENANT_TYPE_CONSUMERS' } });
    expect((await kh.rest('GET', `/admin/v1/idps/templates/${consumers.body.id}`)).body.idp.config.oidc.issuer).toBe('https://login.microsoftonline.com/consumers/v2.0');
    const notGuid = await kh.rest('POST', '/admin/v1/idps/azure', { clientId: 'e-client', clientSecret: SECRET, tenant: { tenantId: 'contoso.example' } });
    expect([notGuid.status, restFields(notGuid.body)]).toEqual([400, ['tenant.tenantId']]);

    const gitHub = await kh.rest('POST', '/admin/v1/idps/github', { clientId: 'gh-client', clientSecret: SECRET });
    expect((await kh.rest('GET', `/admin/v1/idps/templates/${gitHub.body.id}`)).body.idp).toMatchObject({ name: 'GitHub', type: 'PROVIDER_TYPE_OAUTH', config: { oauth: { authorizationEndpoint: 'https://github.com/login/oauth/authorize', userEndpoint: 'https://api.github.com/user', idAttribute: 'id' } } });
    const gitLab = await kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(orgB)).addGitLabProvider({ clientId: 'gl-client', clientSecret: SECRET });
    expect((await kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(orgB)).getProviderByID({ id: gitLab.id })).idp?.config?.config).toMatchObject({ case: 'oidc', value: { issuer: 'https://gitlab.com' } });

    // Its own call changes it; another preset's, or the generic one, is refused naming the id.
    expect((await kh.rest('PUT', `/admin/v1/idps/google/${google.body.id}`, { name: 'Google Workspace', clientId: 'g-client-2' })).status).toBe(200);
    expect((await kh.rest('GET', `/admin/v1/idps/templates/${google.body.id}`)).body.idp).toMatchObject({ name: 'Google Workspace', config: { oidc: { clientId: 'g-client-2' }, hasClientSecret: true } });
    for (const [path, body] of [[`/admin/v1/idps/gitlab/${google.body.id}`, { clientId: 'x' }], [`/admin/v1/idps/generic_oidc/${google.body.id}`, OIDC]] as const) {
      const refused = await kh.rest('PUT', path, body);
      expect([refused.status, restFields(refused.body)]).toEqual([400, ['id']]);
    }
    // The instance's presets would be every sign-in's buttons in the tests below.
    for (const id of [google.body.id, entra.body.id, consumers.body.id, gitHub.body.id]) expect((await kh.rest('DELETE', `/admin/v1/idps/${id}`)).status).toBe(200);
  });

  it('the instance\u2019s OpenID Connect provider over REST: added, read without its secret, listed, updated, deleted', async () => {
    const added = await kh.rest('POST', '/admin/v1/idps/generic_oidc', OIDC);
    expect(added.status).toBe(200);
    const id = added.body.id as string;
    expect(added.body.callbackUrl).toBe(`${kh.issuer}/ui/login/idp/${id}/callback`);
    const got = await kh.rest('GET', `/admin/v1/idps/templates/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.idp).toMatchObject({
      id,
      name: 'Company SSO',
      owner: 'IDP_OWNER_TYPE_SYSTEM',
      type: 'PROVIDER_TYPE_OIDC',
      config: { oidc: { issuer: 'https://sso.example.com', clientId: 'keyhold', scopes: ['openid', 'profile', 'email'] }, options: { isCreationAllowed: true, isAutoCreation: true }, hasClientSecret: true },
    });
    expect(JSON.stringify(got.body)).not.toContain(SECRET);
    const listed = await kh.rest('POST', '/admin/v1/idps/templates/_search', {});
    expect(listed.body.result.map((p: { id: string }) => p.id)).toContain(id);
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);
    // An update without a secret keeps it; the settings are replaced as a whole.
    expect((await kh.rest('PUT', `/admin/v1/idps/generic_oidc/${id}`, { ...OIDC, clientSecret: '', name: 'Company SSO (new)' })).status).toBe(200);
    expect((await kh.rest('GET', `/admin/v1/idps/templates/${id}`)).body.idp).toMatchObject({ name: 'Company SSO (new)', config: { options: { isCreationAllowed: true }, hasClientSecret: true } });
    // An OpenID Connect provider is not updated by the OAuth call.
    const wrongKind = await kh.rest('PUT', `/admin/v1/idps/generic_oauth/${id}`, GITHUB);
    expect(wrongKind.status).toBe(400);
    expect(JSON.stringify(wrongKind.body)).toContain('"field":"id"');
    // The secret is nowhere in the audit log.
    const events = await kh.rest('POST', '/admin/v1/events/_search', { aggregateTypes: ['idp'], limit: 100 });
    expect(events.status).toBe(200);
    expect(JSON.stringify(events.body)).not.toContain(SECRET);
    expect((await kh.rest('DELETE', `/admin/v1/idps/${id}`)).status).toBe(200);
    expect((await kh.rest('GET', `/admin/v1/idps/templates/${id}`)).status).toBe(404);
  });

  it('refuses settings by field: no name, an http issuer, an OAuth provider without its id field, auto creation without creation', async () => {
    const refused = async (path: string, body: Record<string, unknown>) => {
      const res = await kh.rest('POST', path, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      return JSON.stringify(res.body);
    };
    expect(await refused('/admin/v1/idps/generic_oidc', { ...OIDC, name: '' })).toContain('"field":"name"');
    expect(await refused('/admin/v1/idps/generic_oidc', { ...OIDC, issuer: 'http://sso.example.com' })).toContain('"field":"issuer"');
    expect(await refused('/admin/v1/idps/generic_oidc', { ...OIDC, clientSecret: '' })).toContain('"field":"clientSecret"');
    expect(await refused('/admin/v1/idps/generic_oauth', { ...GITHUB, idAttribute: '' })).toContain('"field":"idAttribute"');
    expect(await refused('/admin/v1/idps/generic_oidc', { ...OIDC, providerOptions: { isAutoCreation: true } })).toContain('providerOptions.isAutoCreation');
    // NUL and other control characters, and overlong field names: 400 by field, never a 500.
    expect(await refused('/admin/v1/idps/generic_oauth', { ...GITHUB, idAttribute: 'id\u0000x' })).toContain('"field":"idAttribute"');
    expect(await refused('/admin/v1/idps/generic_oauth', { ...GITHUB, mapping: { email: 'e\u0000' } })).toContain('"field":"mapping.email"');
    expect(await refused('/admin/v1/idps/generic_oauth', { ...GITHUB, idAttribute: 'x'.repeat(500_000) })).toContain('"field":"idAttribute"');
    expect(await refused('/admin/v1/idps/generic_oidc', { ...OIDC, issuer: 'https://sso.example.com/\u0000' })).toContain('"field":"issuer"');
    expect(await refused('/admin/v1/idps/generic_oauth', { ...GITHUB, userEndpoint: 'https://api.github.com/user?\u0000' })).toContain('"field":"userEndpoint"');
    expect(await refused('/admin/v1/idps/generic_oidc', { ...OIDC, issuer: 'https://sso.exa\nmple.com' })).toContain('"field":"issuer"');
    expect((await kh.rest('DELETE', '/admin/v1/idps/%00')).status).toBe(400);
    expect((await kh.rest('PUT', '/admin/v1/idps/generic_oidc/%00', OIDC)).status).toBe(400);
    expect((await kh.rest('POST', '/admin/v1/idps/templates/_search', {})).body.result ?? []).not.toContainEqual(expect.objectContaining({ name: '' }));
  });

  it('an org\u2019s OAuth provider over gRPC in the org the call acts in; another org sees none of it; its button at sign-ins for that org only (its apps, or its org scope)', async () => {
    const inB = kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(orgB));
    const { id, callbackUrl } = await inB.addGenericOAuthProvider(GITHUB);
    expect(callbackUrl).toBe(`${kh.issuer}/ui/login/idp/${id}/callback`);
    const { idp } = await inB.getProviderByID({ id });
    expect(idp?.owner).toBe(IDPOwnerType.IDP_OWNER_TYPE_ORG);
    expect(idp?.type).toBe(ProviderType.OAUTH);
    expect(idp?.details?.resourceOwner).toBe(orgB);
    expect(idp?.config?.config.case === 'oauth' && idp.config.config.value).toMatchObject({ userEndpoint: 'https://api.github.com/user', idAttribute: 'id', mapping: { email: 'email', preferredUsername: 'login', name: 'name' } });
    // The instance's default org acts elsewhere: not found there, and not in its list nor the instance's.
    const elsewhere = kh.client(ManagementService, 'grpc', kh.adminToken);
    expect((await rpcError(elsewhere.getProviderByID({ id }))).code).toBe(Code.NotFound);
    expect((await rpcError(elsewhere.deleteProvider({ id }))).code).toBe(Code.NotFound);
    expect((await elsewhere.listProviders({})).result.map((p) => p.id)).not.toContain(id);
    expect((await kh.client(AdminService, 'grpc', kh.adminToken).listProviders({})).result.map((p) => p.id)).not.toContain(id);
    // A sign-in for org B offers it: an app of B, or an org scope naming B; an app of the default org does not.
    const page = async (scope: string, appOrg: Record<string, string> = inOrg(orgB)) => {
      const projectId = (await kh.rest('POST', '/management/v1/projects', { name: `Offered ${Date.now()}` }, appOrg)).body.id;
      const app = await kh.rest(
        'POST',
        `/management/v1/projects/${projectId}/apps/oidc`,
        { name: `offered-${Date.now()}`, redirectUris: [REDIRECT], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true },
        appOrg,
      );
      const query = new URLSearchParams({ client_id: app.body.clientId, redirect_uri: REDIRECT, response_type: 'code', scope, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
      return (await browser(kh.issuer).follow(new URL(`${kh.issuer}/oauth/v2/authorize?${query}`))).html ?? '';
    };
    expect(await page('openid')).toContain('Continue with GitHub');
    expect(await page(`openid urn:keyhold:iam:org:id:${orgB}`, {})).toContain('Continue with GitHub');
    expect(await page('openid', {})).not.toContain('Continue with GitHub');
  });

  it('links: added by an administrator, listed, one identity for one user only, removed; another org\u2019s administrator does not find the user', async () => {
    const { id: idpId } = await kh.client(AdminService, 'grpc', kh.adminToken).addGenericOIDCProvider({ ...OIDC, name: 'Links SSO' });
    const ada = await humanUser(kh, 'linked');
    const bob = await humanUser(kh, 'other');
    const users = kh.client(UserService, 'grpc', kh.adminToken);
    await users.addIDPLink({ userId: ada.userId, idpLink: { idpId, userId: 'upstream-42', userName: 'ada@sso' } });
    expect((await users.listIDPLinks({ userId: ada.userId })).result).toEqual([expect.objectContaining({ idpId, userId: 'upstream-42' })]);
    // The same identity for another user: refused, nothing changed.
    const taken = await rpcError(users.addIDPLink({ userId: bob.userId, idpLink: { idpId, userId: 'upstream-42' } }));
    expect(taken.code).toBe(Code.AlreadyExists);
    expect((await users.listIDPLinks({ userId: bob.userId })).result).toEqual([]);
    // Over REST, ZITADEL's paths.
    const listed = await kh.rest('POST', `/v2/users/${ada.userId}/links/_search`, {});
    expect(listed.body.result).toEqual([expect.objectContaining({ idpId, userId: 'upstream-42' })]);
    expect((await kh.rest('DELETE', `/v2/users/${ada.userId}/links/${idpId}/upstream-42`)).status).toBe(200);
    expect((await users.listIDPLinks({ userId: ada.userId })).result).toEqual([]);
    expect((await kh.rest('DELETE', `/v2/users/${ada.userId}/links/${idpId}/upstream-42`)).status).toBe(404);
  });

  it('a named subject proves nothing: a user never links itself, and only an instance administrator links an identity at the instance\u2019s provider', async () => {
    const { id: idpId } = await kh.client(AdminService, 'grpc', kh.adminToken).addGenericOIDCProvider({ ...OIDC, name: 'Shared SSO' });
    // A user of org B, and an owner of B (a machine with ORG_OWNER and a token).
    const owner = await humanUser(kh, 'b-user', orgB);
    const mgmtB = kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(orgB));
    // B's owner (through a machine of B with ORG_OWNER) may not claim an identity of the instance's provider for B's user.
    const bAdmin = await mgmtB.addMachineUser({ userName: `b-admin-${Date.now()}`, name: 'B admin' });
    await mgmtB.addOrgMember({ userId: bAdmin.userId, roles: ['ORG_OWNER'] });
    const bAdminToken = (await mgmtB.addPersonalAccessToken({ userId: bAdmin.userId })).token;
    const claimed = await rpcError(kh.client(UserService, 'grpc', bAdminToken).addIDPLink({ userId: owner.userId, idpLink: { idpId, userId: 'victim-public-id' } }));
    expect(claimed.code).toBe(Code.PermissionDenied);
    // The user itself does not link itself by naming a subject.
    const self = await rpcError(kh.client(UserService, 'grpc', bAdminToken).addIDPLink({ userId: bAdmin.userId, idpLink: { idpId, userId: 'my-own-claim' } }));
    expect(self.code).toBe(Code.PermissionDenied);
    // Nobody got the identity.
    expect((await kh.client(UserService, 'grpc', kh.adminToken).listIDPLinks({ userId: owner.userId })).result).toEqual([]);
  });
});
