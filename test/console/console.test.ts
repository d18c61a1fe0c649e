// The console in a real browser: Debian's Chromium (playwright-core) drives
// http://localhost:<port>/console/ of a started Keyhold. Sign-in with the
// bootstrap PAT, projects, the new-application steps with the server's field
// violations, the issuer and discovery URL after creation, compliance reports
// in English and German, a client secret shown once, new users by invitation or
// with an initial password, and a security key added by the user in the user's
// own browser from an invitation (CDP virtual authenticator): the
// administrator's browser never runs the ceremony.
// Every API call is recorded: it must travel as application/grpc-web+proto.
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { U2FState, UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { complianceMessage } from '../../src/domain/oidc/compliance-messages.js';
import { addVirtualAuthenticator, announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { repoRoot, startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { recordScreenshots, SCREENSHOT_DIR, screenshotsDue } from '../support/screenshots.js';

const available = chromiumAvailable();
if (!available) announceChromiumSkip('console in a real browser (test/console/console.test.ts)');

// Screenshots go to docs/screenshots/ (shown in the README) when the console's sources changed
// since the committed ones were taken, or with UPDATE_SCREENSHOTS=1 (support/screenshots.ts);
// to test-results/ otherwise.
const REFRESH_SCREENSHOTS = screenshotsDue();
const SCREENSHOTS = REFRESH_SCREENSHOTS ? SCREENSHOT_DIR : path.join(repoRoot, 'test-results/screenshots');
const SCREENSHOT_NAMES = ['app-created.png', 'security-keys.png'];
const taken = new Set<string>();
const NATIVE_URI = 'http://example.com/cb';

interface ApiCall {
  method: string;
  path: string;
  requestType: string | undefined;
  responseType?: string | null;
  failure?: string;
  acceptLanguage: string | undefined;
  authorization: string | undefined;
  url: string;
}

describe.skipIf(!available)('Keyhold console in headless Chromium', () => {
  let kh: TestKeyhold;
  let browser: Browser;
  const calls: ApiCall[] = [];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    // The bundle under test is the current source (npm install built it; rebuild when stale).
    const build = await import('../../console/build.mjs');
    if (build.isStale()) await build.buildConsole();
    mkdirSync(SCREENSHOTS, { recursive: true });
    [kh, browser] = await Promise.all([startTestKeyhold(), launchChromium()]);
  });
  afterAll(async () => {
    // Only a complete set is recorded as current: a run that failed halfway refreshes again next time.
    if (REFRESH_SCREENSHOTS && SCREENSHOT_NAMES.every((n) => taken.has(n))) recordScreenshots();
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await kh?.close();
  });

  const consoleUrl = () => `http://localhost:${kh.port}/console/`;

  /** A new page (own context, so own sessionStorage) that records every API call. */
  async function newPage(locale = 'en-US'): Promise<Page> {
    const context = await browser.newContext({ locale, viewport: { width: 1100, height: 900 } });
    contexts.push(context);
    context.setDefaultTimeout(8_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://localhost:${kh.port}` });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    const byRequest = new Map<Request, ApiCall>();
    page.on('request', (req) => {
      const url = new URL(req.url());
      // The console's own files, and the discovery document it reads for the issuer after creating an app: not API calls.
      if (url.pathname.startsWith('/console') || url.pathname === '/.well-known/openid-configuration') return;
      const headers = req.headers();
      const call: ApiCall = {
        method: req.method(),
        path: url.pathname,
        requestType: headers['content-type'],
        acceptLanguage: headers['accept-language'],
        authorization: headers['authorization'],
        url: req.url(),
      };
      byRequest.set(req, call);
      calls.push(call);
    });
    page.on('response', async (res: Response) => {
      const call = byRequest.get(res.request());
      if (call) call.responseType = await res.headerValue('content-type');
    });
    // A call the browser gave up (the page navigated or closed under it) has no answer to check.
    page.on('requestfailed', (req: Request) => {
      const call = byRequest.get(req);
      if (call) call.failure = req.failure()?.errorText ?? 'failed';
    });
    return page;
  }

  async function signIn(page: Page): Promise<void> {
    await page.goto(consoleUrl());
    await page.getByLabel('Personal access token').fill(kh.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
  }

  const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? '').trim();

  it('is served at /console/ as static files: no-cache index, hashed assets, content types, CSP, nothing else', async () => {
    const base = `http://localhost:${kh.port}`;
    const redirect = await fetch(`${base}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('/console/');

    const index = await fetch(`${base}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toContain("form-action 'none'");
    const html = await index.text();
    const script = /src="(app-[A-Z0-9]{8}\.js)"/.exec(html)?.[1];
    const styles = /href="(styles-[A-Z0-9]{8}\.css)"/.exec(html)?.[1];
    expect(script && styles).toBeTruthy();

    const js = await fetch(`${base}/console/${script}`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    const css = await fetch(`${base}/console/${styles}`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');

    for (const probe of ['/console/.build-stamp', '/console/..%2Fpackage.json', '/console/missing-ABCDEFGH.js', '/console/build.mjs']) {
      expect((await fetch(base + probe)).status, probe).toBe(404);
    }
  });

  it('signs in with the bootstrap PAT, creates a project and apps: violations at their fields, compliance in English, a secret shown once', async () => {
    const page = await newPage('en-US');
    await page.goto(consoleUrl());
    // A wrong token is refused in words, and nothing is kept.
    await page.getByLabel('Personal access token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#token-error:not([hidden])').waitFor();
    expect(await text(page, '#token-error')).toMatch(/did not accept this token/);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    await page.getByLabel('Personal access token').fill(kh.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('keyhold.console.token'))).toBe(kh.adminToken);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    // Projects: create one; the console opens it.
    await page.getByLabel('Project name').fill('Console project');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { level: 1, name: 'Console project' }).waitFor();
    await page.getByRole('link', { name: 'Projects', exact: true }).first().click();
    await page.locator('[data-testid=projects] a', { hasText: 'Console project' }).waitFor();

    // New application, step by step: what is missing is said at the field before the next step.
    await page.locator('[data-testid=projects] a', { hasText: 'Console project' }).click();
    await page.getByRole('link', { name: 'New OIDC application' }).click();
    await page.getByRole('heading', { level: 1, name: 'New OIDC application' }).waitFor();
    const next = page.getByTestId('step-next');
    await next.click();
    for (const field of ['name', 'appType']) await page.locator(`.field-error[data-error-for="${field}"]`).waitFor();
    const nameInput = page.getByRole('textbox', { name: 'Name', exact: true });
    await nameInput.fill('Native app');
    await page.getByRole('radio', { name: 'Native or mobile app' }).check();
    await next.click();
    // How it signs in: a native app starts at "no secret"; a secret is allowed, with the advice against it.
    await page.getByRole('heading', { level: 2, name: 'How does it sign in?' }).waitFor();
    expect(await page.getByRole('radio', { name: 'No secret: PKCE (recommended)' }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: 'Client secret, in the Authorization header' }).check();
    expect(await text(page, '.advice')).toMatch(/cannot keep a secret/);
    expect(await page.locator('main').textContent()).not.toMatch(/OIDC_[A-Z_]+/);
    await next.click();
    // Its addresses: the native app's hint; none given is refused before the review.
    await page.getByRole('heading', { level: 2, name: 'Where does Keyhold send people back?' }).waitFor();
    expect(await text(page, '[data-testid=uri-hint]')).toMatch(/own scheme .* loopback/);
    await next.click();
    await page.locator('.field-error[data-error-for="redirectUris"]').waitFor();
    await page.getByRole('button', { name: 'Add redirect URI' }).click();
    // Row 1 stays empty (not sent), row 2 is bad: the server's redirectUris[0] must land on row 2.
    await page.getByRole('textbox', { name: 'Redirect URI 2', exact: true }).fill('not-a-uri');
    await next.click();
    // The review: everything that will be sent, in words; the rest under "Advanced".
    await page.getByRole('heading', { level: 2, name: 'Review' }).waitFor();
    expect(await text(page, '[data-testid=review-kind]')).toBe('Native or mobile app');
    expect(await text(page, '[data-testid=review-method]')).toBe('Client secret, in the Authorization header');
    expect(await page.locator('[data-testid=review]').textContent()).toContain('not-a-uri');
    await page.locator('[data-testid=advanced] summary').click();
    await page.getByLabel('Clock skew (seconds)').fill('9');
    await page.getByRole('button', { name: 'Create application' }).click();
    // Refused: every step opens, each refusal next to its field.
    await page.locator('.error-summary').waitFor();
    for (const field of ['redirectUris[1]', 'clockSkew']) {
      await page.locator(`.field-error[data-error-for="${field}"]`).waitFor();
    }
    expect(await page.locator('.field-error').count()).toBe(2);
    expect(await nameInput.isVisible()).toBe(true);
    // Next to the field: the error sits in the list item of row 2.
    const row2 = page.locator('li', { has: page.getByRole('textbox', { name: 'Redirect URI 2', exact: true }) });
    expect(await row2.locator('.field-error').textContent()).toMatch(/^Error: Redirect URI 2 must be an absolute URI/);
    expect(await page.getByRole('textbox', { name: 'Redirect URI 2', exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.classList.contains('error-summary'))).toBe(true);

    // Fixed: a NATIVE app with a secret and a plain-http non-loopback redirect → two compliance problems.
    await page.getByRole('textbox', { name: 'Redirect URI 2', exact: true }).fill(NATIVE_URI);
    await page.getByLabel('Clock skew (seconds)').fill('0.5');
    await page.getByRole('button', { name: 'Create application' }).click();
    await page.locator('[data-testid=app-created]').waitFor();
    expect(await page.locator('.field-error').count()).toBe(0);
    expect(await text(page, '[data-testid=compliance-status]')).toBe('Not compliant');
    const problems = page.locator('[data-testid=compliance] li');
    expect(await problems.count()).toBe(2);
    expect(await text(page, 'li[data-key="Application.OIDC.V1.Native.RedirectUris.MustBeHttpLocalhost"] .problem-message')).toBe(
      complianceMessage('Native.RedirectUris.MustBeHttpLocalhost', 'en', NATIVE_URI),
    );
    expect(await text(page, 'li[data-key="Application.OIDC.V1.Native.AuthMethodType.NotNone"] .problem-message')).toBe(
      complianceMessage('Native.AuthMethodType.NotNone', 'en'),
    );
    expect(await text(page, 'p[data-key="Application.OIDC.V1.NotCompliant"]')).toBe(complianceMessage('NotCompliant', 'en'));
    expect(await page.locator('[data-testid=client-secret]').inputValue()).toMatch(/^[A-Za-z0-9]{64}$/);
    // What a developer needs next: the issuer and the discovery document, as Keyhold announces them.
    const discovery = (await (await fetch(`http://localhost:${kh.port}/.well-known/openid-configuration`)).json()) as { issuer: string };
    expect(await page.locator('input[data-testid=issuer]').inputValue()).toBe(discovery.issuer);
    expect(await page.locator('input[data-testid=discovery-url]').inputValue()).toBe(`${discovery.issuer}/.well-known/openid-configuration`);
    await page.getByRole('button', { name: 'Copy Discovery document' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${discovery.issuer}/.well-known/openid-configuration`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'app-created.png'), fullPage: true });
    expect(statSync(path.join(SCREENSHOTS, 'app-created.png')).size).toBeGreaterThan(10_000);
    taken.add('app-created.png');

    // A web app: the secret in the header is its default; the secret once, with a copy button and the warning.
    await page.getByRole('button', { name: 'Create another application' }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Web app');
    await page.getByRole('radio', { name: 'Web app with a server' }).check();
    await next.click();
    expect(await page.getByRole('radio', { name: 'Client secret, in the Authorization header (recommended)' }).isChecked()).toBe(true);
    await next.click();
    expect(await text(page, '[data-testid=uri-hint]')).toMatch(/https/);
    // The kind's hint as the address is typed: an own scheme is a native app's.
    await page.getByRole('textbox', { name: 'Redirect URI 1', exact: true }).fill('com.example.app:/callback');
    await page.locator('.live-hint', { hasText: 'Own schemes are for native apps' }).waitFor();
    await page.getByRole('textbox', { name: 'Redirect URI 1', exact: true }).fill('https://app.example.com/callback');
    await page.locator('.live-hint', { hasText: 'Own schemes' }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Add origin' }).click();
    await page.getByRole('textbox', { name: 'Origin 1', exact: true }).fill('https://app.example.com');
    await next.click();
    await page.getByRole('button', { name: 'Create application' }).click();
    await page.locator('[data-testid=app-created]').waitFor();
    const secret = await page.locator('[data-testid=client-secret]').inputValue();
    expect(secret).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(await text(page, '[data-testid=secret-once] .warning')).toMatch(/you will not see this again/);
    expect(await text(page, '[data-testid=compliance-status]')).toMatch(/^Compliant/);
    await page.getByRole('button', { name: 'Copy client secret' }).click();
    await page.locator('[data-testid=secret-once] .copy-status', { hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    const clientId = await page.locator('input[data-testid=client-id]').inputValue();

    // The apps list: details, and the secret is nowhere any more.
    await page.getByRole('link', { name: 'Back to Console project' }).click();
    await page.locator('details.app').nth(1).waitFor();
    expect(await page.locator('details.app').count()).toBe(2);
    const web = page.locator('details.app[data-app-name="Web app"]');
    await web.locator('summary').click();
    expect(await web.locator('[data-testid=client-id]').textContent()).toBe(clientId);
    expect(await web.textContent()).toContain('https://app.example.com/callback');
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await page.locator('details.app').nth(1).waitFor();
    expect(await page.content()).not.toContain(secret);

    // Regenerate: a new secret, shown once in place.
    await web.locator('summary').click();
    page.once('dialog', (d) => void d.accept());
    await web.getByRole('button', { name: 'Regenerate secret' }).click();
    await web.locator('[data-testid=client-secret]').waitFor();
    const regenerated = await web.locator('[data-testid=client-secret]').inputValue();
    expect(regenerated).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(regenerated).not.toBe(secret);

    // Remove the native app.
    const native = page.locator('details.app[data-app-name="Native app"]');
    await native.locator('summary').click();
    page.once('dialog', (d) => void d.accept());
    await native.getByRole('button', { name: 'Remove application' }).click();
    await page.getByRole('heading', { name: 'Applications (1)' }).waitFor();
    const projectId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
    const { result } = await kh.client(ManagementService).listApps({ projectId });
    expect(result.map((a) => a.name)).toEqual(['Web app']);
  });

  it('shows the compliance problems in German for a German browser', async () => {
    const { id: projectId } = await kh.client(ManagementService).addProject({ name: 'Projekt' });
    const page = await newPage('de-DE');
    // The console itself speaks German to a German browser (console/src/i18n.ts).
    await page.goto(consoleUrl());
    await page.getByLabel('Pers\u00f6nliches Zugriffstoken').fill(kh.adminToken);
    await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Projekte' }).waitFor();
    await page.goto(`${consoleUrl()}#/projects/${projectId}/apps/new`);
    await page.getByRole('heading', { level: 1, name: 'Neue OIDC-Anwendung' }).waitFor();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Native App');
    await page.getByRole('radio', { name: 'Native oder mobile App' }).check();
    await page.getByRole('button', { name: 'Weiter', exact: true }).click();
    await page.getByRole('radio', { name: 'Client-Geheimnis im Authorization-Header' }).check();
    await page.getByRole('button', { name: 'Weiter', exact: true }).click();
    await page.getByRole('textbox', { name: 'Weiterleitungs-URI 1', exact: true }).fill(NATIVE_URI);
    await page.getByRole('button', { name: 'Weiter', exact: true }).click();
    await page.getByRole('heading', { level: 2, name: '\u00dcberpr\u00fcfen' }).waitFor();
    await page.getByRole('button', { name: 'Anwendung anlegen' }).click();
    await page.locator('[data-testid=app-created]').waitFor();
    expect(await page.locator('[data-testid=compliance] li').count()).toBe(2);
    const localhost = complianceMessage('Native.RedirectUris.MustBeHttpLocalhost', 'de', NATIVE_URI);
    const notNone = complianceMessage('Native.AuthMethodType.NotNone', 'de');
    expect(localhost).not.toBe(complianceMessage('Native.RedirectUris.MustBeHttpLocalhost', 'en', NATIVE_URI));
    expect(await text(page, 'li[data-key="Application.OIDC.V1.Native.RedirectUris.MustBeHttpLocalhost"] .problem-message')).toBe(localhost);
    expect(await text(page, 'li[data-key="Application.OIDC.V1.Native.AuthMethodType.NotNone"] .problem-message')).toBe(notNone);
    const addApp = calls.filter((c) => c.path.endsWith('/AddOIDCApp') && c.acceptLanguage?.startsWith('de'));
    expect(addApp.length).toBe(1);
  });

  /** The invited person's own browser: another context, not the administrator's (its requests are not the console's). */
  async function personsPage(): Promise<Page> {
    const context = await browser.newContext({ locale: 'en-US' });
    contexts.push(context);
    context.setDefaultTimeout(8_000);
    return context.newPage();
  }

  it('creates a user with an initial password, invites it to add a security key; the user adds it in their own browser, the admin never runs the ceremony', async () => {
    const page = await newPage('en-US');
    await signIn(page);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Given name').fill('Ada');
    await page.getByLabel('Family name').fill('Lovelace');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Set an initial password').check();
    await page.getByLabel('Initial password', { exact: true }).fill('analytical engine 1843');
    await page.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('heading', { level: 1, name: 'Ada Lovelace' }).waitFor();
    const userId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
    expect(await text(page, '[data-testid=no-keys]')).toBe('No security keys yet.');
    // The admin's browser has no ceremony to run: only the invitation.
    expect(await page.getByRole('button', { name: 'Add security key' }).count()).toBe(0);
    const adminAuthenticator = await addVirtualAuthenticator(page, { protocol: 'ctap2' });

    await page.getByRole('button', { name: 'Invite to add a security key' }).click();
    // No mail server here: the link to hand over, from the server (its issuer).
    const link = await page.locator('[data-testid=invite-link]').inputValue();
    expect(link).toMatch(new RegExp(`^http://localhost:${kh.port}/ui/invite\\?user=${userId}&code=[0-9a-z-]{23}$`));

    // Ada opens it in her own browser: her password, then her key.
    const ada = await personsPage();
    const authenticator = await addVirtualAuthenticator(ada, { protocol: 'ctap2' });
    await ada.goto(link);
    await ada.getByRole('heading', { name: 'Add your security key' }).waitFor();
    await ada.getByLabel('Password').fill('wrong password here');
    await ada.getByRole('button', { name: 'Add the key' }).click();
    await ada.getByText('The password is wrong.').waitFor();
    await ada.getByLabel('Password').fill('analytical engine 1843');
    await ada.getByRole('button', { name: 'Add the key' }).click();
    await ada.locator('#invite-done').waitFor();
    // The key answered both tries (the wrong password was refused after the ceremony): only the second was registered.
    const registered = (await kh.client(UserService).listU2FTokens({ userId })).result.filter((t) => t.state === U2FState.U2F_STATE_READY);
    expect(registered).toHaveLength(1);
    const held = (await authenticator.credentials()).map((c) => Buffer.from(c.credentialId, 'base64').toString('base64url'));
    expect(held).toContain(registered[0]!.credentialId);
    expect(await adminAuthenticator.credentials()).toHaveLength(0);

    // The admin's page lists Ada's key; removing it still works from here.
    await page.reload();
    const row = page.locator('[data-testid=keys] tbody tr');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    expect((await row.first().locator('th').textContent())?.trim()).toBe('Security key (added from an invitation)');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'security-keys.png'), fullPage: true });
    taken.add('security-keys.png');
    // The link worked once.
    await ada.goto(link);
    await ada.getByText('does not work').waitFor();

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Remove security key Security key (added from an invitation)' }).click();
    await page.locator('[data-testid=no-keys]').waitFor();
    const { result } = await kh.client(UserService).listU2FTokens({ userId });
    expect(result.filter((t) => t.state === U2FState.U2F_STATE_READY)).toHaveLength(0);
  }, 60_000);

  it('creates a user by invitation: without a mail server the console shows the link, which opens the page to set a password or a passkey', async () => {
    const page = await newPage('en-US');
    await signIn(page);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.getByLabel('Username').fill('grace');
    await page.getByLabel('Given name').fill('Grace');
    await page.getByLabel('Family name').fill('Hopper');
    await page.getByLabel('Email').fill('grace@example.com');
    expect(await page.getByLabel('Send an invitation', { exact: false }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Create user' }).click();
    const link = await page.locator('[data-testid=invite-link]').inputValue();
    expect(await text(page, '[data-testid=invite-result]')).toMatch(/hand this link to grace/);
    const grace = await personsPage();
    await grace.goto(link);
    await grace.getByRole('heading', { name: 'Set up your account' }).waitFor();
    expect(await grace.getByRole('button', { name: 'Register a passkey instead' }).isEnabled()).toBe(true);
    await page.getByTestId('open-new-user').click();
    await page.getByRole('heading', { level: 1, name: 'Grace Hopper' }).waitFor();
  }, 30_000);

  it('calls the API only over gRPC-Web (application/grpc-web+proto), with the token only in the authorization header', async () => {
    expect(calls.length).toBeGreaterThan(20);
    // The last page's calls may still be in flight: wait until each was answered or given up.
    const settled = () => calls.every((c) => c.responseType !== undefined || c.failure !== undefined);
    for (const until = Date.now() + 10_000; !settled() && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
    expect(calls.filter((c) => c.failure !== undefined && c.failure !== 'net::ERR_ABORTED').map((c) => `${c.path}: ${c.failure}`)).toEqual([]);
    const methods = new Set(calls.map((c) => c.path.split('/').pop()));
    for (const m of ['GetMyUser', 'ListProjects', 'AddProject', 'AddOIDCApp', 'ListApps', 'RegenerateOIDCClientSecret', 'RemoveApp', 'AddHumanUser', 'CreateInviteCode', 'ListU2FTokens', 'RemoveU2F']) {
      expect(methods, m).toContain(m);
    }
    const requestTypes = new Set(calls.map((c) => c.requestType));
    const responseTypes = new Set(calls.filter((c) => c.failure === undefined).map((c) => c.responseType));
    console.log(`console API calls: ${calls.length}; request content types: ${[...requestTypes].join(', ')}; response content types: ${[...responseTypes].join(', ')}`);
    expect([...requestTypes]).toEqual(['application/grpc-web+proto']);
    expect([...responseTypes]).toEqual(['application/grpc-web+proto']);
    for (const c of calls) {
      expect(c.method).toBe('POST');
      expect(c.url).not.toContain(kh.adminToken);
      expect(c.authorization === undefined || c.authorization === `Bearer ${kh.adminToken}` || c.authorization === 'Bearer not-a-token').toBe(true);
    }
    expect(kh.logLines.join('\n')).not.toContain(kh.adminToken);
  });
});
