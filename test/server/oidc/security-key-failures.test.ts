// Each way the key step refuses, in Chromium with CDP virtual
// authenticators: the reason in words on the page, and the login resumable —
// the same page then finishes with the right key. The WebAuthn timeout (and so
// the challenge's lifetime) is short here: KEYHOLD_WEBAUTHN_TIMEOUT_MS.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChromiumSkip, chromiumAvailable, launchChromium, type VirtualAuthenticator } from '../../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import {
  answerWith,
  appLogin,
  assertionWithoutSending,
  catchRedirect,
  copyKey,
  humanUser,
  keyPage,
  passwordStep,
  redeem,
  registerKey,
  REDIRECT,
  sendAnswer,
  shownReason,
  startApp,
  stopApp,
  useKey,
  type AppLogin,
} from '../../support/key-login.js';

const skip = !chromiumAvailable();
announceChromiumSkip('security-key login failures in Chromium');

/** The challenge's lifetime and the browser's prompt timeout (ms). */
const TIMEOUT_MS = 6_000;

describe.skipIf(skip)('the key step refuses, says why, and lets the user go on', () => {
  let kh: TestKeyhold;
  let chromium: Browser;

  beforeAll(async () => {
    [kh, chromium] = await Promise.all([startTestKeyhold({ env: { KEYHOLD_WEBAUTHN_TIMEOUT_MS: String(TIMEOUT_MS) } }), launchChromium(), startApp()]);
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
    await stopApp();
  });

  /** A user with one key in a fresh browser context, at the key step of a login to a new app. */
  async function atKeyStep(protocol: 'ctap2' | 'u2f' = 'ctap2') {
    const user = await humanUser(kh);
    const browser = await keyPage(chromium, kh, protocol);
    const key = await registerKey(kh, browser.page, user.userId);
    const login = await appLogin(kh);
    const returned = await catchRedirect(browser.page);
    await passwordStep(browser.page, login.url, user.username);
    await browser.page.getByRole('heading', { name: 'Security key' }).waitFor();
    return { user, key, login, returned, ...browser };
  }

  /** The user's own key finishes the login from the page it is on; the tokens say hwk and mfa. */
  async function finishesWithKey(page: Page, login: AppLogin, returned: () => string | undefined) {
    await useKey(page);
    await page.waitForURL(`${REDIRECT}**`);
    const claims = (await redeem(login, returned()!)).claims()!;
    expect(claims.amr).toEqual(['pwd', 'hwk', 'mfa']);
  }

  const eventsOf = async (type: string, aggregateId: string) =>
    kh.readModel.events({ orgIds: undefined, after: 0n, asc: true, limit: 100, eventTypes: [type], aggregateTypes: ['u2f'], aggregateId });

  it('another user’s key: refused as theirs; then the user’s own key works', async () => {
    const s = await atKeyStep();
    const other = await humanUser(kh);
    const theirs = await registerKey(kh, s.page, other.userId, 'Theirs');
    await answerWith(s.page, [theirs.credentialId]);
    const shown = await shownReason(s.page);
    expect(shown.reason).toBe('U2F_LOGIN_OTHER_USER');
    expect(shown.text).toBe('This security key belongs to another account. Use your own key.');
    expect(await eventsOf('u2f.used', theirs.u2fId)).toHaveLength(0);
    await finishesWithKey(s.page, s.login, s.returned);
    await s.context.close();
  }, 60_000);

  it('a key Keyhold never registered: refused as unknown; then the user’s key works', async () => {
    const s = await atKeyStep();
    // A credential only the authenticator knows (made for this RP ID, never verified by Keyhold).
    const options = JSON.parse((await s.page.getAttribute('#key-step', 'data-options'))!);
    const stray = await s.page.evaluate(async (rpId) => {
      const made = (await navigator.credentials.create({
        publicKey: { rp: { id: rpId, name: 'x' }, user: { id: new Uint8Array([1]), name: 'x', displayName: 'x' }, challenge: new Uint8Array(32), pubKeyCredParams: [{ type: 'public-key', alg: -7 }] },
      })) as PublicKeyCredential;
      return made.id;
    }, options.rpId);
    await answerWith(s.page, [stray]);
    expect((await shownReason(s.page)).reason).toBe('U2F_LOGIN_UNKNOWN_CREDENTIAL');
    await finishesWithKey(s.page, s.login, s.returned);
    await s.context.close();
  }, 60_000);

  it('a replayed assertion (the answer to a challenge already given out): refused; a fresh touch works', async () => {
    const s = await atKeyStep();
    const captured = await assertionWithoutSending(s.page);
    // The page again: a new challenge, the first one spent.
    await s.page.reload();
    await sendAnswer(s.page, captured);
    const shown = await shownReason(s.page);
    expect(shown.reason).toBe('U2F_LOGIN_REPLAYED');
    expect(shown.text).toContain('already used');
    // The same answer once more, on the next page: still a replay.
    await sendAnswer(s.page, captured);
    expect((await shownReason(s.page)).reason).toBe('U2F_LOGIN_REPLAYED');
    await finishesWithKey(s.page, s.login, s.returned);
    await s.context.close();
  }, 60_000);

  it.each(['ctap2', 'u2f'] as const)('a cloned %s key (its counter went back): refused and recorded; the real key then works', async (protocol) => {
    const s = await atKeyStep(protocol);
    // The real key logs in once: Keyhold stores its counter.
    await finishesWithKey(s.page, s.login, s.returned);
    const real = (await s.authenticator.credentials())[0]!;

    // A copy of the key made before that login (counter 0) in another browser.
    const thief = await keyPage(chromium, kh, protocol);
    await thief.authenticator.remove();
    const clone = await copyKey(s.authenticator, thief.page, protocol, 0);
    const login = await appLogin(kh);
    const returned = await catchRedirect(thief.page);
    await passwordStep(thief.page, login.url, s.user.username);
    await thief.page.getByRole('heading', { name: 'Security key' }).waitFor();
    await useKey(thief.page);
    const shown = await shownReason(thief.page);
    expect(shown.reason).toBe('U2F_LOGIN_CLONED');
    expect(shown.text).toContain('looks copied');
    const refused = await eventsOf('u2f.signcount.refused', s.key.u2fId);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.payload).toMatchObject({ userId: s.user.userId, storedSignCount: real.signCount, presentedSignCount: 1 });

    // The owner's real key (its counter ahead) still works on this page.
    await clone.remove();
    await copyKey(s.authenticator, thief.page, protocol);
    await finishesWithKey(thief.page, login, returned);
    await Promise.all([s.context.close(), thief.context.close()]);
  }, 90_000);

  // The next three wait out the prompt's timeout (TIMEOUT_MS) on pages of their own, so they
  // wait side by side (one timeout instead of three: ~15 s less per run).
  it.concurrent('a cancelled prompt (nobody touches the key): refused as cancelled; touching it then works', async () => {
    const s = await atKeyStep();
    await presence(s.authenticator, false);
    await useKey(s.page);
    const shown = await shownReason(s.page);
    expect(shown.reason).toBe('U2F_LOGIN_CANCELLED');
    expect(shown.text).toBe('The security key prompt was cancelled or timed out. Try again.');
    await presence(s.authenticator, true);
    await finishesWithKey(s.page, s.login, s.returned);
    await s.context.close();
  }, 60_000);

  it.concurrent('an expired challenge (the page left open too long): refused as expired; the next try works', async () => {
    const s = await atKeyStep();
    await s.page.waitForTimeout(TIMEOUT_MS + 500);
    await useKey(s.page);
    const shown = await shownReason(s.page);
    expect(shown.reason).toBe('U2F_LOGIN_EXPIRED');
    expect(shown.text).toBe('The request to your security key has expired. Try again.');
    await finishesWithKey(s.page, s.login, s.returned);
    await s.context.close();
  }, 60_000);

  it.concurrent('the page in German: the reason in German', async () => {
    const user = await humanUser(kh);
    const context = await chromium.newContext({ locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto(`http://localhost:${kh.port}/healthz`);
    const { addVirtualAuthenticator } = await import('../../support/chromium.js');
    const authenticator = await addVirtualAuthenticator(page, { protocol: 'ctap2' });
    await registerKey(kh, page, user.userId);
    const login = await appLogin(kh);
    await page.goto(login.url.href);
    await page.getByLabel('Benutzername').fill(user.username);
    await page.getByRole('button', { name: 'Weiter' }).click();
    await page.getByLabel('Passwort').fill('a long and memorable passphrase');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.getByRole('heading', { name: 'Sicherheitsschlüssel' }).waitFor();
    await presence(authenticator, false);
    await page.getByRole('button', { name: 'Meinen Sicherheitsschlüssel verwenden' }).click();
    const shown = await shownReason(page);
    expect(shown.text).toBe('Die Abfrage des Sicherheitsschlüssels wurde abgebrochen oder ist abgelaufen. Versuche es erneut.');
    await context.close();
  }, 60_000);

  it('answers that are no answers (a form without JavaScript, garbage) are refused in words, never a 500', async () => {
    const s = await atKeyStep();
    const token = (await s.page.getAttribute('input[name=form_token]', 'value'))!;
    const action = (await s.page.getAttribute('#key-form', 'action'))!;
    for (const response of ['', 'not json', '{"id":"x"}', JSON.stringify({ response: { clientDataJSON: 'A'.repeat(20_000) } })]) {
      const res = await s.page.request.post(`http://localhost:${kh.port}${action}`, { form: { form_token: token, response } });
      expect(res.status()).toBeLessThan(500);
      const html = await res.text();
      expect(html).toMatch(/data-reason="U2F_LOGIN_(INVALID|REPLAYED)"|This form has expired|body is larger|Payload Too Large/i);
    }
    // The login goes on.
    await s.page.reload();
    await finishesWithKey(s.page, s.login, s.returned);
    await s.context.close();
  }, 60_000);

  it('the script is Keyhold’s own, content-addressed and cached; the page allows no other script', async () => {
    const s = await atKeyStep();
    const src = (await s.page.getAttribute('script[src]', 'src'))!;
    expect(src).toMatch(/^\/ui\/login\/assets\/key-step-[A-Za-z0-9_-]{16}\.js$/);
    const res = await fetch(`http://localhost:${kh.port}${src}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('javascript');
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect(await res.text()).toContain('SimpleWebAuthnBrowser');
    expect((await fetch(`http://localhost:${kh.port}/ui/login/assets/key-step-0000000000000000.js`)).status).toBe(404);
    const page = await fetch(s.page.url(), { headers: { cookie: (await s.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') } });
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(await page.text()).not.toMatch(/<script>(?!<\/script>)/);
    await s.context.close();
  }, 60_000);
});

async function presence(authenticator: VirtualAuthenticator, enabled: boolean): Promise<void> {
  await authenticator.cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId: authenticator.id, enabled });
}
