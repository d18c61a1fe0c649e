// Address verification in Chromium with a real SMTP server: a signed-in user
// opens the account page, changes its address (the current password asked
// first), the mail arrives at the new address with a code and a link made from
// the issuer, the page shows the address unverified; the link opened in
// another browser shows the code and verifies only when the person confirms;
// the account page then shows it verified and userinfo says email_verified.
// A second user types the code on the account page instead; a wrong code is
// refused there with the reason.
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { authorizationUrl, catchRedirect, humanUser, PASSWORD, redeem, REDIRECT, startApp, stopApp } from '../support/key-login.js';
import { addApp } from '../support/oidc-login.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const skip = !chromiumAvailable();
announceChromiumSkip('address verification in Chromium');

describe.skipIf(skip)('address verification in Chromium', () => {
  let kh: TestKeyhold;
  let smtp: TestSmtpServer;
  let chromium: Browser;
  let config: oidc.Configuration;
  const base = () => `http://localhost:${kh.port}`;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    [kh, chromium] = await Promise.all([startTestKeyhold({ env: smtp.env }), launchChromium(), startApp()]);
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: `Addresses ${Date.now()}` })).body.id;
    const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true });
    config = await oidc.discovery(new URL(base()), app.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
    await smtp?.close();
    await stopApp();
  });

  /** Signs `username` in to the app in a new browser context: the page (at the app) and the tokens. */
  async function signedIn(username: string): Promise<{ context: BrowserContext; page: Page; tokens: Awaited<ReturnType<typeof redeem>> }> {
    const context = await chromium.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const login = await authorizationUrl(config, { scope: 'openid profile email' });
    const returned = await catchRedirect(page);
    await page.goto(login.url.href);
    await page.getByLabel('Username').fill(username);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${REDIRECT}**`);
    return { context, page, tokens: await redeem(login, returned()!) };
  }

  /** The account page's address form: the new address and the current password. */
  async function changeAddress(page: Page, email: string, password = PASSWORD) {
    await page.goto(`${base()}/ui/account`);
    const form = page.locator('#address-form');
    await form.getByLabel('New email address').fill(email);
    await form.getByLabel('Current password').fill(password);
    await form.getByRole('button', { name: 'Change address' }).click();
  }

  it('a new address: the mail\u2019s link, opened in another browser, verifies on Confirm; the page and userinfo then say verified', async () => {
    const { username } = await humanUser(kh, 'addr');
    const { context, page, tokens } = await signedIn(username);
    const info = async () => (await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub)) as { email?: string; email_verified?: boolean };

    // A wrong current password changes nothing.
    await changeAddress(page, 'mallory@example.com', 'not the password');
    expect(await page.locator('p.error[role=alert]').textContent()).toContain('current password is wrong');

    const fresh = `fresh-${Date.now()}@example.com`;
    await changeAddress(page, fresh);
    expect(await page.locator('p.notice').textContent()).toContain('We sent a code');
    expect(await page.locator('#address-state').textContent()).toBe('not verified');
    expect(await info()).toMatchObject({ email: fresh, email_verified: false });

    const mail = await smtp.next({ to: fresh });
    expect(mail.subject).toBe('Confirm your email address');
    const link = mail.links.find((l) => l.includes('/ui/login/verify-email'))!;
    expect(new URL(link).origin).toBe(kh.issuer);

    const other = await chromium.newContext({ locale: 'en-US' });
    const elsewhere = await other.newPage();
    await elsewhere.goto(link);
    // Opening it verifies nothing; the person confirms.
    expect(await info()).toMatchObject({ email_verified: false });
    await elsewhere.getByRole('button', { name: 'Confirm' }).click();
    expect(await elsewhere.locator('#email-verified').textContent()).toContain('Your address is confirmed');
    await other.close();

    await page.goto(`${base()}/ui/account`);
    expect(await page.locator('#address-state').textContent()).toBe('verified');
    expect(await info()).toMatchObject({ email: fresh, email_verified: true });
    await context.close();
  });

  it('the code typed on the account page verifies; a wrong one is refused with the reason', async () => {
    const { username } = await humanUser(kh, 'typed');
    const { context, page } = await signedIn(username);
    const fresh = `typed-${Date.now()}@example.com`;
    await changeAddress(page, fresh);
    const code = /code ([0-9a-z]{4}-[0-9a-z]{4})/.exec((await smtp.next({ to: fresh })).text)![1]!;
    const confirm = async (typed: string) => {
      const form = page.locator('#address-confirm-form');
      await form.getByLabel('Code from the mail').fill(typed);
      await form.getByRole('button', { name: 'Confirm address' }).click();
    };
    await confirm(code === 'aaaa-aaaa' ? 'bbbb-bbbb' : 'aaaa-aaaa');
    expect(await page.locator('p.error[role=alert]').textContent()).toContain('does not work');
    await page.goto(`${base()}/ui/account`);
    await confirm(code.toUpperCase());
    expect(await page.locator('p.notice').textContent()).toContain('Your address is confirmed');
    expect(await page.locator('#address-state').textContent()).toBe('verified');
    await context.close();
  });
});
