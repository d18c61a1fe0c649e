// The login honours `prompt` (none, login) and `max_age` as OIDC Core §3.1.2.1
// says — the provider library decides, Keyhold's login UI must show or skip
// its pages accordingly. Real client: openid-client; the login over HTTP.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, logIn, type Browser } from '../../support/oidc-login.js';

let kh: TestKeyhold;
let base: string;
let config: oidc.Configuration;
let projectId: string;
const REDIRECT = 'http://localhost:5177/cb';
const USERNAME = 'prompt.user';
const PASSWORD = 'asked only when it must be 9';

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Prompts' })).body.id;
  const user = await kh.rest('POST', '/v2/users/human', {
    username: USERNAME,
    profile: { givenName: 'P', familyName: 'Rompt' },
    email: { email: 'prompt@example.com' },
    password: { password: PASSWORD, changeRequired: false },
  });
  expect(user.status).toBe(200);
  const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
  config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
}, 60_000);
afterAll(async () => kh?.close());

async function authorize(extra: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  });
  return { url, verifier };
}

describe('prompt and max_age', () => {
  it('prompt=none: login_required without a session; a code at once with one', async () => {
    const b = browser(base);
    const first = await b.follow((await authorize({ prompt: 'none' })).url);
    expect(first.left?.origin).toBe(new URL(REDIRECT).origin);
    expect(first.left?.searchParams.get('error')).toBe('login_required');

    await logIn(b, (await authorize()).url, USERNAME, PASSWORD);
    const { url, verifier } = await authorize({ prompt: 'none' });
    const silent = await b.follow(url);
    expect(silent.left?.searchParams.get('code')).toBeTruthy();
    const tokens = await oidc.authorizationCodeGrant(config, silent.left!, { pkceCodeVerifier: verifier });
    expect(tokens.claims()?.sub).toBeTruthy();
  });

  it('prompt=login and an exceeded max_age ask for the password again despite a session; a fresh max_age does not', async () => {
    const b = browser(base);
    await logIn(b, (await authorize()).url, USERNAME, PASSWORD);
    const again = await b.follow((await authorize({ prompt: 'login' })).url);
    expect(again.left).toBeUndefined();
    expect(formAction(again.html!, 'username') ?? formAction(again.html!, 'password')).toBeTruthy();

    const fresh = await b.follow((await authorize({ max_age: '300' })).url);
    expect(fresh.left?.searchParams.get('code')).toBeTruthy();

    await new Promise((r) => setTimeout(r, 2_100));
    const stale = await b.follow((await authorize({ max_age: '1' })).url);
    expect(stale.left).toBeUndefined();
    expect(formAction(stale.html!, 'username') ?? formAction(stale.html!, 'password')).toBeTruthy();
    // Signing in again satisfies it; auth_time in the ID token is the new login's.
    const { url, verifier } = await authorize({ max_age: '1' });
    const before = Math.floor(Date.now() / 1000);
    const back = await logIn(b, url, USERNAME, PASSWORD);
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, maxAge: 1 });
    expect(tokens.claims()!.auth_time!).toBeGreaterThanOrEqual(before - 1);
  });

  describe('consent only when asked (first-party-grant.ts)', () => {
    /** Username and password through the forms; the answer to the password (no redirect followed). */
    async function passwordStep(b: Browser, url: URL): Promise<Response> {
      const step = await b.follow(url);
      const named = await b.request(new URL(formAction(step.html!, 'username')!, step.url), { form: { form_token: formToken(step.html!), username: USERNAME } });
      const page = await b.follow(new URL(named.headers.get('location')!, step.url));
      return b.request(new URL(formAction(page.html!, 'password')!, page.url), { form: { form_token: formToken(page.html!), username: USERNAME, password: PASSWORD } });
    }

    it('the password returns to the app through one resume; the grant holds the asked scopes', async () => {
      const b = browser(base);
      const { url, verifier } = await authorize({ scope: 'openid email' });
      const done = await passwordStep(b, url);
      expect(done.status).toBe(303);
      const resume = new URL(done.headers.get('location')!, base);
      expect(resume.pathname).toMatch(/^\/oauth\/v2\/authorize\//);
      // No consent interaction in between: the resume answers with the app's redirect and its code.
      const back = await b.request(resume);
      expect(back.status).toBe(303);
      const app = new URL(back.headers.get('location')!);
      expect(app.origin + app.pathname).toBe(REDIRECT);
      const tokens = await oidc.authorizationCodeGrant(config, app, { pkceCodeVerifier: verifier });
      const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
      // The email scope's claims granted without a page; the profile scope's, not asked, not granted.
      expect(info).toMatchObject({ email: 'prompt@example.com', email_verified: expect.any(Boolean) });
      expect(info.given_name).toBeUndefined();
    });

    it('prompt=consent still shows the consent page after the password', async () => {
      const b = browser(base);
      const done = await passwordStep(b, (await authorize({ prompt: 'consent' })).url);
      const page = await b.follow(new URL(done.headers.get('location')!, base));
      expect(page.left).toBeUndefined();
      expect(formAction(page.html!, 'consent')).toBeTruthy();
    });

    it('prompt=login over a session stores no grant for the session’s user before the login', async () => {
      const b = browser(base);
      await logIn(b, (await authorize()).url, USERNAME, PASSWORD);
      const other = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
      const otherConfig = await oidc.discovery(new URL(base), other.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
      const grantsFor = async (clientId: string) =>
        (await kh.database.sql.query<{ payload: { clientId: string } }>({ text: `select payload from events where type = 'user.oidc.grant.saved'`, params: [] })).filter((r) => r.payload.clientId === clientId).length;
      const verifier = oidc.randomPKCECodeVerifier();
      const url = oidc.buildAuthorizationUrl(otherConfig, { redirect_uri: REDIRECT, scope: 'openid', prompt: 'login', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
      // The login page: whoever signs in there may not be the session's user, so nothing is granted yet.
      const page = await b.follow(url);
      expect(formAction(page.html!, 'username') ?? formAction(page.html!, 'password')).toBeTruthy();
      expect(await grantsFor(other.clientId)).toBe(0);
      // Signed in: the grant of the one who did, at the resume.
      const back = await logIn(b, url, USERNAME, PASSWORD);
      expect(back.searchParams.get('code')).toBeTruthy();
      expect(await grantsFor(other.clientId)).toBe(1);
    });

    it('prompt=none to an app of a project the user may not log in to (projectRoleCheck): no code, consent_required', async () => {
      const b = browser(base);
      await logIn(b, (await authorize()).url, USERNAME, PASSWORD);
      const checked = (await kh.rest('POST', '/management/v1/projects', { name: 'Checked', projectRoleCheck: true })).body.id;
      const app = await addApp(kh, checked, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
      const checkedConfig = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
      const url = oidc.buildAuthorizationUrl(checkedConfig, { redirect_uri: REDIRECT, scope: 'openid', prompt: 'none', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
      const silent = await b.follow(url);
      expect(silent.left?.searchParams.get('code')).toBeNull();
      expect(silent.left?.searchParams.get('error')).toBe('consent_required');
    });

    it('a second app of the session: prompt=none answers a code (single sign-on, no consent to ask)', async () => {
      const b = browser(base);
      await logIn(b, (await authorize()).url, USERNAME, PASSWORD);
      const other = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
      const otherConfig = await oidc.discovery(new URL(base), other.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
      const verifier = oidc.randomPKCECodeVerifier();
      const url = oidc.buildAuthorizationUrl(otherConfig, { redirect_uri: REDIRECT, scope: 'openid', prompt: 'none', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
      const silent = await b.follow(url);
      expect(silent.left?.searchParams.get('error')).toBeNull();
      const tokens = await oidc.authorizationCodeGrant(otherConfig, silent.left!, { pkceCodeVerifier: verifier });
      expect(tokens.claims()?.aud).toBe(other.clientId);
    });
  });
});

describe('a sign-in finished as another account than the browser is signed in as', () => {
  it('asks to sign out first, then resumes the sign-in: a code for the new account', async () => {
    const other = 'prompt.other';
    const otherPassword = 'the second tab signs in 11';
    const created = await kh.rest('POST', '/v2/users/human', { username: other, profile: { givenName: 'O', familyName: 'Ther' }, email: { email: 'other@example.com' }, password: { password: otherPassword, changeRequired: false } });
    expect(created.status).toBe(200);
    const b = browser(base);
    // Tab A starts a sign-in while the browser is signed in as nobody; tab B then signs in as the first user.
    const a = await authorize();
    let step = await b.follow(a.url);
    await logIn(b, (await authorize()).url, USERNAME, PASSWORD);
    // Tab A goes on as the other user.
    const post = async (name: string, form: Record<string, string>) => {
      const action = formAction(step.html!, name);
      expect(action, `no ${name} form`).toBeTruthy();
      const res = await b.request(new URL(action!, step.url), { form: { form_token: formToken(step.html!), ...form } });
      expect(res.status).toBe(303);
      return new URL(res.headers.get('location')!, step.url);
    };
    step = await b.follow(await post('username', { username: other }));
    const resume = await post('password', { password: otherPassword, username: other });
    // The resume asks the browser to sign the first user out (a form posted to the sign-out's confirmation).
    const asked = await b.request(resume);
    expect(asked.status).toBe(200);
    const html = await asked.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    expect(action, html.slice(0, 400)).toBeTruthy();
    const fields = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    expect(fields.logout).toBe('yes');
    const confirmed = await b.request(new URL(action!.replace(/&amp;/g, '&'), resume), { form: fields });
    expect([302, 303]).toContain(confirmed.status);
    // Signed out, the sign-in resumes as the account it finished as.
    const back = await b.follow(new URL(confirmed.headers.get('location')!, resume));
    expect(back.left?.searchParams.get('code'), back.html?.slice(0, 400)).toBeTruthy();
    const tokens = await oidc.authorizationCodeGrant(config, back.left!, { pkceCodeVerifier: a.verifier });
    expect(tokens.claims()?.sub).toBe(created.body.userId);
  });
});
