// ONE real browser login: Debian's Chromium (playwright-core) signs a user in
// through Keyhold's login page with an app created by AddOIDCApp a moment
// before, typing into the labelled fields; openid-client redeems the code.
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp } from '../../support/oidc-login.js';

const skip = !chromiumAvailable();
announceChromiumSkip('OIDC login in Chromium');

const REDIRECT = 'http://localhost:5199/callback';

describe.skipIf(skip)('login page in Chromium', () => {
  let kh: TestKeyhold;
  let chromium: Browser;

  beforeAll(async () => {
    [kh, chromium] = await Promise.all([startTestKeyhold(), launchChromium()]);
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
  });

  it('types username and password into the labelled fields, is sent back with a code that redeems to a verified ID token', async () => {
    const base = `http://localhost:${kh.port}`;
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Browser' })).body.id;
    const created = await kh.rest('POST', '/v2/users/human', {
      username: 'grace',
      profile: { givenName: 'Grace', familyName: 'Hopper' },
      email: { email: 'grace@example.com' },
      password: { password: 'a long and memorable passphrase', changeRequired: false },
    });
    expect(created.status).toBe(200);
    const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true });
    const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
      state: 'browser-state',
    });

    const context = await chromium.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    // The app: whatever answers at its redirect URI.
    let returned: string | undefined;
    await page.route(`${REDIRECT}**`, (route) => {
      returned = route.request().url();
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<p>app</p>' });
    });

    await page.goto(url.href);
    await page.getByLabel('Username').fill('grace');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill('a long and memorable passphrase');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${REDIRECT}**`);
    expect(returned).toBeTruthy();
    // No CSP violation (the page's style is allowed by its hash) and no other console error.
    expect(problems).toEqual([]);

    const tokens = await oidc.authorizationCodeGrant(config, new URL(returned!), { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: 'browser-state' });
    const claims = tokens.claims()!;
    expect(claims.aud).toBe(app.clientId);
    expect(claims.amr).toContain('pwd');
    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info.preferred_username).toBe('grace');
    await context.close();
  }, 60_000);
});
