// A login held open and guesses from a shared place: what a sign-in in
// flight may still do after its user's sessions ended, what the login tells
// a browser that never signed in to the account, and whose user-code guesses
// stop whom. Plain HTTP through the login pages, openid-client for the code;
// PGlite.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS } from '../../../src/domain/identity/attempt-budget.js';
import { browserFrom, loopback } from '../../support/client-address.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, formAction, formToken, logIn, type AppCreated, type Browser } from '../../support/oidc-login.js';

const REDIRECT = 'http://localhost:5176/cb';
const PASSWORD = 'the held password 1';
const ADMIN_PASSWORD = 'set by the administrator 2';
const ATTACKER_PASSWORD = 'chosen by the holder 3';
const WRONG = 'The username or the password is wrong.';

let kh: TestKeyhold;
let base: string;
let app: AppCreated;
let config: oidc.Configuration;
let projectId: string;
let nextAddress = 400;
const address = () => loopback(++nextAddress);

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Held logins' })).body.id;
  app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });
  config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret!), { execute: [oidc.allowInsecureRequests] });
}, 90_000);
afterAll(async () => kh?.close());

async function addUser(changeRequired = false): Promise<{ id: string; name: string }> {
  const name = `held-${Math.random().toString(36).slice(2, 10)}`;
  const res = await kh.rest('POST', '/v2/users/human', { username: name, profile: { givenName: 'H', familyName: 'L' }, email: { email: `${name}@example.com` }, password: { password: PASSWORD, changeRequired } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { id: res.body.userId, name };
}

/** A browser at the password page for `name`; `post` sends one password and answers the status, where it leads and the page's error. */
async function passwordPage(b: Browser, name: string, params: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', ...params });
  const first = await b.follow(url);
  const toPassword = await b.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: formToken(first.html!), username: name } });
  const pw = await b.follow(new URL(toPassword.headers.get('location')!, base));
  const post = async (password: string) => {
    const res = await b.request(new URL(formAction(pw.html!, 'password')!, base), { form: { form_token: formToken(pw.html!), password } });
    const text = await res.text();
    return { status: res.status, location: res.headers.get('location'), error: /class="error"[^>]*>([^<]*)</.exec(text)?.[1] };
  };
  return { verifier, post };
}

const admin = async (path: string, body: unknown = {}) => expect((await kh.rest('POST', path, body)).status, path).toBe(200);

/** The changes after which no sign-in begun before may finish (docs/security.md section 7). */
const ENDINGS: [string, (id: string) => Promise<void>][] = [
  ["an administrator's password reset", (id) => admin(`/v2/users/${id}/password`, { newPassword: { password: ADMIN_PASSWORD } })],
  ['LockUser, then UnlockUser', async (id) => (await admin(`/v2/users/${id}/lock`), admin(`/v2/users/${id}/unlock`))],
  ['DeactivateUser, then ReactivateUser', async (id) => (await admin(`/v2/users/${id}/deactivate`), admin(`/v2/users/${id}/reactivate`))],
];

describe('a sign-in held before it returns to the app', () => {
  for (const [what, end] of ENDINGS) {
    it(`the right password, its resume held across ${what}: no code`, async () => {
      const user = await addUser();
      const b = browserFrom(base, address());
      const page = await passwordPage(b, user.name);
      const passed = await page.post(PASSWORD);
      expect(passed.status).toBe(303);
      // The browser stops here, holding the resume link; the sessions end.
      await end(user.id);
      const back = await b.follow(new URL(passed.location!, base));
      expect(back.left?.searchParams.get('code') ?? null).toBeNull();
    });
  }

  const CHANGE_ENDINGS: [string, (id: string) => Promise<void>][] = [
    ['a reset with changeRequired', (id) => admin(`/v2/users/${id}/password`, { newPassword: { password: ADMIN_PASSWORD, changeRequired: true } })],
    ['LockUser', (id) => admin(`/v2/users/${id}/lock`)],
  ];
  for (const [what, end] of CHANGE_ENDINGS) {
    it(`the password-change form of a changeRequired sign-in, held across ${what}: the holder's password is not set`, async () => {
      const user = await addUser(true);
      const b = browserFrom(base, address());
      const passed = await (await passwordPage(b, user.name)).post(PASSWORD);
      const change = await b.follow(new URL(passed.location!, base));
      expect(formAction(change.html!, 'change')).toBeTruthy();
      await end(user.id);
      await b.request(new URL(formAction(change.html!, 'change')!, base), { form: { form_token: formToken(change.html!), new_password: ATTACKER_PASSWORD, confirm_password: ATTACKER_PASSWORD } });
      await kh.rest('POST', `/v2/users/${user.id}/unlock`, {});
      const tried = await (await passwordPage(browserFrom(base, address()), user.name)).post(ATTACKER_PASSWORD);
      expect(tried.status).not.toBe(303);
    });
  }
});

describe('what a browser new to an account is told', () => {
  it('the wrong password that reaches the lockout policy gets the wrong-password answer, as for a name nobody holds', async () => {
    expect((await kh.rest('POST', '/management/v1/policies/lockout', { maxPasswordAttempts: 3 })).status).toBe(200);
    try {
      const user = await addUser();
      const answers = async (name: string) => {
        const { post } = await passwordPage(browserFrom(base, address()), name);
        const seen: (string | undefined)[] = [];
        for (let i = 0; i < 3; i++) seen.push((await post(`wrong ${i}`)).error);
        return seen;
      };
      expect(await answers(`nobody-${Math.random().toString(36).slice(2, 8)}`)).toEqual([WRONG, WRONG, WRONG]);
      expect(await answers(user.name)).toEqual([WRONG, WRONG, WRONG]);
    } finally {
      expect((await kh.rest('PUT', '/management/v1/policies/lockout', { maxPasswordAttempts: 0 })).status).toBe(200);
    }
  });
});

describe("a device's user code from a shared address", () => {
  it("a neighbour's unknown codes stop browsers new to every account there, not a browser that signed in before", async () => {
    const device = await addApp(kh, projectId, { name: 'TV', appType: 'OIDC_APP_TYPE_NATIVE', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', responseTypes: ['OIDC_RESPONSE_TYPE_CODE'], grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'] });
    const started = await fetch(`${base}/oauth/v2/device_authorization`, { method: 'POST', body: new URLSearchParams({ client_id: device.clientId, scope: 'openid' }) });
    const { user_code: userCode } = (await started.json()) as { user_code: string };
    const shared = address();
    // Someone at that address signed in there before: their browser is known to their account.
    const user = await addUser();
    const known = browserFrom(base, shared);
    const authorize = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
    expect((await logIn(known, authorize, user.name, PASSWORD)).searchParams.get('code')).toBeTruthy();
    /** `b` at the code page; type() posts one code and answers the status, the page and Retry-After. */
    const codePage = async (b: Browser = browserFrom(base, shared)) => {
      let html = (await b.follow(new URL('/ui/login/device', base))).html!;
      return async (code: string) => {
        const res = await b.request(new URL('/ui/login/device', base), { form: { xsrf: /name="xsrf" value="([^"]+)"/.exec(html)![1]!, user_code: code } });
        html = await res.text();
        return { status: res.status, text: html, retryAfter: res.headers.get('retry-after') };
      };
    };
    // The neighbour: a new browser session whenever one is spent, until the address's budget is.
    const perSession = BUCKETS['usercode.session'].free;
    for (let s = 0; s * perSession < BUCKETS['usercode.address'].free; s++) {
      const type = await codePage();
      for (let i = 0; i < perSession; i++) expect((await type(`BBBB-B${'CDFGH'[s % 5]}${'CDFGH'[Math.floor(s / 5) % 5]}${'CDFGH'[i]}`)).status).toBe(200);
    }
    // A browser new to every account there waits, the right code not looked up (docs/security.md section 5: the residual).
    const stranger = await (await codePage())(userCode);
    expect(stranger.status).toBe(429);
    expect(Number(stranger.retryAfter)).toBeGreaterThan(0);
    // The browser that signed in before: its code is looked up, on to the confirmation.
    const own = await (await codePage(known))(userCode);
    expect(own.status).toBe(200);
    expect(own.text).toContain('Sign in to TV on your device?');
  });
});
