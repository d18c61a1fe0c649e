// The organization's identity providers in the console, in headless Chromium:
// an OpenID Connect provider added with the form (an http issuer first refused
// at its field), listed with the redirect URI to register (from the issuer,
// never the secret), an OAuth 2.0 provider's own fields, and a provider
// removed. What the page shows is what the API then answers.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';

const skip = !chromiumAvailable();
announceChromiumSkip('identity providers in the console (Chromium)');
const SECRET = 'console-typed-secret-never-shown';

describe.skipIf(skip)('identity providers in the console', () => {
  let kh: TestKeyhold;
  let chromium: Browser;

  beforeAll(async () => {
    const build = await import('../../console/build.mjs');
    if (build.isStale()) await build.buildConsole();
    [kh, chromium] = await Promise.all([startTestKeyhold(), launchChromium()]);
  }, 90_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
  });

  async function organizationPage(): Promise<Page> {
    const context = await chromium.newContext({ locale: 'en-US', viewport: { width: 1100, height: 900 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    await page.goto(`http://localhost:${kh.port}/console/`);
    await page.getByLabel('Personal access token').fill(kh.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    await page.goto(`http://localhost:${kh.port}/console/#/organization`);
    await page.getByRole('heading', { level: 2, name: 'Identity providers' }).waitFor();
    return page;
  }

  it('adds an OpenID Connect provider (an http issuer refused at its field), lists its redirect URI, never the secret, and removes it', async () => {
    const page = await organizationPage();
    const section = page.getByTestId('identity-providers');
    await section.getByText('No identity providers of this organization.').waitFor();
    const form = page.getByTestId('idp-add');
    await form.locator('input[name=name]').fill('Company SSO');
    await form.getByLabel('Issuer').fill('http://sso.example.com');
    await form.getByLabel('Client ID').fill('keyhold');
    await form.getByLabel('Client secret').fill(SECRET);
    await form.getByLabel('A first sign-in may create an account').check();
    await form.getByRole('button', { name: 'Add identity provider' }).click();
    await form.locator('[data-field=issuer][aria-invalid=true]').waitFor();
    await form.getByLabel('Issuer').fill('https://sso.example.com');
    await form.getByRole('button', { name: 'Add identity provider' }).click();
    const row = section.locator('tr[data-idp="Company SSO"]');
    await row.waitFor();
    const { result } = await kh.client(ManagementService, 'grpc', kh.adminToken).listProviders({});
    const added = result.find((p) => p.name === 'Company SSO')!;
    expect(added.config?.options?.isCreationAllowed).toBe(true);
    expect(await row.getByTestId('idp-callback').textContent()).toBe(`${kh.issuer}/ui/login/idp/${added.id}/callback`);
    expect(await page.content()).not.toContain(SECRET);
    expect(await form.getByLabel('Client secret').inputValue()).toBe('');

    // The OAuth 2.0 kind asks for its endpoints and id field instead of an issuer.
    await form.getByLabel('Kind').selectOption('oauth');
    expect(await form.getByLabel('Issuer').isVisible()).toBe(false);
    await form.locator('input[name=name]').fill('GitHub');
    await form.getByLabel('Authorization endpoint').fill('https://github.com/login/oauth/authorize');
    await form.getByLabel('Token endpoint').fill('https://github.com/login/oauth/access_token');
    await form.getByLabel('Userinfo endpoint').fill('https://api.github.com/user');
    await form.getByLabel('Id field').fill('id');
    await form.getByLabel('Client ID').fill('gh');
    await form.getByLabel('Client secret').fill(SECRET);
    await form.getByLabel('Scopes').fill('read:user user:email');
    await form.getByRole('button', { name: 'Add identity provider' }).click();
    await section.locator('tr[data-idp="GitHub"]').getByText('OAuth 2.0').waitFor();

    await section.getByRole('button', { name: 'Remove identity provider Company SSO' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await kh.client(ManagementService, 'grpc', kh.adminToken).listProviders({})).result.map((p) => p.name)).toEqual(['GitHub']);
    await page.context().close();
  }, 60_000);
});
