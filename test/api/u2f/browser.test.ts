// A real browser enrolls a security key: headless Chromium with a CDP virtual
// authenticator (ctap2 and u2f) runs navigator.credentials.create with the
// options RegisterU2F returned, and VerifyU2FRegistration accepts the result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { addVirtualAuthenticator, announceChromiumSkip, BrowserWebAuthnError, chromiumAvailable, createCredential, launchChromium, openPage } from '../../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { plainUser, startRegistration } from '../../support/u2f.js';

const available = chromiumAvailable();
if (!available) announceChromiumSkip('security-key enrollment in a real browser');

describe.skipIf(!available)('enrollment in headless Chromium', () => {
  let kh: TestKeyhold;
  let browser: Browser;
  beforeAll(async () => {
    // Attestation "direct" so the browser's packed and fido-u2f statements are really checked.
    kh = await startTestKeyhold({ env: { KEYHOLD_WEBAUTHN_ATTESTATION: 'direct' } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await kh?.close();
  });

  it.each([
    ['ctap2', 'packed'],
    ['u2f', 'fido-u2f'],
  ] as const)('%s authenticator → %s key, listed as ready; a second enrollment of it is refused', async (protocol, format) => {
    const user = await plainUser(kh);
    // The page lives on the origin Keyhold accepts by default: http://localhost:<port>.
    const page = await openPage(browser, `http://localhost:${kh.port}/healthz`);
    const authenticator = await addVirtualAuthenticator(page, { protocol });
    try {
      const reg = await startRegistration(kh, user.userId, user.token);
      const credential = await createCredential(page, reg.options);
      const users = kh.client(UserService, 'grpcWeb', user.token);
      const verified = await users.verifyU2FRegistration({ userId: user.userId, u2fId: reg.u2fId, publicKeyCredential: credential as any, tokenName: `${protocol} key` });
      expect(verified.details?.sequence).toBe(2n);

      const list = await users.listU2FTokens({ userId: user.userId });
      const token = list.result.find((t) => t.id === reg.u2fId)!;
      expect(token.name).toBe(`${protocol} key`);
      expect(token.format).toBe(format);
      expect(token.aaguid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(token.transports).toContain('usb');

      // The next registration excludes this key, so the browser itself refuses it.
      const again = await startRegistration(kh, user.userId, user.token);
      expect(again.options.excludeCredentials.map((c: any) => c.id)).toContain(credential.id);
      const refused = await createCredential(page, again.options).catch((e) => e);
      expect(refused).toBeInstanceOf(BrowserWebAuthnError);
      expect(refused.name).toBe('InvalidStateError');
    } finally {
      await authenticator.remove();
      await page.context().close();
    }
  });
});
