// Guesses are reserved before they are checked (src/store/attempt-budgets.ts,
// src/domain/identity/guess-buckets.ts), over plain HTTP through the login pages,
// on PGlite, on PostgreSQL and on two Keyhold processes sharing one
// PostgreSQL (the second a child process; the burst's requests alternate
// between them): a burst checks no more passwords than the free allowance or
// the lockout policy allows, a right password racing the locking failure
// never gets a code for a user who ends up locked, and bursts of recovery
// codes and user codes are checked no more than their budgets allow. Each test guesses from a
// loopback address of its own (test/support/client-address.ts), as separate
// machines would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { BUCKETS } from '../../../src/domain/identity/attempt-budget.js';
import { startChildKeyhold, type ChildKeyhold } from '../../support/child-keyhold.js';
import { browserFrom, loopback } from '../../support/client-address.js';
import { announcePostgresSkip, postgresAvailable, tempDir } from '../../support/databases.js';
import { addOrg, inOrg } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, formAction, formToken, type Browser } from '../../support/oidc-login.js';
import { createSoftAuthenticator } from '../../support/soft-authenticator.js';
import { startRegistration } from '../../support/u2f.js';

announcePostgresSkip('guess budgets on PostgreSQL and on two processes');

const PASSWORD = 'the right password 17';
const REDIRECT = 'http://localhost:5175/cb';
const ROUNDS = 10;
const FREE = BUCKETS['password.account.client'].free;
const WAIT = /Too many attempts\. Wait \d+ seconds and try again\./;
const LOCKED_OUT = 'Too many wrong passwords: this account is now locked.';
const WRONG = 'The username or the password is wrong.';

/** A password page ready in its own browser: post() sends one password and answers the status, the page's text and where a 303 leads. */
interface PasswordPage {
  post(password: string, base?: string): Promise<{ status: number; text: string; location?: string }>;
  browser: Browser;
}

for (const [engine, postgres, twoProcesses] of [
  ['PGlite', false, false],
  ['PostgreSQL', true, false],
  ['two processes on one PostgreSQL', true, true],
] as const) {
  describe.skipIf(postgres && !postgresAvailable)(`guesses on ${engine}`, () => {
    let kh: TestKeyhold;
    let child: ChildKeyhold | undefined;
    /** Where requests go, in turn: one process, or both. */
    let bases: string[];
    let authorize: URL;
    let lockoutOrg: string;
    /** Each test's guesses come from addresses of their own. */
    let nextAddress = 0;
    const address = () => loopback(++nextAddress + (postgres ? 1000 : 0) + (twoProcesses ? 1000 : 0));

    beforeAll(async () => {
      kh = await startTestKeyhold({ postgres });
      bases = [`http://localhost:${kh.port}`];
      if (twoProcesses) {
        child = await startChildKeyhold({ dataDir: await tempDir('keyhold-guess-b-'), databaseUrl: kh.config.databaseUrl! });
        bases.push(child.url);
      }
      const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Guesses' })).body.id;
      const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
      authorize = new URL(`${bases[0]}/oauth/v2/authorize`);
      authorize.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM', code_challenge_method: 'S256' }).toString();
      lockoutOrg = await addOrg(kh, `Lockout ${Date.now()}`);
      expect((await kh.rest('POST', '/management/v1/policies/lockout', { maxPasswordAttempts: 3 }, inOrg(lockoutOrg))).status).toBe(200);
    }, 120_000);
    afterAll(async () => {
      await child?.kill('SIGTERM');
      await kh?.close();
    });

    let users = 0;
    async function addUser(orgId?: string): Promise<{ userId: string; username: string }> {
      const username = `guessed-${++users}`;
      const res = await kh.rest(
        'POST',
        '/v2/users/human',
        { username, ...(orgId ? { organization: { orgId } } : {}), profile: { givenName: 'G', familyName: 'U' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } },
        orgId ? inOrg(orgId) : {},
      );
      expect(res.status).toBe(200);
      return { userId: res.body.userId, username };
    }

    /** A browser from `from` at the password page for `username`. */
    async function passwordPage(username: string, from: string): Promise<PasswordPage> {
      const b = browserFrom(bases[0]!, from);
      const first = await b.follow(authorize);
      const toPassword = await b.request(new URL(formAction(first.html!, 'username')!, bases[0]), { form: { form_token: formToken(first.html!), username } });
      const pw = await b.follow(new URL(toPassword.headers.get('location')!, bases[0]));
      const action = formAction(pw.html!, 'password')!;
      return {
        browser: b,
        async post(password, base = bases[0]!) {
          const res = await b.request(new URL(action, base), { form: { form_token: formToken(pw.html!), password } });
          return { status: res.status, text: await res.text(), location: res.headers.get('location') ?? undefined };
        },
      };
    }

    /** `n` password pages for `username` from one address, prepared a few at a time. */
    async function pages(username: string, from: string, n: number): Promise<PasswordPage[]> {
      const ready: PasswordPage[] = [];
      while (ready.length < n) ready.push(...(await Promise.all(Array.from({ length: Math.min(8, n - ready.length) }, () => passwordPage(username, from)))));
      return ready;
    }

    /** Posts every page's password at once, alternating between the processes. */
    const burst = (ready: PasswordPage[], passwordOf: (i: number) => string) => Promise.all(ready.map((p, i) => p.post(passwordOf(i), bases[i % bases.length])));

    const eventsOf = async (userId: string) => ((await kh.rest('POST', '/admin/v1/events/_search', { aggregateId: userId, asc: true })).body.events ?? []) as { type: string }[];
    const failuresOf = async (userId: string) => (await eventsOf(userId)).filter((e) => e.type === 'user.password.check.failed').length;
    const stateOf = async (userId: string) => (await kh.rest('GET', `/v2/users/${userId}`)).body.user?.state;

    it(`40 concurrent tries on one account from one address: at most ${FREE} checked, the rest told to wait`, async () => {
      const { userId, username } = await addUser();
      const answers = await burst(await pages(username, address(), 40), (i) => (i === 39 ? PASSWORD : `wrong ${i}`));
      const signedIn = answers.filter((a) => a.status === 303).length;
      const checked = (await failuresOf(userId)) + signedIn;
      expect(checked).toBeLessThanOrEqual(FREE);
      expect(checked).toBeGreaterThanOrEqual(1);
      expect(answers.filter((a) => WAIT.test(a.text)).length).toBe(40 - checked);
    }, 120_000);

    it('a lockout policy of 3 and 40 concurrent wrong passwords: 3 checked, the third locks', async () => {
      const { userId, username } = await addUser(lockoutOrg);
      const answers = await burst(await pages(username, address(), 40), (i) => `wrong ${i}`);
      expect(await failuresOf(userId)).toBe(3);
      // New browsers all: the locking one is told what a wrong password is told, as is every try
      // that comes after the lock; the rest wait.
      expect(answers.filter((a) => a.text.includes(LOCKED_OUT))).toHaveLength(0);
      expect(answers.filter((a) => !WAIT.test(a.text) && !a.text.includes(WRONG))).toEqual([]);
      expect(answers.filter((a) => a.text.includes(WRONG)).length).toBeGreaterThanOrEqual(3);
      expect(await stateOf(userId)).toBe('USER_STATE_LOCKED');
    }, 120_000);

    it(`the right password racing the locking failure (1 right, 7 wrong at once, ${ROUNDS} rounds): never a code for a user who ends up locked`, async () => {
      const seen = { code: 0, locked: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const from = address();
        const { userId, username } = await addUser(lockoutOrg);
        // Two wrong passwords recorded: the next wrong one locks.
        const before = await passwordPage(username, from);
        for (const p of ['wrong a', 'wrong b']) expect((await before.post(p)).text).toContain('The username or the password is wrong.');
        const ready = await pages(username, from, 8);
        // The right one at another place each round (so on either process).
        const right = round % ready.length;
        const answers = await burst(ready, (i) => (i === right ? PASSWORD : `wrong ${i}`));
        let code: string | null = null;
        if (answers[right]!.status === 303) {
          const back = await ready[right]!.browser.follow(new URL(answers[right]!.location!, bases[0]));
          code = back.left?.searchParams.get('code') ?? null;
        }
        const locked = (await stateOf(userId)) === 'USER_STATE_LOCKED';
        expect({ round, code: code !== null, locked }).not.toEqual({ round, code: true, locked: true });
        // Decided once: no login is recorded for the user once it is locked.
        const types = (await eventsOf(userId)).map((e) => e.type);
        expect(types.slice(types.indexOf('user.locked') + 1), `round ${round}`).not.toContain(locked ? 'user.login.succeeded' : 'never');
        expect(code !== null || locked, `round ${round}: neither signed in nor locked`).toBe(true);
        if (code) seen.code++;
        if (locked) seen.locked++;
      }
      console.info(`[race] ${engine}: ${seen.code} rounds the right password won, ${seen.locked} the lock`);
    }, 300_000);

    it(`12 wrong recovery codes at once (each its own login, one address): ${BUCKETS['recovery.account.client'].free} checked, the rest told to wait`, async () => {
      const free = BUCKETS['recovery.account.client'].free;
      const { userId, username } = await addUser();
      // A key (registered by the admin, so the user has no codes: every code typed is wrong).
      const reg = await startRegistration(kh, userId);
      const credential = createSoftAuthenticator().makeRegistration({ challenge: reg.challenge, origin: bases[0]!, rpId: reg.rpId });
      await kh.client(UserService, 'grpc').verifyU2FRegistration({ userId, u2fId: reg.u2fId, publicKeyCredential: credential as never, tokenName: 'k' });
      const from = address();
      // Past the password one login after the other (passwords at once would spend the password budget).
      const forms: { b: Browser; action: string; token: string }[] = [];
      for (let i = 0; i < 12; i++) {
        const page = await passwordPage(username, from);
        const toKey = await page.post(PASSWORD);
        const keyPage = await page.browser.follow(new URL(toKey.location!, bases[0]));
        const form = await page.browser.follow(new URL(/href="([^"]*\?recovery=1)"/.exec(keyPage.html!)![1]!, bases[0]));
        forms.push({ b: page.browser, action: formAction(form.html!, 'recovery')!, token: formToken(form.html!) });
      }
      const answers = await Promise.all(
        forms.map(async ({ b, action, token }, i) => (await b.request(new URL(action, bases[i % bases.length]), { form: { form_token: token, code: `aaaaaa-bbbbb${i.toString(16)}` } })).text()),
      );
      expect(answers.filter((a) => a.includes('That recovery code is not right'))).toHaveLength(free);
      expect(answers.filter((a) => a.includes('data-reason="RECOVERY_CODE_SLOW_DOWN"'))).toHaveLength(12 - free);
      expect((await eventsOf(userId)).filter((e) => e.type === 'user.recovery.code.check.failed')).toHaveLength(free);
    }, 120_000);

    it(`24 browsers typing an unknown user code at once from one address: ${BUCKETS['usercode.address'].free} looked up, the rest told to wait`, async () => {
      const from = address();
      const free = BUCKETS['usercode.address'].free;
      const sessions = await Promise.all(
        Array.from({ length: 24 }, async () => {
          const b = browserFrom(bases[0]!, from);
          const page = await b.follow(new URL('/ui/login/device', bases[0]));
          return { b, xsrf: /name="xsrf" value="([^"]+)"/.exec(page.html!)![1]! };
        }),
      );
      const answers = await Promise.all(
        sessions.map(async ({ b, xsrf }, i) => {
          const res = await b.request(new URL('/ui/login/device', bases[i % bases.length]), { form: { xsrf, user_code: 'BBBB-BBBB' } });
          return { status: res.status, text: await res.text(), retryAfter: res.headers.get('retry-after') };
        }),
      );
      expect(answers.filter((a) => a.status === 200 && a.text.includes('This code is unknown'))).toHaveLength(free);
      const waiting = answers.filter((a) => a.status === 429);
      expect(waiting).toHaveLength(24 - free);
      for (const a of waiting) {
        expect(a.text).toMatch(/Too many unknown codes\. Wait \d+ seconds/);
        expect(Number(a.retryAfter)).toBeGreaterThan(0);
      }
    }, 60_000);
  });
}
