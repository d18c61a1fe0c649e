// The login's and the account's pages under axe-core (WCAG 2.1 A and AA), in
// headless Chromium, in English and German: the username and password pages
// (and a wrong password's error), the forgotten password, registration, the
// reset, address-verification and invitation pages, and the account page. And
// a login with the keyboard alone: typed, Enter, typed, Enter, at the app.
import type { Browser, Page } from 'playwright-core';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { axeViolations } from '../support/axe.js';
import { addOrg, inOrg } from '../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { appLogin, humanUser, PASSWORD, REDIRECT, startApp, stopApp } from '../support/key-login.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

const skip = !chromiumAvailable();
announceChromiumSkip('the login pages under axe-core in Chromium');

describe.skipIf(skip)('the login and account pages under axe-core', () => {
  let kh: TestKeyhold;
  let chromium: Browser;
  let smtp: TestSmtpServer;
  let openOrg = '';

  beforeAll(async () => {
    smtp = await startSmtpServer();
    [kh, chromium] = await Promise.all([startTestKeyhold({ env: smtp.env }), launchChromium(), startApp()]);
    openOrg = await addOrg(kh, 'Open registration');
    expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: false, allowRegister: true, registerVerificationRequired: false }, inOrg(openOrg))).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
    await smtp?.close();
    await stopApp();
  });

  /** An app in the open org, and its authorization URL. */
  async function openOrgLogin(): Promise<string> {
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: `Open ${Date.now()}` }, inOrg(openOrg))).body.id;
    const app = await kh.rest(
      'POST',
      `/management/v1/projects/${projectId}/apps/oidc`,
      { name: `open-${Date.now()}`, redirectUris: [REDIRECT], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true },
      inOrg(openOrg),
    );
    return `${kh.issuer}/oauth/v2/authorize?${new URLSearchParams({ client_id: app.body.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`;
  }

  for (const locale of ['en-US', 'de-DE']) {
    it(`every page a person meets (${locale}): no violations`, async () => {
      const en = locale === 'en-US';
      const found: Record<string, string[]> = {};
      const check = async (name: string, page: Page) => {
        await page.waitForLoadState('networkidle');
        found[name] = await axeViolations(page);
      };
      const context = await chromium.newContext({ locale });
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      const user = await humanUser(kh, 'axe');

      await page.goto((await appLogin(kh)).url.href);
      await page.locator('input[name=username]').waitFor();
      await check('username', page);
      await page.locator('input[name=username]').fill(user.username);
      await page.locator('input[name=username]').press('Enter');
      await page.locator('input[name=password]').waitFor();
      await check('password', page);
      await page.locator('input[name=password]').fill('not the password at all');
      await page.locator('input[name=password]').press('Enter');
      await page.locator('[role=alert], .error').first().waitFor();
      await check('wrong password', page);
      await page.getByRole('button', { name: en ? 'Forgot password?' : 'Passwort vergessen?' }).click();
      await page.locator('input[name=username]').waitFor();
      await check('forgotten password', page);

      await page.goto(await openOrgLogin());
      await page.locator('input[name=username]').waitFor();
      await page.getByRole('button', { name: en ? 'No account yet? Register' : /Registrieren/ }).click();
      await page.locator('input[name=given_name]').waitFor();
      await check('registration', page);

      await page.goto(`${kh.issuer}/ui/login/reset?code=${'A'.repeat(43)}`);
      await check('reset link that does not work', page);
      await page.goto(`${kh.issuer}/ui/login/verify-email?user=${user.userId}&code=aaaa-aaaa`);
      await check('address verification', page);
      const { inviteUrl } = await kh.client(UserService).createInviteCode({ userId: (await kh.client(UserService).addHumanUser({ username: `axe-invited-${Date.now()}`, profile: { givenName: 'In', familyName: 'Vited' }, email: { email: 'in@example.com' } })).userId, verification: { case: 'returnCode', value: {} } });
      await page.goto(inviteUrl!);
      await check('invitation', page);

      // Signed in: the account page.
      await page.goto((await appLogin(kh)).url.href);
      await page.locator('input[name=username]').fill(user.username);
      await page.locator('input[name=username]').press('Enter');
      await page.locator('input[name=password]').fill(PASSWORD);
      await page.locator('input[name=password]').press('Enter');
      await page.waitForURL(`${REDIRECT}**`);
      await page.goto(`${kh.issuer}/ui/account`);
      await page.locator('main h1, h1').first().waitFor();
      await check('account', page);
      await context.close();

      const violations = Object.entries(found).filter(([, v]) => v.length > 0);
      expect(Object.fromEntries(violations)).toEqual({});
      console.log(`[axe] login and account (${locale}): ${Object.keys(found).length} pages, no violations`);
    }, 120_000);
  }

  it('a login with the keyboard alone: the name, Enter, the password, Enter, and the app has its code', async () => {
    const user = await humanUser(kh, 'keyboard');
    const context = await chromium.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto((await appLogin(kh)).url.href);
    await page.locator('input[name=username]').waitFor();
    // The first field has the focus when the page opens; nothing is clicked below.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('username');
    await page.keyboard.type(user.username);
    await page.keyboard.press('Enter');
    await page.locator('input[name=password]').waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${REDIRECT}**`);
    expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
    await context.close();
  }, 60_000);
});
