// The console's pages under axe-core (WCAG 2.1 A and AA), in headless
// Chromium, each in the state a person meets it: signed out, the lists, a
// project with its roles, grants and apps, the new-app sequence, an app's
// settings, a user with its grants and keys, the organizations, the
// organization's settings and identity providers, the audit log, a page that does not exist, and the
// same in German. No page may have a violation.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { axeViolations } from '../support/axe.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';

const skip = !chromiumAvailable();
announceChromiumSkip('the console under axe-core in Chromium');

describe.skipIf(skip)('the console under axe-core', () => {
  let kh: TestKeyhold;
  let chromium: Browser;
  const ids = { projectId: '', appId: '', userId: '' };

  beforeAll(async () => {
    const build = await import('../../console/build.mjs');
    if (build.isStale()) await build.buildConsole();
    [kh, chromium] = await Promise.all([startTestKeyhold(), launchChromium()]);
    ids.projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Shop' })).body.id;
    await kh.rest('POST', `/management/v1/projects/${ids.projectId}/roles`, { roleKey: 'editor', displayName: 'Editor', group: 'content' });
    const app = await kh.rest('POST', `/management/v1/projects/${ids.projectId}/apps/oidc`, { name: 'Shop web', redirectUris: ['https://shop.example.com/cb'] });
    ids.appId = app.body.appId;
    const user = await kh.rest('POST', '/v2/users/human', {
      username: 'ada',
      profile: { givenName: 'Ada', familyName: 'Lovelace' },
      email: { email: 'ada@example.com' },
      password: { password: 'a long and memorable passphrase', changeRequired: false },
    });
    ids.userId = user.body.userId;
    await kh.rest('POST', `/management/v1/users/${ids.userId}/grants`, { projectId: ids.projectId, roleKeys: ['editor'] });
    // The organization page lists a provider (and offers the form to add one).
    await kh.rest('POST', '/management/v1/idps/generic_oidc', { name: 'Company SSO', issuer: 'https://sso.example.com', clientId: 'c', clientSecret: 's', scopes: ['openid'] });
  }, 90_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
  });

  async function signedIn(locale: string): Promise<Page> {
    const context = await chromium.newContext({ locale, viewport: { width: 1100, height: 900 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto(`http://localhost:${kh.port}/console/`);
    await page.locator('#token').fill(kh.adminToken);
    await page.locator('form button[type=submit]').click();
    await page.locator('h1').filter({ hasNotText: /^$/ }).first().waitFor();
    return page;
  }

  /** Each page by its hash, once its heading is there and its data loaded. */
  const PAGES = () => [
    '#/projects',
    `#/projects/${ids.projectId}`,
    `#/projects/${ids.projectId}/apps/new`,
    `#/projects/${ids.projectId}/apps/${ids.appId}/edit`,
    '#/users',
    `#/users/${ids.userId}`,
    '#/orgs',
    '#/organization',
    '#/events',
    '#/no-such-page',
  ];

  for (const locale of ['en-US', 'de-DE']) {
    it(`signed out and every page signed in (${locale}): no violations`, async () => {
      const found: Record<string, string[]> = {};
      const context = await chromium.newContext({ locale });
      const out = await context.newPage();
      await out.goto(`http://localhost:${kh.port}/console/`);
      await out.locator('#token').waitFor();
      found['signed out'] = await axeViolations(out);
      await context.close();

      const page = await signedIn(locale);
      for (const hash of PAGES()) {
        await page.goto(`http://localhost:${kh.port}/console/${hash}`);
        await page.locator('main h1').first().waitFor();
        // Lists and forms filled in: nothing is still loading.
        await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
        await page.waitForLoadState('networkidle');
        found[hash] = await axeViolations(page);
      }
      await page.context().close();
      const violations = Object.entries(found).filter(([, v]) => v.length > 0);
      expect(Object.fromEntries(violations)).toEqual({});
      console.log(`[axe] console (${locale}): ${Object.keys(found).length} pages, no violations`);
    }, 120_000);
  }
});
