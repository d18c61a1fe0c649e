// Keyhold's API as a protected resource, in Chromium with the real console
// login: a tenant's org owner registers an app with its own redirect URI (its
// backend: a local server here) and gets the instance owner, signed in to the
// console, to open one link asking for the API scope. The backend must get no
// code that redeems to a token for Keyhold's API — not silently, not at all
// while the app is not allowed. Then the instance owner allows the app with the
// console's switch (which the tenant's owner sees disabled), and the same link
// shows a consent page naming the app instead of answering a code.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';

const skip = !chromiumAvailable();
announceChromiumSkip('the API audience in Chromium with the console login');

const API = 'urn:keyhold:iam:api:aud';
const ADMIN_PASSWORD = 'the instance owner in the console 28';

describe.skipIf(skip)('console: a tenant app asking for Keyhold\u2019s API', () => {
  let kh: TestKeyhold;
  let chromium: Browser;
  let outDir: string;
  let base: string;
  /** The tenant's backend: every request the browser brings it, and what it could redeem. */
  let backend: http.Server;
  let redirectUri: string;
  const arrivals: URL[] = [];
  const tenant = {} as { orgId: string; ownerToken: string; projectId: string; appId: string; clientId: string; appName: string };
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'keyhold-console-build-'));
    outDir = path.join(tmp, 'dist');
    const build = await import('../../console/build.mjs');
    await build.buildConsole({ outDir, minify: false });
    backend = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', redirectUri);
      // Only the redirect URI counts (the browser asks for a favicon too).
      if (url.pathname === '/cb') arrivals.push(url);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('tenant backend');
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(backend.address() as AddressInfo).port}/cb`;
    [kh, chromium] = await Promise.all([startTestKeyhold({ consoleDir: outDir }), launchChromium()]);
    base = `http://localhost:${kh.port}`;

    const [adminRow] = await kh.database.sql.query<{ id: string }>({ text: "select id from users where username = 'keyhold-admin'", params: [] });
    expect((await kh.rest('POST', `/v2/users/${adminRow!.id}/password`, { newPassword: { password: ADMIN_PASSWORD, changeRequired: false } })).status).toBe(200);
    // The tenant: an org, its owner (a machine user with a token), and the owner's app.
    tenant.orgId = (await kh.rest('POST', '/v2/organizations', { name: 'Tenant' })).body.organizationId;
    const inTenant = { 'x-service-orgid': tenant.orgId };
    const owner = (await kh.rest('POST', '/management/v1/users/machine', { userName: 'tenant.owner', name: 'Tenant owner' }, inTenant)).body.userId;
    await kh.rest('POST', '/management/v1/orgs/me/members', { userId: owner, roles: ['ORG_OWNER'] }, inTenant);
    tenant.ownerToken = (await kh.rest('POST', `/management/v1/users/${owner}/pats`, {}, inTenant)).body.token;
    const asOwner = { authorization: `Bearer ${tenant.ownerToken}` };
    tenant.projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Tenant tools' }, asOwner)).body.id;
    tenant.appName = 'Helpful dashboard';
    const app = await kh.rest(
      'POST',
      `/management/v1/projects/${tenant.projectId}/apps/oidc`,
      { name: tenant.appName, redirectUris: [redirectUri], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true },
      asOwner,
    );
    expect(app.status).toBe(200);
    [tenant.appId, tenant.clientId] = [app.body.appId, app.body.clientId];
  }, 90_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await chromium?.close();
    await kh?.close();
    await new Promise((resolve) => backend?.close(resolve));
    if (outDir) rmSync(path.dirname(outDir), { recursive: true, force: true });
  });

  async function newPage(): Promise<Page> {
    const context = await chromium.newContext({ locale: 'en-US', viewport: { width: 1100, height: 900 } });
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    return page;
  }

  /** The instance owner signs in to the console through Keyhold's login, allowing the console once. */
  async function instanceOwnerInConsole(): Promise<Page> {
    const page = await newPage();
    await page.goto(`${base}/console/`);
    await page.getByRole('button', { name: 'Log in with Keyhold' }).click();
    await page.getByLabel('Username').fill('keyhold-admin');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The console's consent page (test/console/console-login.test.ts shows it comes every sign-in).
    const allow = page.getByRole('button', { name: 'Allow' });
    await Promise.race([allow.waitFor(), page.waitForURL(`${base}/console/**`)]);
    if (await allow.isVisible()) await allow.click();
    await expect.poll(async () => page.locator('#session').textContent(), { timeout: 10_000 }).toContain('Signed in as keyhold-admin');
    return page;
  }

  /** The tenant's link: the code flow with PKCE for its app, asking for the API scope. */
  async function tenantLink(extra: Record<string, string> = {}) {
    const config = await oidc.discovery(new URL(base), tenant.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: `openid profile ${API}`,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...extra,
    });
    return { config, verifier, url };
  }

  /** What the tenant's backend makes of an arrival: the error it was sent, or the roles the redeemed token holds at the API. */
  async function backendOutcome(link: Awaited<ReturnType<typeof tenantLink>>, arrival: URL): Promise<string> {
    if (arrival.searchParams.has('error')) return `error=${arrival.searchParams.get('error')}`;
    const tokens = await oidc.authorizationCodeGrant(link.config, arrival, { pkceCodeVerifier: link.verifier });
    const me = await kh.rest('GET', '/auth/v1/users/me', undefined, { authorization: `Bearer ${tokens.access_token}` });
    return `API token with roles ${JSON.stringify(me.body.roles)}`;
  }

  async function openLink(page: Page, link: Awaited<ReturnType<typeof tenantLink>>): Promise<string | undefined> {
    const before = arrivals.length;
    await page.goto(link.url.href);
    await page.waitForLoadState('load');
    if (arrivals.length === before) return undefined;
    return backendOutcome(link, arrivals[arrivals.length - 1]!);
  }

  it('the tenant\u2019s link, opened by the signed-in instance owner, yields no token for Keyhold\u2019s API', async () => {
    const page = await instanceOwnerInConsole();
    // Silently (prompt=none) and not: the app is not allowed the scope, so nothing is asked and no code is sent.
    expect(await openLink(page, await tenantLink({ prompt: 'none' }))).toBe('error=invalid_scope');
    expect(await openLink(page, await tenantLink())).toBe('error=invalid_scope');
    // The console still works for its user.
    await page.goto(`${base}/console/#/projects`);
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
  }, 90_000);

  it('the instance owner allows it with the console\u2019s switch; the link then shows a consent page naming the app, never a silent code', async () => {
    // The tenant's owner sees its app's switch, disabled, and why.
    const ownerPage = await newPage();
    await ownerPage.goto(`${base}/console/`);
    await ownerPage.getByLabel('Personal access token').fill(tenant.ownerToken);
    await ownerPage.getByRole('button', { name: 'Sign in' }).click();
    await ownerPage.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    await ownerPage.goto(`${base}/console/#/projects/${tenant.projectId}`);
    await ownerPage.locator(`details[data-app-name="${tenant.appName}"] summary`).click();
    const ownerSwitch = ownerPage.getByRole('switch', { name: 'Keyhold API access' });
    expect([await ownerSwitch.isDisabled(), await ownerSwitch.isChecked()]).toEqual([true, false]);
    await ownerPage.getByText('Only an instance administrator (IAM_OWNER) can change this.').first().waitFor();

    // The instance owner, in the tenant's org, turns it on (a confirmation first).
    const page = await instanceOwnerInConsole();
    await page.getByRole('link', { name: 'Organizations' }).click();
    await page.getByRole('button', { name: 'Switch to Tenant' }).click();
    await page.locator('[data-testid=header-org]', { hasText: 'in Tenant' }).waitFor();
    await page.goto(`${base}/console/#/projects/${tenant.projectId}`);
    await page.locator(`details[data-app-name="${tenant.appName}"] summary`).click();
    const allow = page.getByRole('switch', { name: 'Keyhold API access' });
    expect([await allow.isDisabled(), await allow.isChecked()]).toEqual([false, false]);
    await allow.click();
    await expect.poll(async () => (await kh.rest('GET', `/management/v1/projects/${tenant.projectId}/apps/${tenant.appId}`, undefined, { 'x-service-orgid': tenant.orgId })).body.app.apiAccessAllowed).toBe(true);
    // The edit page shows it too, on.
    await page.goto(`${base}/console/#/projects/${tenant.projectId}/apps/${tenant.appId}/edit`);
    expect(await page.getByRole('switch', { name: 'Keyhold API access' }).isChecked()).toBe(true);

    // Silently: consent_required. Otherwise: Keyhold's consent page, naming the app and what it would do.
    expect(await openLink(page, await tenantLink({ prompt: 'none' }))).toBe('error=consent_required');
    const before = arrivals.length;
    await page.goto((await tenantLink()).url.href);
    await page.getByRole('heading', { name: `${tenant.appName} asks for access` }).waitFor();
    await page.getByText(`${tenant.appName} asks to act as you on Keyhold's management API.`).waitFor();
    await page.getByText("act as you on Keyhold's management API, with every role you hold").waitFor();
    expect(arrivals.length).toBe(before);
    // Denied: the backend hears access_denied.
    const link = await tenantLink();
    await page.goto(link.url.href);
    await page.getByRole('button', { name: 'Deny' }).click();
    await expect.poll(() => arrivals.length).toBe(before + 1);
    expect(await backendOutcome(link, arrivals[arrivals.length - 1]!)).toBe('error=access_denied');
  }, 120_000);
});
