// Helpers for logins with a security key in Chromium: a human user
// with a password, a key registered for it through the API with a CDP virtual
// authenticator, an app from AddOIDCApp and openid-client's code + PKCE.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { addVirtualAuthenticator, createCredential, type VirtualAuthenticator } from './chromium.js';
import type { TestKeyhold } from './keyhold.js';
import { addApp } from './oidc-login.js';
import { startRegistration } from './u2f.js';

export const PASSWORD = 'a long and memorable passphrase';

/**
 * The app's redirect URI: a real listener of the test (startApp), so the
 * browser's last redirect lands on an answering server (an intercepted route
 * was not always applied to a redirect after a script's form.submit()).
 */
export let REDIRECT = '';
let appServer: Server | undefined;

export async function startApp(): Promise<void> {
  appServer = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>app</p>');
  });
  await new Promise<void>((resolve) => appServer!.listen(0, '127.0.0.1', resolve));
  REDIRECT = `http://localhost:${(appServer.address() as AddressInfo).port}/callback`;
}

export async function stopApp(): Promise<void> {
  await new Promise<void>((resolve) => (appServer ? appServer.close(() => resolve()) : resolve()));
}

let counter = 0;

/** A human user with PASSWORD; its id and username. */
export async function humanUser(kh: TestKeyhold, prefix = 'keyuser', orgId?: string): Promise<{ userId: string; username: string }> {
  const username = `${prefix}-${process.pid}-${++counter}`;
  const res = await kh.rest(
    'POST',
    '/v2/users/human',
    {
      username,
      ...(orgId ? { organization: { orgId } } : {}),
      profile: { givenName: 'Key', familyName: 'User' },
      email: { email: `${username}@example.com` },
      password: { password: PASSWORD, changeRequired: false },
    },
  );
  if (res.status !== 200) throw new Error(`AddHumanUser: ${res.status} ${JSON.stringify(res.body)}`);
  return { userId: res.body.userId, username };
}

/** A page of its own context on Keyhold's origin, with a virtual authenticator. */
export async function keyPage(chromium: Browser, kh: TestKeyhold, protocol: 'ctap2' | 'u2f' = 'ctap2'): Promise<{ context: BrowserContext; page: Page; authenticator: VirtualAuthenticator }> {
  const context = await chromium.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(`http://localhost:${kh.port}/healthz`);
  const authenticator = await addVirtualAuthenticator(page, { protocol });
  return { context, page, authenticator };
}

/** RegisterU2F (as the admin) → navigator.credentials.create in `page` → VerifyU2FRegistration. */
export async function registerKey(kh: TestKeyhold, page: Page, userId: string, name = 'Key'): Promise<{ u2fId: string; credentialId: string }> {
  const here = page.url();
  if (!here.startsWith(`http://localhost:${kh.port}/`)) await page.goto(`http://localhost:${kh.port}/healthz`);
  // A test with a short KEYHOLD_WEBAUTHN_TIMEOUT_MS on a busy machine may see a registration
  // expire between the browser and VerifyU2FRegistration (as it should): a new one then.
  for (let attempt = 1; ; attempt++) {
    const reg = await startRegistration(kh, userId);
    const credential = await createCredential(page, reg.options);
    try {
      await kh.client(UserService, 'grpc').verifyU2FRegistration({ userId, u2fId: reg.u2fId, publicKeyCredential: credential as never, tokenName: name });
    } catch (e) {
      if (attempt < 3 && String(e).includes('expired')) continue;
      throw e;
    }
    if (here !== page.url() && here !== 'about:blank') await page.goto(here);
    return { u2fId: reg.u2fId, credentialId: credential.id };
  }
}

export interface AppLogin {
  config: oidc.Configuration;
  url: URL;
  verifier: string;
  nonce: string;
}

/** A public app (code + PKCE) in a new project, and an authorization URL for it. */
export async function appLogin(kh: TestKeyhold): Promise<AppLogin & { clientId: string }> {
  const projectId = (await kh.rest('POST', '/management/v1/projects', { name: `Keys ${++counter}` })).body.id;
  const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true });
  const config = await oidc.discovery(new URL(`http://localhost:${kh.port}`), app.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  return { ...(await authorizationUrl(config)), clientId: app.clientId };
}

/** `extra` e.g. { prompt: 'login' } for a second login in a browser that has a session. */
export async function authorizationUrl(config: oidc.Configuration, extra: Record<string, string> = {}): Promise<AppLogin> {
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state: 'key-state',
    ...extra,
  });
  return { config, url, verifier, nonce };
}

/**
 * `returned()` is the URL Keyhold last sent this page back to the app with (since this call):
 * the page's own navigation requests to the callback, so logins running side by side in other
 * pages (it.concurrent) never hand each other their codes.
 */
export async function catchRedirect(page: Page): Promise<() => string | undefined> {
  const seen: string[] = [];
  page.on('request', (request) => {
    if (request.isNavigationRequest() && new URL(request.url()).pathname === '/callback' && request.url().startsWith(REDIRECT)) seen.push(request.url());
  });
  return () => seen[seen.length - 1];
}

/** Username and password on the login page, up to the next page. */
export async function passwordStep(page: Page, url: URL, username: string): Promise<void> {
  await page.goto(url.href);
  await page.getByLabel('Username').fill(username);
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The reason shown on the key step after a refused answer (data-reason), and its words. */
export async function shownReason(page: Page): Promise<{ reason: string | null; text: string }> {
  const alert = page.locator('p.error[role=alert]');
  await alert.waitFor();
  return { reason: await alert.getAttribute('data-reason'), text: (await alert.textContent()) ?? '' };
}

/** Clicks "Use my security key" once the page's script has enabled it. */
export async function useKey(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Use my security key' }).click();
}

/**
 * Answers the key step in the page with these credentials allowed instead of the
 * page's own list (what a tampered page, or a page left open while a key was
 * removed, sends): the real browser and authenticator sign the page's challenge.
 */
export async function answerWith(page: Page, credentialIds: string[]): Promise<void> {
  await page.locator('#key-start:not([disabled])').waitFor({ state: 'attached' });
  await page.evaluate(async (ids) => {
    const step = document.getElementById('key-step')!;
    const options = JSON.parse(step.getAttribute('data-options')!);
    options.allowCredentials = ids.map((id: string) => ({ id, type: 'public-key' }));
    const lib = (window as any).SimpleWebAuthnBrowser;
    const answer = await lib.startAuthentication({ optionsJSON: options });
    (document.getElementById('key-response') as HTMLInputElement).value = JSON.stringify(answer);
    // After this evaluation has returned: a navigation during it would end it with an error.
    setTimeout(() => (document.getElementById('key-form') as HTMLFormElement).submit(), 0);
  }, credentialIds);
}

/** The page's own ceremony run, without sending the answer (kept for a replay). */
export async function assertionWithoutSending(page: Page): Promise<string> {
  await page.locator('#key-start:not([disabled])').waitFor({ state: 'attached' });
  return page.evaluate(async () => {
    const options = JSON.parse(document.getElementById('key-step')!.getAttribute('data-options')!);
    return JSON.stringify(await (window as any).SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: options }));
  });
}

/** Posts `answer` with the key step's form, as the page's script does. */
export async function sendAnswer(page: Page, answer: string): Promise<void> {
  await page.evaluate((a) => {
    (document.getElementById('key-response') as HTMLInputElement).value = a;
    setTimeout(() => (document.getElementById('key-form') as HTMLFormElement).submit(), 0);
  }, answer);
}

/** Redeems the code Keyhold returned with. */
export function redeem(login: AppLogin, returned: string) {
  return oidc.authorizationCodeGrant(login.config, new URL(returned), { pkceCodeVerifier: login.verifier, expectedNonce: login.nonce, expectedState: 'key-state' });
}

/** A copy of the authenticator's credentials in a new authenticator of `page`, at `signCount` (a cloned key) or the same counter (the key itself, moved). */
export async function copyKey(from: VirtualAuthenticator, page: Page, protocol: 'ctap2' | 'u2f', signCount?: number): Promise<VirtualAuthenticator> {
  const { credentials } = await from.cdp.send('WebAuthn.getCredentials', { authenticatorId: from.id });
  const copy = await addVirtualAuthenticator(page, { protocol });
  for (const c of credentials) {
    await copy.cdp.send('WebAuthn.addCredential', {
      authenticatorId: copy.id,
      credential: { credentialId: c.credentialId, isResidentCredential: false, rpId: c.rpId ?? 'localhost', privateKey: c.privateKey, signCount: signCount ?? c.signCount },
    });
  }
  return copy;
}

/**
 * After a first key registered at the login (forceMfa): the page of its
 * recovery codes, shown once. Answers the codes shown
 * and goes on ("I saved them, continue").
 */
export async function continueAfterCodes(page: Page): Promise<string[]> {
  await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor({ timeout: 20_000 });
  const codes = await page.locator('#recovery-codes code').allTextContents();
  await page.getByRole('button', { name: 'I saved them, continue' }).click();
  return codes;
}
