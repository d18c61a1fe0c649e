// Keyhold behind a TLS-terminating proxy (test/support/tls-proxy.ts) with
// KEYHOLD_ISSUER=https://localhost:<proxy port> and the proxy trusted: a whole
// login in Chromium through the proxy — discovery's endpoints are https at the
// proxy, every cookie is Secure (the session cookie __Host-), the last
// redirect reaches the app with its code, openid-client redeems it at the
// proxy's token endpoint, and signing out clears the session cookie.
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../../support/chromium.js';
import { PASSWORD, REDIRECT, catchRedirect, humanUser, startApp, stopApp } from '../../support/key-login.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp } from '../../support/oidc-login.js';
import { startTlsProxy, type TlsProxy } from '../../support/tls-proxy.js';

const skip = !chromiumAvailable();
announceChromiumSkip('a login through a TLS-terminating proxy in Chromium');

describe.skipIf(skip)('behind a TLS-terminating proxy', () => {
  let proxy: TlsProxy;
  let kh: TestKeyhold;
  let chromium: Browser;

  beforeAll(async () => {
    proxy = await startTlsProxy();
    [kh, chromium] = await Promise.all([startTestKeyhold({ env: { KEYHOLD_ISSUER: proxy.url, KEYHOLD_TRUSTED_PROXIES: '127.0.0.1' } }), launchChromium(), startApp()]);
    proxy.forwardTo(kh.port);
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
    await proxy?.close();
    await stopApp();
  });

  it("discovery is the issuer's (https, the proxy); a login in Chromium sets only Secure cookies and returns to the app with a code that redeems", async () => {
    const user = await humanUser(kh, 'proxied');
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Behind a proxy' })).body.id;
    const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true });
    const config = await oidc.discovery(new URL(proxy.url), app.clientId, undefined, oidc.None(), { [oidc.customFetch]: proxy.fetch });
    config[oidc.customFetch] = proxy.fetch;
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(proxy.url);
    for (const url of [metadata.authorization_endpoint, metadata.token_endpoint, metadata.jwks_uri, metadata.userinfo_endpoint, metadata.end_session_endpoint]) {
      expect(url).toMatch(new RegExp(`^${proxy.url}/`));
    }

    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid profile', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 'proxied' });
    const context = await chromium.newContext({ locale: 'en-US', ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const returned = await catchRedirect(page);
    await page.goto(url.href);
    expect(new URL(page.url()).origin).toBe(proxy.url);
    await page.getByLabel('Username').fill(user.username);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(PASSWORD);
    // While the login is under way: the interaction's cookies, Secure and prefixed.
    const during = await context.cookies();
    expect(during.map((c) => c.name)).toEqual(expect.arrayContaining(['__Secure-keyhold_interaction']));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${REDIRECT}**`);

    const cookies = [...during, ...(await context.cookies())];
    expect(cookies.length).toBeGreaterThan(0);
    for (const c of cookies) {
      expect(c.secure, c.name).toBe(true);
      expect(c.name, c.name).toMatch(/^__(Host|Secure)-/);
    }
    const session = cookies.find((c) => c.name === '__Host-keyhold_session');
    expect(session).toMatchObject({ path: '/', secure: true, httpOnly: true });

    const back = new URL(returned()!);
    expect(back.searchParams.get('iss')).toBe(proxy.url);
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: 'proxied' });
    expect(tokens.claims()).toMatchObject({ iss: proxy.url, sub: user.userId, amr: ['pwd'] });

    // Signing out clears the __Host- session cookie (a deletion must be Secure too, or the browser keeps it).
    await page.goto(`${proxy.url}/oidc/v1/end_session`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    expect((await context.cookies()).map((c) => c.name)).not.toContain('__Host-keyhold_session');
    await context.close();
  }, 90_000);
});
