// The console for people who are not administrators, and its sign-out, in
// headless Chromium: a user with no role signs in through Keyhold's login and
// sees only "My account" (its names, the link to the account page, Sign out);
// "Sign out" revokes the console's token and ends the Keyhold login session, so
// the next "Log in with Keyhold" asks for the password again and the old token
// is refused by the API. An organization member who may only read sees the
// pages without a button it could not use.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Code } from '@connectrpc/connect';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokenType, ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';

const skip = !chromiumAvailable();
announceChromiumSkip('console account and sign-out in Chromium (test/console/console-account.test.ts)');

const PASSWORD = 'my own account only 23';

describe.skipIf(skip)('console: My account, sign-out, and no buttons a caller may not use', () => {
  let kh: TestKeyhold;
  let chromium: Browser;
  let outDir: string;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'keyhold-console-build-'));
    outDir = path.join(tmp, 'dist');
    const build = await import('../../console/build.mjs');
    await build.buildConsole({ outDir, minify: false });
    [kh, chromium] = await Promise.all([startTestKeyhold({ consoleDir: outDir }), launchChromium()]);
  }, 90_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await chromium?.close();
    await kh?.close();
    if (outDir) rmSync(path.dirname(outDir), { recursive: true, force: true });
    expect(pageErrors).toEqual([]);
  });

  const base = () => `http://localhost:${kh.port}`;

  async function newPage(): Promise<Page> {
    const context = await chromium.newContext({ locale: 'en-US', viewport: { width: 1100, height: 900 } });
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('dialog', (d) => void d.accept());
    return page;
  }

  it('a user without roles sees only My account; Sign out revokes the token and ends the login session', async () => {
    expect(
      (await kh.rest('POST', '/v2/users/human', { username: 'grace', profile: { givenName: 'Grace', familyName: 'Hopper' }, email: { email: 'grace@example.com' }, password: { password: PASSWORD, changeRequired: false } }))
        .status,
    ).toBe(200);
    const page = await newPage();
    const revocations: string[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/oauth/v2/revoke') revocations.push(req.postData() ?? '');
    });
    await page.goto(`${base()}/console/`);
    await page.getByRole('button', { name: 'Log in with Keyhold' }).click();
    await page.waitForURL(`${base()}/ui/login/**`);
    await page.getByLabel('Username').fill('grace');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${base()}/console/**`);

    // My account, and nothing of the administration.
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    expect(await page.getByTestId('my-name').textContent()).toBe('Grace Hopper');
    expect(await page.getByTestId('my-login-name').textContent()).toBe('grace');
    expect(await page.getByRole('link', { name: 'Open your account page' }).getAttribute('href')).toBe('/ui/account');
    expect(await page.locator('.topbar nav').isVisible()).toBe(false);
    expect(await page.getByTestId('header-org').count()).toBe(0);
    // An admin page asked for by address shows My account too, not a refusal.
    await page.goto(`${base()}/console/#/users`);
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    expect(await page.locator('table, form, .error').count()).toBe(0);

    const token = await page.evaluate(() => sessionStorage.getItem('keyhold.console.token'));
    expect(token).toBeTruthy();
    expect((await fetch(`${base()}/auth/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

    // Sign out: the token revoked at the revocation endpoint, then Keyhold's sign-out page.
    await page.getByTestId('account-sign-out').click();
    await page.waitForURL(`${base()}/oidc/v1/end_session**`);
    expect(revocations.some((body) => new URLSearchParams(body).get('token') === token)).toBe(true);
    expect((await fetch(`${base()}/auth/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base()}/console/**`);
    await page.getByText('your login session has ended').waitFor();
    expect(new URL(page.url()).search).toBe('');
    expect(await page.evaluate(() => ['token', 'oidc', 'logout'].map((k) => sessionStorage.getItem(`keyhold.console.${k}`)))).toEqual([null, null, null]);

    // Logging in again asks who and the password: the login session is gone.
    await page.getByRole('button', { name: 'Log in with Keyhold' }).click();
    await page.waitForURL(`${base()}/ui/login/**`);
    const username = page.getByLabel('Username');
    const password = page.getByLabel('Password');
    await username.or(password).first().waitFor();
    if (await username.isVisible()) {
      await username.fill('grace');
      await page.getByRole('button', { name: 'Next' }).click();
    }
    await password.waitFor();
    expect(new URL(page.url()).pathname.startsWith('/console')).toBe(false);
    // The old token stays refused.
    expect((await fetch(`${base()}/auth/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  }, 60_000);

  it('an organization member who may only read sees no button to create, change, lock or remove', async () => {
    const mgmt = kh.client(ManagementService);
    const { id: projectId } = await mgmt.addProject({ name: 'Read only project' });
    await mgmt.addOIDCApp({ projectId, name: 'Some app', redirectUris: ['https://app.example.com/cb'] });
    await mgmt.addProjectRole({ projectId, roleKey: 'reader', displayName: 'Reader' });
    const { userId } = await mgmt.addMachineUser({ userName: 'viewer-bot', name: 'Viewer', accessTokenType: AccessTokenType.BEARER });
    await mgmt.addOrgMember({ userId, roles: ['ORG_OWNER_VIEWER'] });
    const { token } = await mgmt.addPersonalAccessToken({ userId });

    const page = await newPage();
    await page.goto(`${base()}/console/`);
    await page.locator('#token').fill(token);
    await page.locator('form button[type=submit]').click();
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    await page.locator('[data-testid=projects] a', { hasText: 'Read only project' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create project' }).count()).toBe(0);

    // The project: its apps, roles, members and settings readable; nothing to press but "details".
    await page.locator('[data-testid=projects] a', { hasText: 'Read only project' }).click();
    await page.getByRole('heading', { level: 1, name: 'Read only project' }).waitFor();
    await page.locator('details.app[data-app-name="Some app"] summary').click();
    await page.locator('[data-testid=roles] tr[data-role=reader]').waitFor();
    const main = page.locator('main');
    for (const name of ['New OIDC application', 'Edit application', 'Remove application', 'Deactivate application', 'Add role', 'Add member', 'Save settings', 'Deactivate project', 'Remove project']) {
      expect(await main.getByRole('button', { name, exact: true }).or(main.getByRole('link', { name, exact: true })).count(), name).toBe(0);
    }
    expect(await page.locator('[data-testid=project-roles] button').count()).toBe(0);
    // Everything it may read was read: no refusal on the page.
    expect(await page.locator('main .error').count()).toBe(0);
    // And what the buttons would do, the server refuses to it anyway.
    await expect(kh.client(ManagementService, 'grpc', token).addProject({ name: 'Not mine to make' })).rejects.toMatchObject({ code: Code.PermissionDenied });
    await expect(kh.client(ManagementService, 'grpc', token).deactivateProject({ id: projectId })).rejects.toMatchObject({ code: Code.PermissionDenied });

    // Users: listed, without Lock / Deactivate / Remove and without the forms to create one.
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.locator('[data-testid=users] tr', { hasText: 'viewer-bot' }).waitFor();
    expect(await page.locator('[data-testid=users] table button').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Lock|Deactivate|Remove) / }).count()).toBe(0);
    for (const name of ['Create user', 'Create machine user']) {
      expect(await main.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    }
    // A user's page: no lifecycle buttons, no key to add.
    await page.locator('[data-testid=users] a', { hasText: 'viewer-bot' }).click();
    await page.getByRole('heading', { level: 1, name: 'Viewer' }).waitFor();
    for (const name of ['Lock user', 'Deactivate user', 'Remove user', 'Add security key']) {
      expect(await main.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    }
    // Its tokens, grants and metadata listed, with nothing to create, grant, set or revoke.
    await page.locator('[data-testid=pat-section]').waitFor();
    expect(await page.locator('[data-testid=pat-section] button, [data-testid=user-roles] button, [data-testid=metadata] button').count()).toBe(0);
    expect(await page.locator('main .error').count()).toBe(0);

    // The organization: policies and members shown, no save, no member to add.
    await page.getByRole('link', { name: 'Organization', exact: true }).click();
    await page.locator('[data-testid=org-members] tr', { hasText: 'viewer-bot' }).waitFor();
    expect(await page.locator('[data-testid=login-policy] button, [data-testid=lockout-policy] button, [data-testid=org-members] button').count()).toBe(0);
    // And no organization to create (only an instance-wide role may).
    await page.getByRole('link', { name: 'Organizations', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Organizations' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create organization' }).count()).toBe(0);

    // The administrator, for contrast, has every one of them.
    const admin = await newPage();
    await admin.goto(`${base()}/console/#/projects/${projectId}`);
    await admin.locator('#token').fill(kh.adminToken);
    await admin.locator('form button[type=submit]').click();
    await admin.getByRole('heading', { level: 1, name: 'Read only project' }).waitFor();
    for (const name of ['Add role', 'Add member', 'Save settings', 'Deactivate project', 'Remove project']) {
      expect(await admin.locator('main').getByRole('button', { name, exact: true }).count(), name).toBe(1);
    }
    expect(await admin.getByRole('link', { name: 'New OIDC application' }).count()).toBe(1);
  }, 60_000);
});
