// Helpers for passkey logins in Chromium: a CDP virtual authenticator that
// holds resident, user-verified credentials (a passkey), and a passkey
// registered for a user through the API with it.
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { createCredential } from './chromium.js';
import type { TestKeyhold } from './keyhold.js';

export interface PasskeyAuthenticator {
  id: string;
  cdp: CDPSession;
  remove(): Promise<void>;
}

/** A passkey authenticator in `page`: resident keys, user verification done (a PIN or a finger, simulated). */
export async function addPasskeyAuthenticator(page: Page): Promise<PasskeyAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { id: authenticatorId, cdp, remove: () => cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId }).then(() => undefined) };
}

/**
 * A page of its own context on Keyhold's origin, with a passkey authenticator.
 * The virtual authenticator answers an autofill request (conditional
 * mediation) at once, with nobody choosing; so the browser says it has no
 * autofill unless `autofill`, and a test's button is what answers.
 */
export async function passkeyPage(chromium: Browser, kh: TestKeyhold, o: { autofill?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; authenticator: PasskeyAuthenticator }> {
  const context = await chromium.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  if (!o.autofill) await page.addInitScript(() => void (PublicKeyCredential.isConditionalMediationAvailable = async () => false));
  await page.goto(`http://localhost:${kh.port}/healthz`);
  return { context, page, authenticator: await addPasskeyAuthenticator(page) };
}

/** RegisterPasskey (as the admin) → navigator.credentials.create in `page` → VerifyPasskeyRegistration. */
export async function registerPasskey(kh: TestKeyhold, page: Page, userId: string, name = 'Passkey'): Promise<{ passkeyId: string; credentialId: string }> {
  const here = page.url();
  if (!here.startsWith(`http://localhost:${kh.port}/`)) await page.goto(`http://localhost:${kh.port}/healthz`);
  const reg = await kh.rest('POST', `/v2/users/${userId}/passkeys`, {});
  if (reg.status !== 200) throw new Error(`RegisterPasskey: ${reg.status} ${JSON.stringify(reg.body)}`);
  const { passkeyId, publicKeyCredentialCreationOptions: options } = reg.body;
  const credential = await createCredential(page, options);
  const verified = await kh.rest('POST', `/v2/users/${userId}/passkeys/${passkeyId}`, { publicKeyCredential: credential, passkeyName: name });
  if (verified.status !== 200) throw new Error(`VerifyPasskeyRegistration: ${verified.status} ${JSON.stringify(verified.body)}`);
  if (here !== page.url() && here !== 'about:blank') await page.goto(here);
  return { passkeyId, credentialId: credential.id };
}

/** Clicks "Sign in with a passkey" once the page's script has enabled it. */
export async function usePasskey(page: Page): Promise<void> {
  await page.locator('#passkey-start:not([disabled])').waitFor();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
}
