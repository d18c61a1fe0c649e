// What an org's life does to logins and tokens (DeactivateOrg, ReactivateOrg,
// RemoveOrg): a deactivated org's user cannot log in, to its own org's apps or
// another's; its apps cannot start a login or authenticate; the tokens issued
// before to its users or apps are refused at userinfo, introspection and
// refresh. Reactivated, all work again; removed, all are gone for good. A
// second process on the same PostgreSQL refuses within the caches' bound (1 s).
// Real logins over HTTP, a child Keyhold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import { addOrg, inOrg } from '../../support/identity.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { browser, formAction, formToken, sendTo, type AppCreated } from '../../support/oidc-login.js';
import { twoProcesses, within } from '../../support/two-processes.js';

const PASSWORD = 'orgs end their tokens 7';
/** The password page's answer to a fresh browser for a wrong password, a locked or a deactivated user alike. */
const WRONG = 'The username or the password is wrong.';
const REDIRECT = 'http://localhost:5177/cb';

interface World {
  orgId: string;
  username: string;
  /** An app of the org, and one of the instance's first org (which stays active). */
  own: AppCreated;
  other: AppCreated;
}

const basic = (app: AppCreated) => `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`;

async function addAppIn(kh: TestKeyhold, orgId: string | undefined, name: string): Promise<AppCreated> {
  const headers = orgId ? inOrg(orgId) : {};
  const projectId = (await kh.rest('POST', '/management/v1/projects', { name }, headers)).body.id as string;
  const res = await kh.rest(
    'POST',
    `/management/v1/projects/${projectId}/apps/oidc`,
    {
      name: 'web',
      redirectUris: [REDIRECT],
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      devMode: true,
    },
    headers,
  );
  expect(res.status).toBe(200);
  return { appId: res.body.appId, clientId: res.body.clientId, clientSecret: res.body.clientSecret };
}

/** An org with a user and an app; an app of the first org too. */
async function makeWorld(kh: TestKeyhold, name: string): Promise<World> {
  const orgId = await addOrg(kh, `${name} ${Date.now()}`);
  const username = `${name.toLowerCase()}.${Date.now()}`;
  const user = await kh.rest(
    'POST',
    '/v2/users/human',
    { username, organization: { orgId }, profile: { givenName: 'O', familyName: 'L' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } },
  );
  expect(user.status).toBe(200);
  return { orgId, username, own: await addAppIn(kh, orgId, `${name} own`), other: await addAppIn(kh, undefined, `${name} other`) };
}

type Tokens = { access_token: string; refresh_token: string };

/**
 * A login with `app` at `issuer` (requests sent to `server`): its tokens, 'no access' when the app
 * is told access_denied, 'no login' when none starts, `refused: <the page's error>` when it stops on a page.
 */
async function login(issuer: string, server: string, app: AppCreated, username: string, password = PASSWORD): Promise<Tokens | 'no access' | 'no login' | `refused: ${string}`> {
  const verifier = oidc.randomPKCECodeVerifier();
  const authorize = new URL(`${issuer}/oauth/v2/authorize`);
  authorize.search = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid offline_access',
    prompt: 'consent',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const b = browser(issuer, {}, sendTo(server));
  let step = await b.follow(authorize);
  if (!step.left && !formAction(step.html ?? '', 'username')) return 'no login';
  for (const [name, form] of [
    ['username', { username }],
    ['password', { password }],
    ['consent', { decision: 'allow' }],
  ] as const) {
    if (step.left) break;
    if (name === 'consent' && !formAction(step.html!, 'consent')) break;
    const res = await b.request(new URL(formAction(step.html!, name)!, step.url), { form: { form_token: formToken(step.html!), ...form } });
    const location = res.headers.get('location');
    step = location ? await b.follow(new URL(location, step.url)) : { page: res, html: await res.text(), url: step.url };
  }
  if (!step.left) return `refused: ${/class="error"[^>]*>([^<]*)/.exec(step.html ?? '')?.[1] ?? 'no error shown'}`;
  if (step.left.searchParams.get('error') === 'access_denied') return 'no access';
  const res = await fetch(`${server}/oauth/v2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app) },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: step.left.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier }),
  });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body as Tokens;
}

/** Whether a login with `app` starts: the authorization request reaches the login page. */
async function loginStarts(issuer: string, server: string, app: AppCreated): Promise<boolean> {
  const authorize = new URL(`${issuer}/oauth/v2/authorize`);
  authorize.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' }).toString();
  const step = await browser(issuer, {}, sendTo(server)).follow(authorize);
  return !step.left && formAction(step.html ?? '', 'username') !== undefined;
}

const userinfo = async (server: string, token: string) => (await fetch(`${server}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status;

async function introspected(server: string, app: AppCreated, token: string): Promise<boolean | number> {
  const res = await fetch(`${server}/oauth/v2/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app) },
    body: new URLSearchParams({ token }),
  });
  // A deactivated org's app cannot authenticate to ask at all.
  return res.status === 200 ? ((await res.json()) as { active: boolean }).active : res.status;
}

/** The refresh grant's status (its new tokens are dropped: the refresh token rotates). */
async function refreshed(server: string, app: AppCreated, refreshToken: string): Promise<number> {
  const res = await fetch(`${server}/oauth/v2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app) },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  });
  return res.status;
}

const tokensOf = (t: Tokens | string): Tokens => {
  if (typeof t === 'string') throw new Error(`the login was refused: ${t}`);
  return t;
};

describe('one process', () => {
  let kh: TestKeyhold;
  let base: string;
  beforeAll(async () => {
    kh = await startTestKeyhold();
    base = `http://localhost:${kh.port}`;
  }, 60_000);
  afterAll(async () => kh?.close());

  it('deactivated: no login for its users nor with its apps, their tokens refused; reactivated: all work again', async () => {
    const w = await makeWorld(kh, 'Paused');
    const own = tokensOf(await login(base, base, w.own, w.username));
    const other = tokensOf(await login(base, base, w.other, w.username));
    expect(await userinfo(base, own.access_token)).toBe(200);
    expect(await userinfo(base, other.access_token)).toBe(200);

    expect((await kh.rest('POST', '/management/v1/orgs/me/_deactivate', {}, inOrg(w.orgId))).status).toBe(200);
    // Its app: no login starts, its tokens are refused, it cannot even authenticate.
    expect(await login(base, base, w.own, w.username)).toBe('no login');
    expect(await userinfo(base, own.access_token)).toBe(401);
    expect(await introspected(base, w.own, own.access_token)).toBe(401);
    expect(await refreshed(base, w.own, own.refresh_token)).not.toBe(200);
    // Its user at another org's app: refused at the password step as a deactivated user is (a
    // fresh browser is told no more than for a wrong password), and at userinfo, introspection and refresh.
    expect(await login(base, base, w.other, w.username)).toBe(`refused: ${WRONG}`);
    expect(await userinfo(base, other.access_token)).toBe(401);
    expect(await introspected(base, w.other, other.access_token)).toBe(false);
    const got = await kh.rest('POST', '/v2/organizations/_search', { queries: [{ idQuery: { id: w.orgId } }] });
    expect(got.body.result?.[0]?.state).toBe('ORGANIZATION_STATE_INACTIVE');

    expect((await kh.rest('POST', '/management/v1/orgs/me/_reactivate', {}, inOrg(w.orgId))).status).toBe(200);
    expect(await userinfo(base, other.access_token)).toBe(200);
    expect(await introspected(base, w.other, other.access_token)).toBe(true);
    expect(await refreshed(base, w.other, other.refresh_token)).toBe(200);
    expect(tokensOf(await login(base, base, w.own, w.username)).access_token).toBeTruthy();
  }, 60_000);

  it('deactivated: its users stop at the password step as deactivated users do: no failed attempt recorded, no password change', async () => {
    const w = await makeWorld(kh, 'Stopped');
    const userId = (await kh.readModel.usersByLoginName(w.username, w.orgId, 1))[0]!.id;
    // A lockout policy and a password that must be changed: neither may act while the org is deactivated.
    expect((await kh.rest('POST', '/management/v1/policies/lockout', { maxPasswordAttempts: 2 }, inOrg(w.orgId))).status).toBe(200);
    expect((await kh.rest('POST', `/v2/users/${userId}/password`, { newPassword: { password: PASSWORD, changeRequired: true } })).status).toBe(200);
    const store = createEventStore(kh.database);
    const before = (await store.load('user', userId)).length;
    expect((await kh.rest('POST', '/management/v1/orgs/me/_deactivate', {}, inOrg(w.orgId))).status).toBe(200);
    for (const password of [PASSWORD, 'wrong once', 'wrong twice', 'wrong thrice']) {
      expect(await login(base, base, w.other, w.username, password)).toBe(`refused: ${WRONG}`);
    }
    // Nothing recorded on the user while its org is deactivated: no failed attempt, no lock, no change.
    expect((await store.load('user', userId)).slice(before).map((e) => e.type)).toEqual([]);
    expect((await kh.readModel.user(userId))?.state).toBe('active');
    // Reactivated: the right password goes on to the change it requires (not locked by the tries above).
    expect((await kh.rest('POST', '/management/v1/orgs/me/_reactivate', {}, inOrg(w.orgId))).status).toBe(200);
    expect(await login(base, base, w.other, w.username)).not.toBe(`refused: ${WRONG}`);
  }, 60_000);

  it('removed: its user, app and tokens are gone for good, and its name is free again', async () => {
    const w = await makeWorld(kh, 'Removed');
    const own = tokensOf(await login(base, base, w.own, w.username));
    const other = tokensOf(await login(base, base, w.other, w.username));
    const name = (await kh.rest('GET', '/management/v1/orgs/me', undefined, inOrg(w.orgId))).body.name as string;

    expect((await kh.rest('DELETE', '/management/v1/orgs/me', undefined, inOrg(w.orgId))).status).toBe(200);
    expect(await userinfo(base, own.access_token)).toBe(401);
    expect(await userinfo(base, other.access_token)).toBe(401);
    expect(await introspected(base, w.other, other.access_token)).toBe(false);
    expect(await refreshed(base, w.other, other.refresh_token)).not.toBe(200);
    expect(await login(base, base, w.own, w.username)).toBe('no login');
    expect((await kh.rest('GET', `/v2/organizations/${w.orgId}`)).status).toBe(404);
    // Org names are not unique: the same name is taken again at once.
    expect((await kh.rest('POST', '/v2/organizations', { name })).status).toBe(200);
  }, 60_000);
});

announcePostgresSkip('org lifecycle seen by a second process');
describe.runIf(postgresAvailable)('two processes on one PostgreSQL', () => {
  const processes = twoProcesses('orgs');

  it('a login at the second process, the org deactivated at the first: the second refuses within the bound; reactivated, accepts again; removed, refuses', async () => {
    const { a, b, issuer } = processes;
    const w = await makeWorld(a, 'Twins');
    const there = b.url;
    const own = tokensOf(await login(issuer, there, w.own, w.username));
    const other = tokensOf(await login(issuer, there, w.other, w.username));
    expect(await userinfo(there, other.access_token)).toBe(200);

    const orgAt = (method: string, path: string) => a.rest(method, `/management/v1/orgs/me${path}`, method === 'DELETE' ? undefined : {}, inOrg(w.orgId));
    expect((await orgAt('POST', '/_deactivate')).status).toBe(200);
    expect(await within(async () => (await userinfo(there, other.access_token)) === 401)).toBeLessThanOrEqual(2000);
    expect(await within(async () => (await userinfo(there, own.access_token)) === 401)).toBeLessThanOrEqual(2000);
    expect(await within(async () => (await introspected(there, w.other, other.access_token)) === false)).toBeLessThanOrEqual(2000);
    expect(await within(async () => (await refreshed(there, w.other, other.refresh_token)) !== 200)).toBeLessThanOrEqual(2000);
    expect(await login(issuer, there, w.other, w.username)).toBe(`refused: ${WRONG}`);

    expect((await orgAt('POST', '/_reactivate')).status).toBe(200);
    expect(await within(async () => (await userinfo(there, own.access_token)) === 200)).toBeLessThanOrEqual(2000);
    const again = tokensOf(await login(issuer, there, w.other, w.username));

    expect((await orgAt('DELETE', '')).status).toBe(200);
    expect(await within(async () => (await userinfo(there, again.access_token)) === 401)).toBeLessThanOrEqual(2000);
    expect(await within(async () => !(await loginStarts(issuer, there, w.own)))).toBeLessThanOrEqual(2000);
  }, 120_000);
});
