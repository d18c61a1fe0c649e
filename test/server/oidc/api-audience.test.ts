// Keyhold's management API as a protected resource (the scope
// urn:keyhold:iam:api:aud), end to end with real clients — openid-client for
// the grants, the login UI over HTTP with a cookie jar — on PGlite and on
// PostgreSQL: only apps an instance administrator allowed may obtain it
// (others: invalid_scope), never without the consent page the first time
// (prompt=none: consent_required), a device sign-in lists every scope in words
// and passes the consent page too, and the token acts with the roles its user
// holds at each call.
import * as oidc from 'openid-client';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config.js';
import { startKeyhold, type RunningKeyhold } from '../../../src/server/start.js';
import { postgresAvailable, tempDir, TEST_MASTER_KEY } from '../../support/databases.js';
import { restReason } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, sendTo, type AppCreated } from '../../support/oidc-login.js';
import { deviceConfirmation, deviceContinue, isConsentPage, signIn, submit } from '../../support/oidc-steps.js';

const API = 'urn:keyhold:iam:api:aud';
const REDIRECT = 'http://127.0.0.1:5199/cb';
const ADMIN_PASSWORD = 'the instance owner signs in 28';
const PLAIN_PASSWORD = 'a user without any role 28';
/** The warning's first sentence as the page's HTML has it. */
const API_WARNING = 'asks to act as you on Keyhold&#39;s management API.';

for (const engine of ['pglite', 'postgres'] as const) {
  describe.skipIf(engine === 'postgres' && !postgresAvailable)(`the API audience on ${engine}`, () => {
    let kh: TestKeyhold;
    let base: string;
    /** The tenant org, its owner's token (a machine user), and an app the owner registered with its own redirect URI. */
    const tenant = {} as { orgId: string; ownerToken: string; projectId: string };
    let plainUserId: string;

    const admin = (method: string, path: string, body?: unknown, orgId?: string) => kh.rest(method, path, body, orgId ? { 'x-service-orgid': orgId } : {});
    const asTenant = (method: string, path: string, body?: unknown) => kh.rest(method, path, body, { authorization: `Bearer ${tenant.ownerToken}` });
    const setAccess = (projectId: string, appId: string, allowed: boolean, token?: string, orgId?: string) =>
      kh.rest('PUT', `/management/v1/projects/${projectId}/apps/${appId}/api_access`, { allowed }, {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(orgId ? { 'x-service-orgid': orgId } : {}),
      });
    const me = (token: string) => kh.rest('GET', '/auth/v1/users/me', undefined, { authorization: `Bearer ${token}` });

    beforeAll(async () => {
      // A one-second device poll interval keeps the device sign-ins fast.
      kh = await startTestKeyhold({ postgres: engine === 'postgres', env: { KEYHOLD_DEVICE_POLL_INTERVAL_SECONDS: '1' } });
      base = `http://localhost:${kh.port}`;
      // The instance owner who signs in: the human admin, with a password of the test's.
      const [adminRow] = await kh.database.sql.query<{ id: string }>({ text: "select id from users where username = 'keyhold-admin'", params: [] });
      expect((await admin('POST', `/v2/users/${adminRow!.id}/password`, { newPassword: { password: ADMIN_PASSWORD, changeRequired: false } })).status).toBe(200);
      const plain = await admin('POST', '/v2/users/human', {
        username: 'plain.user',
        profile: { givenName: 'Plain', familyName: 'User' },
        email: { email: 'plain@example.com' },
        password: { password: PLAIN_PASSWORD, changeRequired: false },
      });
      plainUserId = plain.body.userId;
      // A tenant org whose owner (a machine user with a token) may create apps there.
      tenant.orgId = (await admin('POST', '/v2/organizations', { name: 'Tenant' })).body.organizationId;
      const owner = await admin('POST', '/management/v1/users/machine', { userName: 'tenant.owner', name: 'Tenant owner' }, tenant.orgId);
      expect((await admin('POST', '/management/v1/orgs/me/members', { userId: owner.body.userId, roles: ['ORG_OWNER'] }, tenant.orgId)).status).toBe(200);
      tenant.ownerToken = (await admin('POST', `/management/v1/users/${owner.body.userId}/pats`, {}, tenant.orgId)).body.token;
      tenant.projectId = (await asTenant('POST', '/management/v1/projects', { name: 'Tenant tools' })).body.id;
    }, 90_000);
    afterAll(async () => kh?.close());

    /** An app of the tenant's project, registered by the tenant's owner (a public app with PKCE: the owner's backend redeems the code). */
    async function tenantApp(body: Record<string, unknown> = {}): Promise<AppCreated & { config: oidc.Configuration }> {
      const res = await asTenant('POST', `/management/v1/projects/${tenant.projectId}/apps/oidc`, {
        name: `tenant-app-${Math.random().toString(36).slice(2)}`,
        redirectUris: [REDIRECT],
        appType: 'OIDC_APP_TYPE_USER_AGENT',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
        devMode: true,
        ...body,
      });
      expect(res.status).toBe(200);
      const config = await oidc.discovery(new URL(base), res.body.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
      return { appId: res.body.appId, clientId: res.body.clientId, config };
    }

    async function authorizeUrl(config: oidc.Configuration, scope: string, extra: Record<string, string> = {}) {
      const verifier = oidc.randomPKCECodeVerifier();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        ...extra,
      });
      return { url, verifier };
    }

    it('an app not allowed: invalid_scope for the API scope — with or without a session, silently or not, and at the device endpoint', async () => {
      const app = await tenantApp({ grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_DEVICE_CODE'] });
      expect((await admin('GET', `/management/v1/projects/${tenant.projectId}/apps/${app.appId}`, undefined, tenant.orgId)).body.app.apiAccessAllowed).toBeFalsy();
      const b = browser(base);
      // No session: refused before any login page.
      const fresh = await b.follow((await authorizeUrl(app.config, `openid ${API}`)).url);
      expect(fresh.left?.origin).toBe(new URL(REDIRECT).origin);
      expect([fresh.left?.searchParams.get('error'), fresh.left?.searchParams.has('code')]).toEqual(['invalid_scope', false]);
      // The instance owner signed in (here through the console's app, whose consent they gave): still refused, with and without prompt=none.
      const consoleConfig = await oidc.discovery(new URL(base), 'keyhold-console', undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
      const consoleLogin = oidc.buildAuthorizationUrl(consoleConfig, {
        redirect_uri: `${base}/console/`,
        scope: `openid ${API}`,
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      });
      const atConsent = await signIn(b, consoleLogin, 'keyhold-admin', ADMIN_PASSWORD);
      expect(isConsentPage(atConsent)).toBe(true);
      expect((await submit(b, atConsent, 'consent', { decision: 'allow' })).left?.searchParams.has('code')).toBe(true);
      for (const extra of [{ prompt: 'none' }, {}] as Record<string, string>[]) {
        const { url, verifier } = await authorizeUrl(app.config, `openid profile ${API}`, extra);
        const back = await b.follow(url);
        expect([back.left?.searchParams.get('error'), back.left?.searchParams.get('scope')]).toEqual(['invalid_scope', API]);
        // Had it answered a code, the tenant's backend would hold the instance owner's token here.
        await expect(oidc.authorizationCodeGrant(app.config, back.left!, { pkceCodeVerifier: verifier })).rejects.toMatchObject({ error: 'invalid_scope' });
      }
      // Its own scopes still work, and that token is not one for the API.
      const own = await authorizeUrl(app.config, 'openid profile', { prompt: 'none' });
      const ownBack = await b.follow(own.url);
      const tokens = await oidc.authorizationCodeGrant(app.config, ownBack.left!, { pkceCodeVerifier: own.verifier });
      expect((await me(tokens.access_token)).status).toBe(401);
      // The device authorization endpoint refuses it the same way.
      await expect(oidc.initiateDeviceAuthorization(app.config, { scope: `openid ${API}` })).rejects.toMatchObject({ error: 'invalid_scope' });
      expect((await oidc.initiateDeviceAuthorization(app.config, { scope: 'openid' })).user_code).toBeTruthy();
    });

    it('only the instance owner allows an app: not its org owner (who made it); the setting is shown and audited', async () => {
      const app = await tenantApp();
      const path = `/management/v1/projects/${tenant.projectId}/apps/${app.appId}`;
      const refused = await setAccess(tenant.projectId, app.appId, true, tenant.ownerToken);
      expect([refused.status, restReason(refused.body)]).toEqual([403, 'PERMISSION_DENIED']);
      expect((await asTenant('GET', path)).body.app.apiAccessAllowed).toBeFalsy();
      // Not a field of the app's configuration either: AddOIDCApp and UpdateOIDCAppConfig refuse it by name.
      const sneaked = await asTenant('PUT', `${path}/oidc_config`, { redirectUris: [REDIRECT], apiAccessAllowed: true });
      expect([sneaked.status, JSON.stringify(sneaked.body)]).toEqual([400, expect.stringContaining('apiAccessAllowed')]);
      const added = await asTenant('POST', `/management/v1/projects/${tenant.projectId}/apps/oidc`, { name: 'sneaky', redirectUris: [REDIRECT], apiAccessAllowed: true });
      expect(added.status).toBe(400);
      // The instance owner, in the tenant's org context.
      expect((await setAccess(tenant.projectId, app.appId, true, undefined, tenant.orgId)).status).toBe(200);
      expect((await asTenant('GET', path)).body.app.apiAccessAllowed).toBe(true);
      const listed = await asTenant('POST', `/management/v1/projects/${tenant.projectId}/apps/_search`, {});
      expect(listed.body.result.find((a: any) => a.id === app.appId).apiAccessAllowed).toBe(true);
      const events = await admin('POST', '/admin/v1/events/_search', { aggregateId: app.appId, eventTypes: ['app.api.access.changed'] });
      expect(events.body.events.map((e: any) => e.payload)).toEqual([{ allowed: true }]);
      // Absent means false: the safe value.
      expect((await kh.rest('PUT', `${path}/api_access`, {}, { 'x-service-orgid': tenant.orgId })).status).toBe(200);
      expect((await asTenant('GET', path)).body.app.apiAccessAllowed).toBeFalsy();
      // An app that does not exist: 404, not a 403 that would tell the instance owner nothing.
      const missing = await setAccess(tenant.projectId, 'no-such-app', true, undefined, tenant.orgId);
      expect([missing.status, restReason(missing.body)]).toEqual([404, 'APP_NOT_FOUND']);
    });

    it('an allowed app: the consent page first, in plain words (en, de); prompt=none without it is consent_required; after it, a code', async () => {
      const app = await tenantApp();
      expect((await setAccess(tenant.projectId, app.appId, true, undefined, tenant.orgId)).status).toBe(200);
      const b = browser(base);
      const german = browser(base, { 'accept-language': 'de-DE' });
      // Signed in elsewhere (a first-party app of the instance: consent for it is implicit) …
      const other = await addApp(kh, (await admin('POST', '/management/v1/projects', { name: 'Intranet' })).body.id, {
        redirectUris: [REDIRECT],
        appType: 'OIDC_APP_TYPE_USER_AGENT',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
        devMode: true,
      });
      const otherConfig = await oidc.discovery(new URL(base), other.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
      for (const who of [b, german]) expect((await signIn(who, (await authorizeUrl(otherConfig, 'openid')).url, 'plain.user', PLAIN_PASSWORD)).left?.searchParams.has('code')).toBe(true);
      // … a silent request of the API scope is refused: no earlier consent.
      const silent = await b.follow((await authorizeUrl(app.config, `openid ${API}`, { prompt: 'none' })).url);
      expect([silent.left?.searchParams.get('error'), silent.left?.searchParams.has('code')]).toEqual(['consent_required', false]);
      // Without prompt=none: the consent page, naming the app and what it may do.
      const first = await authorizeUrl(app.config, `openid profile ${API}`);
      const page = await b.follow(first.url);
      expect(isConsentPage(page)).toBe(true);
      const appName = (await asTenant('GET', `/management/v1/projects/${tenant.projectId}/apps/${app.appId}`)).body.app.name;
      expect(page.html).toContain(`${appName} ${API_WARNING}`);
      expect(page.html).toContain('read your name, username and language');
      expect(page.html).toContain('act as you on Keyhold&#39;s management API, with every role you hold');
      const de = await german.follow((await authorizeUrl(app.config, `openid ${API}`)).url);
      expect(de.html).toContain(`${appName} möchte in deinem Namen die Management-API von Keyhold nutzen.`);
      expect(de.html).toContain('<html lang="de">');
      // Allow: a code, and the token acts as the user at the API.
      const back = await submit(b, page, 'consent', { decision: 'allow' });
      const tokens = await oidc.authorizationCodeGrant(app.config, back.left!, { pkceCodeVerifier: first.verifier });
      const res = await me(tokens.access_token);
      expect([res.status, res.body.user?.userId]).toEqual([200, plainUserId]);
      // With that consent in the session, prompt=none answers a code.
      const again = await authorizeUrl(app.config, `openid ${API}`, { prompt: 'none' });
      const code = await b.follow(again.url);
      expect(code.left?.searchParams.has('code')).toBe(true);
      expect((await me((await oidc.authorizationCodeGrant(app.config, code.left!, { pkceCodeVerifier: again.verifier })).access_token)).status).toBe(200);
      // A new sign-in session asks again.
      const later = browser(base);
      const asked = await signIn(later, (await authorizeUrl(app.config, `openid ${API}`)).url, 'plain.user', PLAIN_PASSWORD);
      expect(isConsentPage(asked)).toBe(true);
    });

    it('an allowed app is the instance owner\'s to re-point: its org owner may no longer change its name, configuration, secret or keys', async () => {
      const apps = {
        basic: await tenantApp({ appType: 'OIDC_APP_TYPE_WEB', authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC' }),
        keyed: await tenantApp({ appType: 'OIDC_APP_TYPE_WEB', authMethodType: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' }),
      };
      const writes = (appId: string, type: 'basic' | 'keyed'): [string, string, unknown][] => {
        const path = `/management/v1/projects/${tenant.projectId}/apps/${appId}`;
        const method = type === 'basic' ? 'OIDC_AUTH_METHOD_TYPE_BASIC' : 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT';
        return [
          ['PUT', `${path}/oidc_config`, { redirectUris: [REDIRECT, 'https://elsewhere.example/cb'], authMethodType: method }],
          ['PUT', path, { name: `Keyhold Console ${type}` }],
          type === 'basic' ? ['POST', `${path}/oidc_config/_generate_client_secret`, {}] : ['POST', `${path}/keys`, { type: 'KEY_TYPE_JSON' }],
        ];
      };
      const outcomes = async (token: string | undefined, orgId?: string) => {
        const got: string[] = [];
        for (const [type, app] of Object.entries(apps) as ['basic' | 'keyed', AppCreated][]) {
          for (const [method, path, body] of writes(app.appId, type)) {
            const res = await kh.rest(method, path, body, { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(orgId ? { 'x-service-orgid': orgId } : {}) });
            got.push(res.status === 200 ? 'ok' : `${res.status} ${restReason(res.body)}`);
          }
        }
        return got;
      };
      // Not allowed: the org owner's, as any app of its org.
      expect(await outcomes(tenant.ownerToken)).toEqual(Array(6).fill('ok'));
      for (const app of Object.values(apps)) await setAccess(tenant.projectId, app.appId, true, undefined, tenant.orgId);
      // Allowed: whoever re-points it takes its users' tokens — the instance owner's alone.
      expect(await outcomes(tenant.ownerToken)).toEqual(Array(6).fill('403 APP_API_ACCESS_PROTECTED'));
      expect(await outcomes(undefined, tenant.orgId)).toEqual(Array(6).fill('ok'));
      // Taking access away stays the org owner's.
      expect((await asTenant('POST', `/management/v1/projects/${tenant.projectId}/apps/${apps.basic.appId}/_deactivate`, {})).status).toBe(200);
      expect((await asTenant('DELETE', `/management/v1/projects/${tenant.projectId}/apps/${apps.keyed.appId}`)).status).toBe(200);
    });

    it('the console\'s app: an org owner of its org cannot add a redirect URI of its own to receive the signed-in instance owner\'s silent code', async () => {
      const [defaultOrg] = await kh.database.sql.query<{ org_id: string }>({ text: "select org_id from apps where client_id = 'keyhold-console'", params: [] });
      const orgId = defaultOrg!.org_id;
      const owner = (await admin('POST', '/management/v1/users/machine', { userName: 'console.org.owner', name: 'Owner of the first org' }, orgId)).body.userId;
      await admin('POST', '/management/v1/orgs/me/members', { userId: owner, roles: ['ORG_OWNER'] }, orgId);
      const ownerToken = (await admin('POST', `/management/v1/users/${owner}/pats`, {}, orgId)).body.token;
      // The instance owner signs in to the console (and allows it, as every sign-in does).
      const b = browser(base);
      const consoleConfig = await oidc.discovery(new URL(base), 'keyhold-console', undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
      const login = oidc.buildAuthorizationUrl(consoleConfig, {
        redirect_uri: `${base}/console/`,
        scope: `openid ${API}`,
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      });
      expect((await submit(b, await signIn(b, login, 'keyhold-admin', ADMIN_PASSWORD), 'consent', { decision: 'allow' })).left?.searchParams.has('code')).toBe(true);
      // The org owner adds its own redirect URI to the console's app …
      const added = await kh.rest(
        'PUT',
        '/management/v1/projects/keyhold/apps/keyhold-console/oidc_config',
        { redirectUris: [`${base}/console/`, REDIRECT], postLogoutRedirectUris: [`${base}/console/`], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE' },
        { authorization: `Bearer ${ownerToken}` },
      );
      // … and the instance owner opens its link: no code leaves for it.
      const verifier = oidc.randomPKCECodeVerifier();
      const link = oidc.buildAuthorizationUrl(consoleConfig, {
        redirect_uri: REDIRECT,
        scope: `openid ${API}`,
        prompt: 'none',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const step = await b.follow(link);
      const outcome = step.left?.searchParams.has('code')
        ? `a code that redeems to roles ${JSON.stringify((await me((await oidc.authorizationCodeGrant(consoleConfig, step.left, { pkceCodeVerifier: verifier })).access_token)).body.roles)}`
        : step.left
          ? `error=${step.left.searchParams.get('error')}`
          : 'an error page at Keyhold';
      expect([added.status, added.status === 200 ? 'written' : restReason(added.body), outcome]).toEqual([403, 'APP_API_ACCESS_PROTECTED', 'an error page at Keyhold']);
    });

    it('a denial on the consent page answers access_denied and grants nothing', async () => {
      const app = await tenantApp();
      await setAccess(tenant.projectId, app.appId, true, undefined, tenant.orgId);
      const b = browser(base);
      const page = await signIn(b, (await authorizeUrl(app.config, `openid ${API}`)).url, 'plain.user', PLAIN_PASSWORD);
      expect(isConsentPage(page)).toBe(true);
      const denied = await submit(b, page, 'consent', { decision: 'deny' });
      expect(denied.left?.searchParams.get('error')).toBe('access_denied');
      // Still nothing to answer silently.
      const silent = await b.follow((await authorizeUrl(app.config, `openid ${API}`, { prompt: 'none' })).url);
      expect(silent.left?.searchParams.get('error')).toBe('consent_required');
    });

    it('a refusal ends the tokens the app holds — access and refreshed — and further requests are invalid_scope; allowed again, they work', async () => {
      const app = await tenantApp({ grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'] });
      await setAccess(tenant.projectId, app.appId, true, undefined, tenant.orgId);
      const b = browser(base);
      const { url, verifier } = await authorizeUrl(app.config, `openid offline_access ${API}`, { prompt: 'consent' });
      const page = await signIn(b, url, 'plain.user', PLAIN_PASSWORD);
      const back = await submit(b, page, 'consent', { decision: 'allow' });
      const tokens = await oidc.authorizationCodeGrant(app.config, back.left!, { pkceCodeVerifier: verifier });
      expect(tokens.refresh_token).toBeTruthy();
      expect((await me(tokens.access_token)).status).toBe(200);

      expect((await setAccess(tenant.projectId, app.appId, false, undefined, tenant.orgId)).status).toBe(200);
      expect((await me(tokens.access_token)).status).toBe(401);
      const refreshed = await oidc.refreshTokenGrant(app.config, tokens.refresh_token!);
      expect((await me(refreshed.access_token)).status).toBe(401);
      const asked = await b.follow((await authorizeUrl(app.config, `openid ${API}`)).url);
      expect(asked.left?.searchParams.get('error')).toBe('invalid_scope');

      await setAccess(tenant.projectId, app.appId, true, undefined, tenant.orgId);
      expect((await me(refreshed.access_token)).status).toBe(200);
    });

    it('the token acts with the roles its user holds at each call, never more', async () => {
      const app = await tenantApp();
      await setAccess(tenant.projectId, app.appId, true, undefined, tenant.orgId);
      const b = browser(base);
      const { url, verifier } = await authorizeUrl(app.config, `openid ${API}`);
      const back = await submit(b, await signIn(b, url, 'plain.user', PLAIN_PASSWORD), 'consent', { decision: 'allow' });
      const token = (await oidc.authorizationCodeGrant(app.config, back.left!, { pkceCodeVerifier: verifier })).access_token;
      const asUser = (method: string, path: string, body?: unknown) => kh.rest(method, path, body, { authorization: `Bearer ${token}` });
      expect((await me(token)).body.roles ?? []).toEqual([]);
      expect((await asUser('POST', '/management/v1/projects', { name: 'Not yet' })).status).toBe(403);
      // Made ORG_OWNER of its org: the same token may now, without a new sign-in …
      const { organizationId } = (await me(token)).body;
      await admin('POST', '/management/v1/orgs/me/members', { userId: plainUserId, roles: ['ORG_OWNER'] }, organizationId);
      expect((await me(token)).body.roles).toEqual([`ORG_OWNER@org:${organizationId}`]);
      const project = await asUser('POST', '/management/v1/projects', { name: 'Now' });
      expect(project.status).toBe(200);
      // … but nothing an ORG_OWNER may not: a new org, or letting its own new app have the API.
      expect((await asUser('POST', '/v2/organizations', { name: 'Not mine' })).status).toBe(403);
      const own = await asUser('POST', `/management/v1/projects/${project.body.id}/apps/oidc`, { name: 'Own', redirectUris: [REDIRECT] });
      expect(own.status).toBe(200);
      expect((await asUser('PUT', `/management/v1/projects/${project.body.id}/apps/${own.body.appId}/api_access`, { allowed: true })).status).toBe(403);
      // Down to ORG_USER_MANAGER: the next call is refused again.
      await admin('POST', '/management/v1/orgs/me/members', { userId: plainUserId, roles: ['ORG_USER_MANAGER'] }, organizationId);
      expect((await asUser('POST', '/management/v1/projects', { name: 'No more' })).status).toBe(403);
    });

    describe('device sign-in', () => {
      it('the confirmation lists every scope in words; the consent page follows the login, every time; the device acts as the user', async () => {
        const device = await tenantApp({
          appType: 'OIDC_APP_TYPE_NATIVE',
          redirectUris: [],
          devMode: false,
          grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'],
        });
        await setAccess(tenant.projectId, device.appId, true, undefined, tenant.orgId);
        const b = browser(base);
        for (let round = 0; round < 2; round++) {
          const started = await oidc.initiateDeviceAuthorization(device.config, { scope: `openid profile ${API}` });
          const confirm = await deviceConfirmation(b, started.verification_uri_complete!);
          expect(confirm.html).toContain(API_WARNING);
          for (const words of ['know who you are (your user id)', 'read your name, username and language', 'act as you on Keyhold&#39;s management API, with every role you hold']) {
            expect(confirm.html).toContain(words);
          }
          let step = await deviceContinue(b, confirm);
          if (round === 0) {
            step = await submit(b, step, 'username', { username: 'plain.user' });
            step = await submit(b, step, 'password', { username: 'plain.user', password: PLAIN_PASSWORD });
          }
          // The second time the session is signed in already: still the consent page, not a silent grant.
          expect(isConsentPage(step)).toBe(true);
          expect(step.html).toContain(API_WARNING);
          const done = await submit(b, step, 'consent', { decision: 'allow' });
          expect(done.html).toContain('Your device is signed in');
          const tokens = await oidc.pollDeviceAuthorizationGrant(device.config, started);
          expect((await me(tokens.access_token)).body.user.userId).toBe(plainUserId);
        }
      }, 60_000);

      it('without the API scope the confirmation has no warning, and no consent page follows', async () => {
        const device = await tenantApp({ appType: 'OIDC_APP_TYPE_NATIVE', redirectUris: [], devMode: false, grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'] });
        const b = browser(base);
        const started = await oidc.initiateDeviceAuthorization(device.config, { scope: 'openid email' });
        const confirm = await deviceConfirmation(b, started.verification_uri_complete!);
        expect(confirm.html).not.toContain(API_WARNING);
        expect(confirm.html).toContain('read your e-mail address and whether it is verified');
        let step = await deviceContinue(b, confirm);
        step = await submit(b, step, 'username', { username: 'plain.user' });
        step = await submit(b, step, 'password', { username: 'plain.user', password: PLAIN_PASSWORD });
        expect(step.html).toContain('Your device is signed in');
        expect((await me((await oidc.pollDeviceAuthorizationGrant(device.config, started)).access_token)).status).toBe(401);
      }, 60_000);
    });
  });
}

describe.skipIf(!postgresAvailable)('the API audience on two processes sharing one PostgreSQL', () => {
  const ISSUER = 'http://keyhold.test';
  let a: TestKeyhold;
  let b: RunningKeyhold;

  beforeAll(async () => {
    a = await startTestKeyhold({ postgres: true, env: { KEYHOLD_ISSUER: ISSUER } });
    const config = loadConfig({
      KEYHOLD_PORT: '0',
      KEYHOLD_DATA_DIR: await tempDir('keyhold-b-'),
      DATABASE_URL: a.config.databaseUrl!,
      KEYHOLD_MASTERKEY: TEST_MASTER_KEY,
      KEYHOLD_ISSUER: ISSUER,
      KEYHOLD_LOG_LEVEL: 'silent',
    });
    b = await startKeyhold(config, pino({ level: 'silent' }));
  }, 90_000);
  afterAll(async () => {
    await b?.stop();
    await a?.close();
  });

  it('a refusal written through one process ends the tokens at the other within 2 s, and its authorization asks invalid_scope; allowed again, they work', async () => {
    const baseA = `http://localhost:${a.port}`;
    const baseB = `http://localhost:${b.port}`;
    const projectId = (await a.rest('POST', '/management/v1/projects', { name: 'Two processes' })).body.id;
    const created = await a.rest('POST', '/v2/users/human', {
      username: 'twin.api',
      profile: { givenName: 'Twin', familyName: 'Api' },
      email: { email: 'twin@example.com' },
      password: { password: PLAIN_PASSWORD, changeRequired: false },
    });
    expect(created.status).toBe(200);
    const app = await addApp(a, projectId, { redirectUris: [REDIRECT], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true });
    const put = (allowed: boolean) => a.rest('PUT', `/management/v1/projects/${projectId}/apps/${app.appId}/api_access`, { allowed });
    expect((await put(true)).status).toBe(200);
    // Signed in and consented on A; the token used on B.
    const verifier = oidc.randomPKCECodeVerifier();
    const authorize = new URL(`${ISSUER}/oauth/v2/authorize`);
    authorize.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: `openid ${API}`,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    // The login's redirects name the issuer; this browser sends them to process A.
    const browserA = browser(ISSUER, {}, sendTo(baseA));
    const back = await submit(browserA, await signIn(browserA, authorize, 'twin.api', PLAIN_PASSWORD), 'consent', { decision: 'allow' });
    const token = await fetch(`${baseA}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: app.clientId, code: back.left!.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier }),
    });
    const accessToken = ((await token.json()) as { access_token: string }).access_token;
    const meOnB = async () => (await fetch(`${baseB}/auth/v1/users/me`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
    const authorizeOnB = async () => {
      const res = await fetch(`${baseB}/oauth/v2/authorize?${authorize.searchParams}`, { redirect: 'manual' });
      return new URL(res.headers.get('location') ?? '', baseB).searchParams.get('error');
    };
    expect([await meOnB(), await authorizeOnB()]).toEqual([200, null]);
    /** Polls `holds` every 50 ms: ms until it holds, or Infinity after 3 s. */
    const within = async (holds: () => Promise<boolean>) => {
      const from = Date.now();
      while (Date.now() - from < 3000) {
        if (await holds()) return Date.now() - from;
        await new Promise((r) => setTimeout(r, 50));
      }
      return Infinity;
    };
    expect((await put(false)).status).toBe(200);
    // The writing process at once; the other within its client cache's second.
    expect((await fetch(`${baseA}/auth/v1/users/me`, { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(401);
    expect(await within(async () => (await meOnB()) === 401)).toBeLessThanOrEqual(2000);
    expect(await within(async () => (await authorizeOnB()) === 'invalid_scope')).toBeLessThanOrEqual(2000);
    expect((await put(true)).status).toBe(200);
    expect(await within(async () => (await meOnB()) === 200)).toBeLessThanOrEqual(2000);
  }, 60_000);
});
