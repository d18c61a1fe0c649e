// Keyhold on a real domain with one setting: KEYHOLD_ISSUER=https://id.example.test
// and nothing else (no RP id, no origins, no trusted proxies), behind a
// TLS-terminating proxy. Chromium reaches the domain through the proxy
// (a host-resolver rule maps id.example.test:443 to it; the proxy's certificate
// is made for that name and trusted by its key). A security key registers for
// the RP id the issuer implies and logs in through the proxy, and the ID token
// names the issuer.
import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { addVirtualAuthenticator, announceChromiumSkip, chromiumAvailable, createCredential, launchChromium } from '../../support/chromium.js';
import { REDIRECT, catchRedirect, humanUser, passwordStep, startApp, stopApp, useKey } from '../../support/key-login.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp } from '../../support/oidc-login.js';
import { startTlsProxy, type TlsProxy } from '../../support/tls-proxy.js';
import { startRegistration } from '../../support/u2f.js';

const DOMAIN = 'id.example.test';
const ISSUER = `https://${DOMAIN}`;

const skip = !chromiumAvailable();
announceChromiumSkip('a security key on a domain behind a TLS proxy in Chromium');

describe.skipIf(skip)('KEYHOLD_ISSUER alone, on a domain behind a TLS-terminating proxy', () => {
  let proxy: TlsProxy;
  let kh: TestKeyhold;
  let chromium: Browser;

  beforeAll(async () => {
    proxy = await startTlsProxy(DOMAIN);
    [kh] = await Promise.all([startTestKeyhold({ env: { KEYHOLD_ISSUER: ISSUER } }), startApp()]);
    proxy.forwardTo(kh.port);
    chromium = await launchChromium([`--host-resolver-rules=MAP ${DOMAIN}:443 127.0.0.1:${proxy.port}`, `--ignore-certificate-errors-spki-list=${proxy.spki}`]);
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
    await proxy?.close();
    await stopApp();
  });

  it('a security key registers for the RP id the issuer implies and logs in through the proxy; the ID token names the issuer', async () => {
    const context = await chromium.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const discovery = await page.goto(`${ISSUER}/.well-known/openid-configuration`);
    const metadata = await discovery!.json();
    expect(metadata.issuer).toBe(ISSUER);
    expect(metadata.authorization_endpoint).toBe(`${ISSUER}/oauth/v2/authorize`);

    // Registration, on the domain's origin: the options name the domain as RP id by themselves.
    const user = await humanUser(kh, 'domainuser');
    await page.goto(`${ISSUER}/healthz`);
    await addVirtualAuthenticator(page, { protocol: 'ctap2' });
    const registration = await startRegistration(kh, user.userId);
    expect(registration.rpId).toBe(DOMAIN);
    const credential = await createCredential(page, registration.options);
    await kh.client(UserService, 'grpc').verifyU2FRegistration({ userId: user.userId, u2fId: registration.u2fId, publicKeyCredential: credential as never, tokenName: 'Domain key' });

    // The login, through the proxy: password, then the key.
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'On a domain' })).body.id;
    const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true });
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(metadata.authorization_endpoint);
    authorize.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid',
      state: 'domain-state',
      nonce: 'domain-nonce',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const returned = await catchRedirect(page);
    await passwordStep(page, authorize, user.username);
    await page.getByRole('heading', { name: 'Security key' }).waitFor();
    await useKey(page);
    await page.waitForURL(`${REDIRECT}**`);
    const code = new URL(returned()!).searchParams.get('code');
    expect(code).toBeTruthy();
    for (const cookie of await context.cookies(ISSUER)) expect(cookie.secure, cookie.name).toBe(true);

    // The code redeems (here at Keyhold's own port: the URLs it answers with are the issuer's whatever
    // the request's host), and the ID token verifies against the issuer's keys.
    const token = await fetch(`http://localhost:${kh.port}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT, client_id: app.clientId, code_verifier: verifier }),
    });
    expect(token.status).toBe(200);
    const { id_token: idToken } = await token.json();
    const keys = createRemoteJWKSet(new URL(`http://localhost:${kh.port}/oauth/v2/keys`));
    const { payload } = await jwtVerify(idToken, keys, { issuer: ISSUER, audience: app.clientId });
    expect(payload.amr).toContain('hwk');
    expect(payload.nonce).toBe('domain-nonce');
    await context.close();
  }, 60_000);
});
