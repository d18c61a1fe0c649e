// Devices without a browser (RFC 8628), end to end with real clients:
// openid-client starts the device flow and polls as a TV or CLI would;
// Debian's Chromium enters the user code on Keyhold's page, signs in through
// the same login UI as the code flow, and confirms or denies.
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp } from '../../support/oidc-login.js';

const skip = !chromiumAvailable();
announceChromiumSkip('device sign-in in Chromium');

const PASSWORD = 'a television needs a passphrase too';

describe.skipIf(skip)('device authorization grant', () => {
  let kh: TestKeyhold;
  let chromium: Browser;
  let base: string;
  let projectId: string;
  let userId: string;
  let device: { clientId: string };

  const configFor = (clientId: string) => oidc.discovery(new URL(base), clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });

  /** A page watching for console errors (a CSP violation is one). */
  async function newPage(locale = 'en-US'): Promise<{ page: Page; problems: string[]; close: () => Promise<void> }> {
    const context = await chromium.newContext({ locale });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      // The browser's own favicon request is no page problem.
      if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) problems.push(`${m.text()} ${m.location().url}`);
    });
    return { page, problems, close: () => context.close() };
  }

  async function signIn(page: Page): Promise<void> {
    await page.getByLabel('Username').fill('telly');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  beforeAll(async () => {
    // A one-second interval keeps the polling fast.
    [kh, chromium] = await Promise.all([startTestKeyhold({ env: { KEYHOLD_DEVICE_POLL_INTERVAL_SECONDS: '1' } }), launchChromium()]);
    base = `http://localhost:${kh.port}`;
    projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Living room' })).body.id;
    const created = await kh.rest('POST', '/v2/users/human', {
      username: 'telly',
      profile: { givenName: 'Telly', familyName: 'Vision' },
      email: { email: 'telly@example.com' },
      password: { password: PASSWORD, changeRequired: false },
    });
    expect(created.status).toBe(200);
    userId = created.body.userId;
    device = await addApp(kh, projectId, {
      name: 'Smart TV',
      appType: 'OIDC_APP_TYPE_NATIVE',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'],
    });
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
  });

  it("the start-up self-check leaves no session behind (its one request through the provider is cleaned up)", async () => {
    const rows = await kh.database.sql.query<{ n: number }>({ text: `select count(*)::int as n from oidc_payloads where model = 'Session'`, params: [] });
    expect(rows[0]?.n).toBe(0);
  });

  it('discovery names the endpoint; the answer has a user code, the verification URIs and the interval', async () => {
    const config = await configFor(device.clientId);
    expect(config.serverMetadata().device_authorization_endpoint).toBe(`${base}/oauth/v2/device_authorization`);
    expect(config.serverMetadata().grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:device_code');
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile' });
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.verification_uri).toBe(`${base}/ui/login/device`);
    expect(started.verification_uri_complete).toBe(`${base}/ui/login/device?user_code=${started.user_code}`);
    expect(started.interval).toBe(1);
    expect(started.expires_in).toBe(300);
  });

  it('Chromium enters the code, confirms and signs in; the polling device receives tokens for the user', async () => {
    const config = await configFor(device.clientId);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile' });
    const polled = oidc.pollDeviceAuthorizationGrant(config, started);

    const { page, problems, close } = await newPage();
    await page.goto(started.verification_uri);
    await page.getByLabel('Code').fill(started.user_code.toLowerCase().replace('-', ' '));
    await page.getByRole('button', { name: 'Next' }).click();
    // The confirmation names the app and the code the device shows.
    expect((await page.getByRole('heading').textContent())?.trim()).toBe('Sign in to Smart TV on your device?');
    expect(await page.locator('#user-code').textContent()).toBe(started.user_code);
    await page.getByRole('button', { name: 'Continue and sign in' }).click();
    // The same login UI as the code flow.
    expect(new URL(page.url()).pathname).toMatch(/^\/ui\/login\/[\w-]+$/);
    await signIn(page);
    await page.getByText('Your device is signed in to Smart TV. You may close this window.').waitFor();
    expect(problems).toEqual([]);

    const tokens = await polled;
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(userId);
    expect(claims.aud).toBe(device.clientId);
    expect(claims.amr).toContain('pwd');
    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info.preferred_username).toBe('telly');
    // The device code is used up: polling it again is refused.
    await expect(oidc.pollDeviceAuthorizationGrant(config, started)).rejects.toMatchObject({ error: 'invalid_grant' });
    await close();
  }, 60_000);

  it('verification_uri_complete shows the code prefilled on a script-free page under the strict CSP, for the user to check', async () => {
    const config = await configFor(device.clientId);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    const raw = await fetch(started.verification_uri_complete!);
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await raw.text();
    expect(html).not.toMatch(/<script/i);

    const { page, problems, close } = await newPage();
    await page.goto(started.verification_uri_complete!);
    expect(await page.getByLabel('Code').inputValue()).toBe(started.user_code);
    await page.getByText('Check that your device shows this code before you go on.').waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Continue and sign in' }).click();
    await signIn(page);
    await page.getByText('Your device is signed in to Smart TV').waitFor();
    expect(problems).toEqual([]);
    expect((await oidc.pollDeviceAuthorizationGrant(config, started)).claims()!.sub).toBe(userId);
    await close();
  }, 60_000);

  it('a denial on the page answers the polling device access_denied', async () => {
    const config = await configFor(device.clientId);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    const polled = oidc.pollDeviceAuthorizationGrant(config, started).then(
      () => undefined,
      (e: unknown) => e,
    );
    const { page, close } = await newPage();
    await page.goto(started.verification_uri_complete!);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Sign-in denied. The device gets no access.').waitFor();
    expect(await polled).toMatchObject({ error: 'access_denied' });
    // The code cannot be entered again.
    await page.getByLabel('Code').fill(started.user_code);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('This code was already used.').waitFor();
    await close();
  }, 60_000);

  it('a wrong user code gets a plain message on the page, in the browser\'s language', async () => {
    const { page, problems, close } = await newPage();
    await page.goto(`${base}/ui/login/device`);
    await page.getByLabel('Code').fill('BBBB-BBBB');
    await page.getByRole('button', { name: 'Next' }).click();
    expect((await page.getByRole('alert').textContent())?.trim()).toBe('This code is unknown. Check it on your device and type it again.');
    expect(await page.getByLabel('Code').inputValue()).toBe('BBBB-BBBB');
    expect(problems).toEqual([]);
    await close();

    const de = await newPage('de-DE');
    await de.page.goto(`${base}/ui/login/device`);
    expect((await de.page.getByRole('heading').textContent())?.trim()).toBe('Gerät anmelden');
    await de.page.getByLabel('Code').fill('BBBB-BBBB');
    await de.page.getByRole('button', { name: 'Weiter' }).click();
    expect((await de.page.getByRole('alert').textContent())?.trim()).toBe('Dieser Code ist unbekannt. Prüfe ihn auf deinem Gerät und gib ihn erneut ein.');
    await de.close();
  }, 60_000);

  it('an app without the device grant is refused unauthorized_client', async () => {
    const web = await addApp(kh, projectId, {
      redirectUris: ['http://localhost:5188/cb'],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      devMode: true,
    });
    const config = await configFor(web.clientId);
    await expect(oidc.initiateDeviceAuthorization(config, { scope: 'openid' })).rejects.toMatchObject({ error: 'unauthorized_client' });
    // An app Keyhold does not know is a client error of its own (invalid_client, 401).
    const res = await fetch(`${base}/oauth/v2/device_authorization`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'no-such-app', scope: 'openid' }),
    });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toBe('invalid_client');
    // The grant is refused at the token endpoint too.
    const token = await fetch(`${base}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: web.clientId, grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'anything' }),
    });
    expect(token.status).toBe(400);
    expect((await token.json()).error).toBe('unauthorized_client');
  }, 30_000);

  it('device codes are not stored in clear, neither on their row nor on the login\'s', async () => {
    const config = await configFor(device.clientId);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    const { page, close } = await newPage();
    await page.goto(started.verification_uri_complete!);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Continue and sign in' }).click();
    await page.getByLabel('Username').waitFor();
    const rows = await kh.database.sql.query<{ model: string; key: string; payload: string }>({ text: `select model, key, payload::text as payload from oidc_payloads`, params: [] });
    expect(rows.some((r) => r.model === 'DeviceCode')).toBe(true);
    expect(rows.some((r) => r.model === 'Interaction' && r.payload.includes('keyholdSealedDeviceCode'))).toBe(true);
    for (const r of rows) {
      expect(r.key).not.toBe(started.device_code);
      expect(r.payload).not.toContain(started.device_code);
    }
    // Nor in the log.
    expect(kh.logLines.join('\n')).not.toContain(started.device_code);
    // ... and still the login goes through and the device gets its tokens.
    await signIn(page);
    await page.getByText('Your device is signed in to Smart TV').waitFor();
    expect((await oidc.pollDeviceAuthorizationGrant(config, started)).claims()!.sub).toBe(userId);
    await close();
  }, 60_000);
});
