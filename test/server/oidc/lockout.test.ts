// The lockout policy at the login (plain HTTP through the login pages): the
// wrong password that reaches the org's threshold locks the account (the
// page says so in a browser that signed in to it before), the right one then no longer logs in — and gets the very
// answer a wrong one gets, except in a browser that signed in to the account
// before —, UnlockUser lifts the lock; a successful login starts the count
// again; without a policy nobody is locked (the throttle only slows,
// test/server/oidc/throttle.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { browserFrom, loopback } from '../../support/client-address.js';
import { addApp, browser, formAction, formToken, logIn } from '../../support/oidc-login.js';

let kh: TestKeyhold;
let base: string;
let authorizeUrl: URL;
beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Lockout' })).body.id;
  const app = await addApp(kh, projectId, { redirectUris: ['http://localhost:5175/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
  authorizeUrl = new URL(`${base}/oauth/v2/authorize`);
  authorizeUrl.search = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: 'http://localhost:5175/cb',
    response_type: 'code',
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM',
    code_challenge_method: 'S256',
  }).toString();
}, 60_000);
afterAll(async () => kh?.close());

const PASSWORD = 'the right password 17';

async function addUser(username: string): Promise<string> {
  const res = await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'L', familyName: 'O' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } });
  expect(res.status).toBe(200);
  return res.body.userId;
}

/** The password page for `username` (in browser `b`); `attempt` posts one password there and answers the page's text (or the redirect's status). */
async function passwordPage(username: string, b = browser(base)) {
  // prompt=login: a browser signed in already is asked again.
  const url = new URL(authorizeUrl);
  url.searchParams.set('prompt', 'login');
  const first = await b.follow(url);
  const toPassword = await b.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: formToken(first.html!), username } });
  const pw = await b.follow(new URL(toPassword.headers.get('location')!, base));
  return async (password: string) => {
    const res = await b.request(new URL(formAction(pw.html!, 'password')!, base), { form: { form_token: formToken(pw.html!), password } });
    return { status: res.status, text: await res.text() };
  };
}

const state = async (userId: string) => (await kh.rest('GET', `/v2/users/${userId}`)).body.user?.state;

describe('lockout policy at the login', () => {
  it('the third wrong password locks; the page says so only in a browser that signed in before; the right one is refused as a wrong one is; UnlockUser lifts it', async () => {
    expect((await kh.rest('POST', '/management/v1/policies/lockout', { maxPasswordAttempts: 3 })).status).toBe(200);
    const userId = await addUser('locked-out');
    // The user's own browser signed in once before.
    const own = browser(base);
    expect((await logIn(own, authorizeUrl, 'locked-out', PASSWORD)).searchParams.get('code')).toBeTruthy();
    const attempt = await passwordPage('locked-out');
    expect((await attempt('wrong 1')).text).toContain('The username or the password is wrong.');
    expect((await attempt('wrong 2')).text).toContain('The username or the password is wrong.');
    // The third, from the user's own browser, locks and says so (from any other it would read as the first two).
    expect((await (await passwordPage('locked-out', own))('wrong 3')).text).toContain('Too many wrong passwords: this account is now locked. Ask an administrator to unlock it.');
    expect(await state(userId)).toBe('USER_STATE_LOCKED');
    // Locked: the right password is not even compared — the same answer as a wrong one, nothing about the state.
    const errorOf = (text: string) => /<p class="error"[^>]*>([^<]*)<\/p>/.exec(text)?.[1];
    const right = await attempt(PASSWORD);
    const wrong = await attempt('wrong 4');
    expect(right.status).toBe(200);
    expect(errorOf(right.text)).toBe('The username or the password is wrong.');
    expect(errorOf(wrong.text)).toBe(errorOf(right.text));
    // The browser that signed in to it before is told, whatever the password.
    const inOwn = await passwordPage('locked-out', own);
    expect(errorOf((await inOwn(PASSWORD)).text)).toBe('This account is locked or deactivated. Ask an administrator.');
    expect(errorOf((await inOwn('wrong 5')).text)).toBe('This account is locked or deactivated. Ask an administrator.');

    // The audit trail: three failures and the lock, named by the threshold; no password in any of them.
    const events = (await kh.rest('POST', '/admin/v1/events/_search', { aggregateId: userId, asc: true })).body.events;
    const trail = events.filter((e: { type: string }) => e.type === 'user.password.check.failed' || e.type === 'user.locked');
    expect(trail.map((e: { type: string }) => e.type)).toEqual(['user.password.check.failed', 'user.password.check.failed', 'user.password.check.failed', 'user.locked']);
    expect(trail[3].payload).toEqual({ maxAttempts: 3 });
    expect(JSON.stringify(events)).not.toMatch(/wrong [12345]|the right password/);

    expect((await kh.rest('POST', `/v2/users/${userId}/unlock`, {})).status).toBe(200);
    expect(await state(userId)).toBe('USER_STATE_ACTIVE');
    // Unlocked with a fresh count: one more wrong password does not lock again; the right one logs in.
    // (From another address: the tries while locked spent this address's budget for the account, and a budget's streak outlives an unlock.)
    const again = await passwordPage('locked-out', browserFrom(base, loopback(1)));
    expect((await again('wrong 6')).text).toContain('The username or the password is wrong.');
    expect((await again(PASSWORD)).status).toBe(303);
    expect(await state(userId)).toBe('USER_STATE_ACTIVE');
  }, 60_000);

  it('a successful login starts the count again', async () => {
    const userId = await addUser('count-reset');
    const before = await passwordPage('count-reset');
    expect((await before('wrong 1')).status).toBe(200);
    expect((await before('wrong 2')).status).toBe(200);
    const back = await logIn(browser(base), authorizeUrl, 'count-reset', PASSWORD);
    expect(back.searchParams.get('code')).toBeTruthy();
    const after = await passwordPage('count-reset');
    expect((await after('wrong 3')).text).toContain('The username or the password is wrong.');
    expect((await after('wrong 4')).text).toContain('The username or the password is wrong.');
    expect(await state(userId)).toBe('USER_STATE_ACTIVE');
  }, 60_000);

  it('with the policy off (0) wrong passwords lock nobody', async () => {
    expect((await kh.rest('PUT', '/management/v1/policies/lockout', { maxPasswordAttempts: 0 })).status).toBe(200);
    const userId = await addUser('never-locked');
    const attempt = await passwordPage('never-locked');
    for (let i = 0; i < 4; i++) expect((await attempt(`wrong ${i}`)).text).toContain('The username or the password is wrong.');
    expect(await state(userId)).toBe('USER_STATE_ACTIVE');
  }, 60_000);
});
