// The console signs in through Keyhold's login: Chromium opens
// /console/, presses "Log in with Keyhold", types username and password on the
// login page, allows the console to act as the user on Keyhold's API on the
// consent page, comes back to the console signed in (code + PKCE, the access
// token for Keyhold's API), and the console lists projects with it. The pasted
// token stays possible (test/console/console.test.ts). The console is built
// into a temporary directory: console/dist belongs to the main checkout.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';

const skip = !chromiumAvailable();
announceChromiumSkip('console login in Chromium');

describe.skipIf(skip)('console: Log in with Keyhold', () => {
  let kh: TestKeyhold;
  let chromium: Browser;
  let outDir: string;

  beforeAll(async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'keyhold-console-build-'));
    outDir = path.join(tmp, 'dist');
    const build = await import('../../console/build.mjs');
    await build.buildConsole({ outDir, minify: false });
    [kh, chromium] = await Promise.all([startTestKeyhold({ consoleDir: outDir }), launchChromium()]);
  }, 90_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
    if (outDir) rmSync(path.dirname(outDir), { recursive: true, force: true });
  });

  it('signs in through the login page and uses the access token for the API', async () => {
    const base = `http://localhost:${kh.port}`;
    expect((await kh.rest('POST', '/v2/users/human', { username: 'ops', profile: { givenName: 'Ops', familyName: 'Person' }, email: { email: 'ops@example.com' }, password: { password: 'console through the login 17', changeRequired: false } })).status).toBe(200);
    const context = await chromium.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      // The browser's own favicon request on the login page (which has no icon) is not the console's.
      if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) problems.push(`${m.text()} ${m.location().url}`);
    });
    await page.goto(`${base}/console/`);
    await page.getByRole('button', { name: 'Log in with Keyhold' }).click();
    await page.waitForURL(`${base}/ui/login/**`);
    await page.getByLabel('Username').fill('ops');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill('console through the login 17');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The console acts as its user on Keyhold's API: that is asked in plain words, once per sign-in.
    await page.getByText("Console asks to act as you on Keyhold's management API.").waitFor();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${base}/console/**`);
    // Signed in as that user, the code gone from the address bar.
    await expect.poll(async () => page.locator('#session').textContent(), { timeout: 10_000 }).toContain('Signed in as ops');
    expect(new URL(page.url()).search).toBe('');
    // The token the console holds is accepted by the API (it is for Keyhold's API).
    const token = await page.evaluate(() => sessionStorage.getItem('keyhold.console.token'));
    expect(token).toBeTruthy();
    const me = await fetch(`${base}/auth/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect((await me.json()).user.username).toBe('ops');
    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  }, 60_000);
});
