// A user's login sessions on the console's user page, in headless Chromium:
// a user signs in to an app (a real login, over HTTP), the administrator sees
// the session (device, address, the app) and ends it; the API then lists none
// and the session's access token is refused at userinfo.
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { appLogin, humanUser, PASSWORD, redeem, startApp, stopApp } from '../support/key-login.js';
import { browser, logIn } from '../support/oidc-login.js';

const skip = !chromiumAvailable();
announceChromiumSkip('a user\u2019s sessions in the console (Chromium)');

describe.skipIf(skip)('a user\u2019s sessions in the console', () => {
  let kh: TestKeyhold;
  let chromium: Browser;

  beforeAll(async () => {
    const build = await import('../../console/build.mjs');
    if (build.isStale()) await build.buildConsole();
    [kh, chromium] = await Promise.all([startTestKeyhold(), launchChromium(), startApp()]);
  }, 90_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
    await stopApp();
  });

  it('lists the session a login made, with its app, and ends it: the API lists none, its access token is refused at userinfo', async () => {
    const user = await humanUser(kh, 'sessions');
    const login = await appLogin(kh);
    const returned = await logIn(browser(kh.issuer), login.url, user.username, PASSWORD);
    const tokens = await redeem(login, returned.href);
    const sub = tokens.claims()!.sub;
    expect((await oidc.fetchUserInfo(login.config, tokens.access_token, sub)).sub).toBe(sub);

    const context = await chromium.newContext({ locale: 'en-US', viewport: { width: 1100, height: 900 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    await page.goto(`http://localhost:${kh.port}/console/`);
    await page.getByLabel('Personal access token').fill(kh.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    await page.goto(`http://localhost:${kh.port}/console/#/users/${user.userId}`);
    const section = page.getByTestId('user-sessions');
    const row = section.locator('tbody tr');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.first().textContent()).toContain(login.clientId);
    await section.getByRole('button', { name: /^End the session on / }).click();
    await section.getByTestId('no-sessions').waitFor();
    expect((await kh.client(UserService, 'grpc', kh.adminToken).listUserSessions({ userId: user.userId })).result).toEqual([]);
    await expect(oidc.fetchUserInfo(login.config, tokens.access_token, sub)).rejects.toThrow();
    await context.close();
  }, 60_000);
});
