// The forgotten password, end to end against a real SMTP server process:
// "Forgot password?" on the password page, the same answer (body and time)
// for an account and for a name nobody holds, the mail in the browser's
// language with a link made from the issuer, a new password under the
// password rules, the link used once (8 at once, several rounds: one wins),
// every mailed link working until one is used (so asking again for someone
// else's name takes no link away from them),
// every earlier session ended, a password set another way spending the open
// links, and no login by it: a user with an
// authenticator app is still asked for a code. Nothing of the link in the logs.
import * as OTPAuth from 'otpauth';
import * as oidc from 'openid-client';
import type { Browser as Chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { appLogin, humanUser, PASSWORD, redeem, startApp, stopApp } from '../support/key-login.js';
import { browser, formAction, formToken, logIn, type Browser } from '../support/oidc-login.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const skip = !chromiumAvailable();
announceChromiumSkip('the forgotten password in Chromium');
const NEW_PASSWORD = 'a new and even longer passphrase';

const codeOf = (secret: string) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret.replaceAll(' ', '')), algorithm: 'SHA1', digits: 6, period: 30 }).generate();

describe.skipIf(skip)('a forgotten password', () => {
  let kh: TestKeyhold;
  let smtp: TestSmtpServer;
  let chromium: Chromium;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    [kh, chromium] = await Promise.all([startTestKeyhold({ env: smtp.env }), launchChromium(), startApp()]);
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
    await smtp?.close();
    await stopApp();
  });

  /** Asks for a link over HTTP from a fresh sign-in: the page answered and how long it took. */
  async function askForLink(name: string, lang = 'en'): Promise<{ html: string; ms: number }> {
    const b: Browser = browser(kh.issuer, { 'accept-language': lang });
    const login = await appLogin(kh);
    let step = await b.follow(login.url);
    const submit = async (action: string, form: Record<string, string>) => {
      const to = formAction(step.html!, action);
      if (!to) throw new Error(`no ${action} form: ${step.html?.slice(0, 400)}`);
      const started = performance.now();
      const res = await b.request(new URL(to, step.url), { form: { form_token: formToken(step.html!), ...form } });
      step = await b.follow(new URL(res.headers.get('location')!, step.url));
      return performance.now() - started;
    };
    await submit('username', { username: name });
    await submit('forgot', {});
    expect(step.html).toContain('value="' + name + '"');
    const ms = await submit('send', { username: name });
    return { html: step.html!, ms };
  }

  const resetPage = (link: string) => fetch(link).then(async (r) => ({ status: r.status, html: await r.text() }));
  const postReset = (code: string, password: string, confirm = password) =>
    fetch(`${kh.url}/ui/login/reset`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ code, new_password: password, confirm_password: confirm }) });

  it('in Chromium: the link from the mail sets a new password, ends the earlier sessions, and a second factor is still asked', async () => {
    const user = await humanUser(kh, 'forgot');
    // An earlier session: signed in with the old password, its access token works at userinfo.
    const earlier = await appLogin(kh);
    const tokens = await redeem(earlier, (await logIn(browser(kh.issuer), earlier.url, user.username, PASSWORD)).href);
    await oidc.fetchUserInfo(earlier.config, tokens.access_token, oidc.skipSubjectCheck);
    // Then an authenticator app.
    const users = kh.client(UserService, 'grpc');
    const { secret } = await users.registerTOTP({ userId: user.userId });
    await users.verifyTOTPRegistration({ userId: user.userId, code: codeOf(secret) });

    const context = await chromium.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const login = await appLogin(kh);
    await page.goto(login.url.href);
    await page.getByLabel('Username').fill(user.username);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('status').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('If the name has an account with an email address');

    const mail = await smtp.next({ to: `${user.username}@example.com` });
    expect(mail.subject).toBe('Set a new password');
    expect(mail.lang).toBe('en');
    expect(mail.links).toHaveLength(1);
    const link = mail.links[0]!;
    expect(link.startsWith(`${kh.issuer}/ui/login/reset?code=`)).toBe(true);
    const code = new URL(link).searchParams.get('code')!;
    expect(mail.html).toContain(`href="${link}"`);

    await page.goto(link);
    expect(await page.textContent('main')).toContain(`A new password for ${user.username}`);
    // The password rules apply (the link keeps working after a refusal).
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByLabel('Repeat the new password').fill('short');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('p.error[role=alert]').waitFor();
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await page.getByRole('status').textContent()).toContain('Your new password is set, and your account was signed out everywhere');

    // Used: the link opens no form again, and cannot set a password.
    expect((await resetPage(link)).status).toBe(410);
    expect((await postReset(code, 'yet another long passphrase')).status).toBe(410);
    // The earlier session ended: its access token no longer works.
    await expect(oidc.fetchUserInfo(earlier.config, tokens.access_token, oidc.skipSubjectCheck)).rejects.toThrow();

    // Nobody was signed in: the new password leads to the app's code, not to the app.
    const again = await appLogin(kh);
    await page.goto(again.url.href);
    await page.getByLabel('Username').fill(user.username);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('p.error[role=alert]').waitFor();
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Authenticator app' }).waitFor({ timeout: 20_000 });
    await context.close();

    // Nothing of the link in what Keyhold logged.
    const logged = kh.logLines.join('\n');
    expect(logged).not.toContain(code);
    expect(logged).not.toContain(NEW_PASSWORD);
  });

  it('answers the same page in about the same time for an account and a name nobody holds; the mail speaks German to a German browser', async () => {
    const user = await humanUser(kh, 'vergessen');
    const known: number[] = [];
    const unknown: number[] = [];
    let knownHtml = '';
    let unknownHtml = '';
    for (let round = 0; round < 6; round++) {
      // Each pair in turn first: a machine that slows down meanwhile slows both alike.
      const askKnown = () => askForLink(user.username, 'de');
      const first = round % 2 ? await askKnown() : undefined;
      const b = await askForLink(`nobody-${round}-${user.username}`, 'de');
      const a = first ?? (await askKnown());
      known.push(a.ms);
      unknown.push(b.ms);
      knownHtml = a.html;
      unknownHtml = b.html;
    }
    // One page, whatever the name: it names no one (the form token differs per sign-in).
    const strip = (html: string) => html.replace(/name="form_token" value="[^"]+"/g, '').replace(/\/ui\/login\/[^/"]+\//g, '/ui/login/UID/');
    expect(strip(knownHtml)).toBe(strip(unknownHtml));
    expect(knownHtml).not.toContain(user.username);
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    // The lookup, the code and the mail run after the answer: no mail server's latency to tell by. Within
    // 60 ms, or a third of the answer's time on a machine so loaded that the answers take seconds.
    const bound = Math.max(60, median(unknown) / 3);
    expect(Math.abs(median(known) - median(unknown)), `known ${known.join(', ')} ms; unknown ${unknown.join(', ')} ms`).toBeLessThan(bound);

    // At most three links per quarter hour for one account; the newest works, the older ones do not.
    const mails = [await smtp.next({ to: `${user.username}@example.com` }), await smtp.next({ to: `${user.username}@example.com` }), await smtp.next({ to: `${user.username}@example.com` })];
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.all().filter((m) => m.to.includes(`${user.username}@example.com`))).toHaveLength(3);
    for (const m of mails) {
      expect(m.subject).toBe('Neues Passwort festlegen');
      expect(m.lang).toBe('de');
    }
    const codes = mails.map((m) => new URL(m.links[0]!).searchParams.get('code')!);
    expect(new Set(codes).size).toBe(3);
    // Each link mailed works until one of them is used; then none does.
    for (const m of mails) expect((await resetPage(m.links[0]!)).status).toBe(200);
    expect((await postReset(codes[1]!, NEW_PASSWORD)).status).toBe(200);
    for (const m of mails) expect((await resetPage(m.links[0]!)).status).toBe(410);
    expect((await postReset(codes[2]!, 'yet another long passphrase')).status).toBe(410);
  });

  it('keeps the link a person asked for working while someone else asks for the same name again and again', async () => {
    const user = await humanUser(kh, 'kept');
    const to = `${user.username}@example.com`;
    await askForLink(user.username);
    const own = await smtp.next({ to });
    const code = new URL(own.links[0]!).searchParams.get('code')!;
    // Someone who knows only the name asks four more times: two more mails (the window's three), then none.
    for (let i = 0; i < 4; i++) await askForLink(user.username);
    const others = [await smtp.next({ to }), await smtp.next({ to })];
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.all().filter((m) => m.to.includes(to))).toHaveLength(3);
    // The person's own link still opens and sets the password; the others' links are spent with it.
    expect((await resetPage(own.links[0]!)).status).toBe(200);
    expect((await postReset(code, NEW_PASSWORD)).status).toBe(200);
    for (const m of others) expect((await resetPage(m.links[0]!)).status).toBe(410);
    expect((await logIn(browser(kh.issuer), (await appLogin(kh)).url, user.username, NEW_PASSWORD)).href).toContain('code=');
  });

  it('a password set another way (an administrator, the account page) spends every link still open', async () => {
    const user = await humanUser(kh, 'changed');
    const to = `${user.username}@example.com`;
    await askForLink(user.username);
    const link = (await smtp.next({ to })).links[0]!;
    expect((await resetPage(link)).status).toBe(200);
    await kh.client(UserService).setPassword({ userId: user.userId, newPassword: { password: NEW_PASSWORD, changeRequired: false } });
    expect((await resetPage(link)).status).toBe(410);
    expect((await postReset(new URL(link).searchParams.get('code')!, `${NEW_PASSWORD} again`)).status).toBe(410);
    // A link asked for after the change works.
    await askForLink(user.username);
    const after = (await smtp.next({ to })).links[0]!;
    expect((await postReset(new URL(after).searchParams.get('code')!, `${NEW_PASSWORD} again`)).status).toBe(200);
  });

  it('uses a link once: of 8 requests at once, in each of 3 rounds, exactly one sets the password', async () => {
    for (let round = 0; round < 3; round++) {
      const user = await humanUser(kh, `race${round}`);
      await askForLink(user.username);
      const mail = await smtp.next({ to: `${user.username}@example.com` });
      const code = new URL(mail.links[0]!).searchParams.get('code')!;
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => postReset(code, `${NEW_PASSWORD} ${i}`).then((r) => r.status)));
      expect(answers.filter((s) => s === 200)).toHaveLength(1);
      expect(answers.filter((s) => s === 410)).toHaveLength(7);
      const events = await kh.rest('POST', '/admin/v1/events/_search', { aggregateIds: [user.userId], eventTypes: ['user.password.changed'] });
      if (events.status === 200) expect(events.body.events.filter((e: { type?: { type?: string } }) => e.type?.type === 'user.password.changed')).toHaveLength(2);
    }
  });

  it('refuses a made-up or malformed code without saying more', async () => {
    expect((await resetPage(`${kh.url}/ui/login/reset?code=${'A'.repeat(43)}`)).status).toBe(410);
    expect((await resetPage(`${kh.url}/ui/login/reset?code=x`)).status).toBe(410);
    expect((await resetPage(`${kh.url}/ui/login/reset`)).status).toBe(410);
    expect((await postReset('A'.repeat(43), NEW_PASSWORD)).status).toBe(410);
  });
});
