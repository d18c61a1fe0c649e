// Nobody gets a lock-out lever (plain HTTP through the login pages): a browser
// that signed in to an account before — OWASP's device cookie,
// src/server/oidc/known-browser.ts — spends a guessing budget of its own, so
// wrong passwords from anywhere else, the fixed-name keyhold-admin's
// included, and spraying from one shared address (a proxy Keyhold does not
// trust) slow only browsers new to the account. And a device's user code:
// beyond its budget even the right code is not looked up; a known browser's
// codes spend its account's budget, not its address's. Each actor guesses
// from a loopback address of its own (test/support/client-address.ts).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS } from '../../../src/domain/identity/attempt-budget.js';
import { COOKIE_NAMES } from '../../../src/server/oidc/cookies.js';
import { checkDeviceFlowExtension } from '../../../src/server/oidc/extensions.js';
import { browserFrom, loopback } from '../../support/client-address.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, formAction, formToken, logIn, type Browser } from '../../support/oidc-login.js';

const PASSWORD = 'the right password 17';
const REDIRECT = 'http://localhost:5175/cb';
const WAIT = /Too many attempts\. Wait \d+ seconds and try again\./;
const WRONG = 'The username or the password is wrong.';

let kh: TestKeyhold;
let base: string;
let authorize: URL;
let projectId: string;
let nextAddress = 0;
const address = () => loopback(++nextAddress);

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Known browsers' })).body.id;
  const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
  authorize = new URL(`${base}/oauth/v2/authorize`);
  // prompt=login: a browser with a session is asked for the password again.
  authorize.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', prompt: 'login', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM', code_challenge_method: 'S256' }).toString();
}, 60_000);
afterAll(async () => kh?.close());

async function addUser(username: string): Promise<string> {
  const res = await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'K', familyName: 'B' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } });
  expect(res.status).toBe(200);
  return res.body.userId;
}

/** `b` at the password page for `username`; `post` sends one password there (the page's text, or where a 303 leads). */
async function passwordPage(b: Browser, username: string) {
  const first = await b.follow(authorize);
  const toPassword = await b.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: formToken(first.html!), username } });
  const pw = await b.follow(new URL(toPassword.headers.get('location')!, base));
  return async (password: string) => {
    const res = await b.request(new URL(formAction(pw.html!, 'password')!, base), { form: { form_token: formToken(pw.html!), password } });
    return { status: res.status, text: await res.text(), location: res.headers.get('location') };
  };
}

/** One wrong try for `username` from a browser of its own at `from`. */
const guess = async (username: string, from: string, password: string) => (await passwordPage(browserFrom(base, from), username))(password);

const knownCookie = (b: Browser) => /keyhold_known=([^;]+)/.exec(b.jar.header(new URL('/ui/login/x', base)))?.[1];

describe('known browsers', () => {
  it('the fixed-name keyhold-admin: attackers from many addresses keep its other budgets in their delays, its own browser signs in at once', async () => {
    expect(kh.humanAdmin.created).toBe(true);
    const initial = readFileSync((kh.humanAdmin as { passwordFile: string }).passwordFile, 'utf8').trim();
    const chosen = 'the administrator chose this 17';
    // The administrator's first sign-in (the initial password must be changed) makes its browser known.
    const own = browserFrom(base, address());
    const toChange = await (await passwordPage(own, 'keyhold-admin'))(initial);
    expect(toChange.status).toBe(303);
    const change = await own.follow(new URL(toChange.location!, base));
    const changed = await own.request(new URL(formAction(change.html!, 'change')!, base), { form: { form_token: formToken(change.html!), new_password: chosen, confirm_password: chosen } });
    expect((await own.follow(new URL(changed.headers.get('location')!, base))).left?.searchParams.get('code')).toBeTruthy();

    // Attackers: every address spends its own allowance for the account, and together they spend the account's.
    const perAddress = BUCKETS['password.account.client'].free;
    const addresses = Math.ceil(BUCKETS['password.account'].free / perAddress) + 1;
    for (let a = 0; a < addresses; a++) {
      const from = address();
      for (let i = 0; i <= perAddress; i++) await guess('keyhold-admin', from, `attack ${a}.${i}`);
    }
    // A browser new to the account waits, even from an address that never tried.
    expect((await guess('keyhold-admin', address(), chosen)).text).toMatch(WAIT);
    // The administrator's browser: in at once.
    expect((await logIn(own, authorize, 'keyhold-admin', chosen)).searchParams.get('code')).toBeTruthy();
    // What made it known: a cookie only the login reads, out of scripts' reach.
    const cookie = changed.headers.getSetCookie().find((c) => c.startsWith('keyhold_known='));
    expect(cookie).toMatch(/; Path=\/ui\/login; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
  }, 120_000);

  it('a forged entry, or one of another account, makes no browser known', async () => {
    const victim = 'known-victim';
    await addUser(victim);
    await addUser('known-other');
    const own = browserFrom(base, address());
    await logIn(own, authorize, victim, PASSWORD);
    const theirs = browserFrom(base, address());
    await logIn(theirs, authorize, 'known-other', PASSWORD);
    // The victim's budgets for unknown browsers are spent.
    for (let a = 0; a < 3; a++) {
      const from = address();
      for (let i = 0; i <= BUCKETS['password.account.client'].free; i++) await guess(victim, from, `attack ${a}.${i}`);
    }
    const withCookie = (value: string) => {
      const b = browserFrom(base, address());
      b.jar.take(new Response(null, { headers: { 'set-cookie': `keyhold_known=${value}; Path=/ui/login` } }));
      return b;
    };
    const real = knownCookie(own)!;
    // One character of the signature changed.
    const forged = real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A');
    expect((await (await passwordPage(withCookie(forged), victim))(PASSWORD)).text).toMatch(WAIT);
    // Another account's genuine entry.
    expect((await (await passwordPage(withCookie(knownCookie(theirs)!), victim))(PASSWORD)).text).toMatch(WAIT);
    // The genuine one, copied into another browser, is the victim's known browser (it is a bearer of that budget, nothing more).
    expect((await (await passwordPage(withCookie(real), victim))(PASSWORD)).status).toBe(303);
  }, 120_000);

  it('one address for everyone (a proxy Keyhold does not trust): spraying stops browsers new to an account, not known ones', async () => {
    const proxy = address();
    await addUser('behind-proxy');
    const own = browserFrom(base, proxy);
    await logIn(own, authorize, 'behind-proxy', PASSWORD);
    // Spraying: one wrong password for each of many names, all through the proxy, until the address must wait.
    let tries = 0;
    while (!WAIT.test((await guess(`sprayed-${tries}`, proxy, `spray ${tries}`)).text)) {
      tries++;
      expect(tries).toBeLessThanOrEqual(BUCKETS['password.address'].free);
    }
    expect((await guess('behind-proxy', proxy, PASSWORD)).text).toMatch(WAIT);
    expect((await logIn(own, authorize, 'behind-proxy', PASSWORD)).searchParams.get('code')).toBeTruthy();
  }, 120_000);
});

let tv: Promise<{ clientId: string }> | undefined;
/** A new sign-in of the TV app (a device app, added once): its user code. */
async function deviceCode(): Promise<string> {
  tv ??= addApp(kh, projectId, { name: 'TV', appType: 'OIDC_APP_TYPE_NATIVE', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', responseTypes: ['OIDC_RESPONSE_TYPE_CODE'], grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'] });
  const started = await fetch(`${base}/oauth/v2/device_authorization`, { method: 'POST', body: new URLSearchParams({ client_id: (await tv).clientId, scope: 'openid' }) });
  return ((await started.json()) as { user_code: string }).user_code;
}

/** `b` at the code page (a new browser session unless it has one); type() posts one code and answers status, text and Retry-After. */
async function codePage(b: Browser) {
  let html = (await b.follow(new URL('/ui/login/device', base))).html!;
  return async (code: string) => {
    const res = await b.request(new URL('/ui/login/device', base), { form: { xsrf: /name="xsrf" value="([^"]+)"/.exec(html)![1]!, user_code: code } });
    html = await res.text();
    return { status: res.status, text: html, retryAfter: res.headers.get('retry-after') };
  };
}

/** `b` without its provider session, its other cookies (the known-browser entry) kept: its next page starts a new session. */
const dropSession = (b: Browser) =>
  b.jar.take(new Response(null, { headers: [COOKIE_NAMES.session, `${COOKIE_NAMES.session}.sig`].map((name): [string, string] => ['set-cookie', `${name}=; Path=/`]) }));

/** The n-th unknown code of a test (the alphabet's letters, never a code handed out in these tests). */
const unknownCode = (prefix: string, n: number) => `${prefix}-B${'CDFGHJKL'[Math.floor(n / 8) % 8]}${'CDFGHJKL'[n % 8]}`;

describe("a device's user code", () => {
  it('after the budget of a browser session even the right code is not looked up (429, Retry-After); another address is not slowed', async () => {
    const userCode = await deviceCode();
    const type = await codePage(browserFrom(base, address()));
    for (let i = 0; i < BUCKETS['usercode.session'].free; i++) {
      const unknown = await type(`BBBB-BBB${'CDFGHJKL'[i]}`);
      expect(unknown.status).toBe(200);
      expect(unknown.text).toContain('This code is unknown');
    }
    const slowed = await type(userCode);
    expect(slowed.status).toBe(429);
    expect(slowed.text).toMatch(/Too many unknown codes\. Wait \d+ seconds, then type the code again\./);
    expect(slowed.text).toContain(`value="${userCode}"`);
    expect(Number(slowed.retryAfter)).toBeGreaterThan(0);
    // Someone else, elsewhere: the code is found at once (the confirmation names the app).
    const elsewhere = await (await codePage(browserFrom(base, address())))(userCode);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.text).toContain('Sign in to TV on your device?');
  }, 60_000);

  it("a known browser's unknown codes spend its account's budget, across sessions and sign-ins, never its address's", async () => {
    const userCode = await deviceCode();
    const from = address();
    await addUser('code-typer');
    const own = browserFrom(base, from);
    await logIn(own, authorize, 'code-typer', PASSWORD);
    // Browsers new to every account there spend all but one of the address's budget.
    const perSession = BUCKETS['usercode.session'].free;
    for (let n = 0; n < BUCKETS['usercode.address'].free - 1; n += perSession) {
      const type = await codePage(browserFrom(base, from));
      for (let i = n; i < Math.min(n + perSession, BUCKETS['usercode.address'].free - 1); i++) expect((await type(unknownCode('CCCC', i))).status).toBe(200);
    }
    // The known browser: one unknown code per new session, and a new sign-in (a new browser id) halfway.
    const budget = BUCKETS['usercode.known'].free;
    for (let i = 0; i < budget; i++) {
      if (i === Math.floor(budget / 2)) {
        dropSession(own);
        expect((await logIn(own, authorize, 'code-typer', PASSWORD)).searchParams.get('code')).toBeTruthy();
      }
      dropSession(own);
      const unknown = await (await codePage(own))(unknownCode('DDDD', i));
      expect(unknown.status).toBe(200);
      expect(unknown.text).toContain('This code is unknown');
    }
    // Its account's budget is spent: even the right code waits, in yet another session.
    dropSession(own);
    const slowed = await (await codePage(own))(userCode);
    expect(slowed.status).toBe(429);
    expect(Number(slowed.retryAfter)).toBeGreaterThan(0);
    // None of its codes reached the address's budget: a browser new to every account there still has one lookup.
    const stranger = await (await codePage(browserFrom(base, from)))(userCode);
    expect(stranger.status).toBe(200);
    expect(stranger.text).toContain('Sign in to TV on your device?');
  }, 60_000);

  it("an entry from before the account's sessions ended (a reset) makes a browser new again for user codes: it spends the address's budget, not the account's", async () => {
    const userCode = await deviceCode();
    const from = address();
    const userId = await addUser('reset-typer');
    const earlier = browserFrom(base, from);
    await logIn(earlier, authorize, 'reset-typer', PASSWORD);
    expect((await kh.rest('POST', `/v2/users/${userId}/password`, { newPassword: { password: 'set by the administrator 5' } })).status).toBe(200);
    // Browsers new to every account there spend the address's budget…
    const perSession = BUCKETS['usercode.session'].free;
    for (let n = 0; n < BUCKETS['usercode.address'].free; n += perSession) {
      const type = await codePage(browserFrom(base, from));
      for (let i = n; i < Math.min(n + perSession, BUCKETS['usercode.address'].free); i++) expect((await type(unknownCode('FFFF', i))).status).toBe(200);
    }
    // …and the browser that signed in before the reset waits with them, even for the right code.
    dropSession(earlier);
    expect((await (await codePage(earlier))(userCode)).status).toBe(429);
  }, 60_000);

  // Last: it changes the running provider.
  it("the start-up self-check fails loudly when a typed code is no longer looked up through Keyhold's budget", async () => {
    const provider = kh.app.oidc!.provider();
    await expect(checkDeviceFlowExtension(provider, { verificationPath: '/ui/login/device' })).resolves.toBeUndefined();
    // A library that looks codes up some other way.
    provider.DeviceCode.findByUserCode = async () => undefined;
    await expect(checkDeviceFlowExtension(provider, { verificationPath: '/ui/login/device' })).rejects.toThrow(/no longer looked up through DeviceCode\.findByUserCode/);
  });
});
