// Registration end to end in a real browser: Keyhold's creation options go into
// Chromium's navigator.credentials.create() with a virtual security key (CTAP2 or
// legacy U2F), and what Chromium returns must pass verifyRegistration.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { buildCreationOptions, verifyRegistration } from '../../../src/domain/webauthn/index.js';
import {
  addVirtualAuthenticator,
  announceChromiumSkip,
  chromiumAvailable,
  createCredential,
  createCredentialWithSimpleWebAuthnBrowser,
  launchChromium,
  openPage,
} from '../../support/chromium.js';

const available = chromiumAvailable();
announceChromiumSkip('WebAuthn registration in Chromium');

const RP_ID = 'localhost';

describe.skipIf(!available)('WebAuthn registration in Chromium', () => {
  let server: Server;
  let origin: string;
  let browser: Browser;
  const pages: Page[] = [];

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><meta charset="utf-8"><title>Keyhold WebAuthn test</title><p>Keyhold');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // localhost is a secure context, and a valid RP ID, without TLS.
    origin = `http://localhost:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  async function pageWithKey(protocol: 'ctap2' | 'u2f') {
    const page = await openPage(browser, `${origin}/`);
    pages.push(page);
    const key = await addVirtualAuthenticator(page, { protocol, transport: 'usb' });
    return { page, key };
  }

  function options(attestation: 'none' | 'direct', excludeCredentialIds: string[] = []) {
    return buildCreationOptions({
      rpId: RP_ID,
      rpName: 'Keyhold',
      userId: `user-${randomBytes(6).toString('hex')}`,
      userName: 'ada@example.com',
      userDisplayName: 'Ada Lovelace',
      challenge: randomBytes(32),
      timeoutMs: 60_000,
      excludeCredentialIds,
      attestation,
    });
  }

  const verify = (credential: unknown, challenge: string) =>
    verifyRegistration({ credential, expectedChallenge: challenge, expectedOrigins: [origin], expectedRpId: RP_ID });

  const produced: Record<string, { fmt: string; aaguid: string; alg: number; transports: string[] }> = {};

  afterAll(() => {
    console.log(`Chromium virtual authenticators produced: ${JSON.stringify(produced)}`);
  });

  for (const protocol of ['ctap2', 'u2f'] as const) {
    for (const attestation of ['none', 'direct'] as const) {
      it(`${protocol} key, attestation "${attestation}": Chromium's credential verifies`, async () => {
        const { page, key } = await pageWithKey(protocol);
        const opts = options(attestation);
        const credential = await createCredential(page, opts);

        const result = await verify(credential, opts.challenge);
        expect(result.ok, result.ok ? '' : `${result.reason}: ${result.detail}`).toBe(true);
        if (!result.ok) return;
        const c = result.credential;
        // What a user of the API sees stored for the key:
        expect(c.credentialId).toBe(credential.id);
        expect((await key.credentials()).map((k) => Buffer.from(k.credentialId, 'base64').toString('base64url'))).toEqual([c.credentialId]);
        expect(c.algorithm).toBe(-7); // the first of ES256, EdDSA, RS256 the key supports
        expect(c.transports).toEqual(['usb']);
        expect(c.userVerified).toBe(false);
        expect(c.rpId).toBe(RP_ID);
        expect(c.backupEligible).toBe(false);
        if (attestation === 'none') {
          // Chromium strips attestation the RP did not ask for.
          expect(c.format).toBe('none');
        } else {
          // A U2F key can only speak fido-u2f; Chromium's CTAP2 key attests as packed.
          expect(c.format).toBe(protocol === 'u2f' ? 'fido-u2f' : 'packed');
        }
        if (protocol === 'u2f') expect(c.aaguid).toBe('00000000-0000-0000-0000-000000000000');
        produced[`${protocol}/${attestation}`] = { fmt: c.format, aaguid: c.aaguid, alg: c.algorithm, transports: c.transports };
      });
    }

    it(`${protocol} key: a second registration excluding the first credential fails in the browser`, async () => {
      const { page, key } = await pageWithKey(protocol);
      const first = await createCredential(page, options('none'));
      await expect(createCredential(page, options('none', [first.id]))).rejects.toMatchObject({
        name: 'InvalidStateError',
      });
      expect(await key.credentials()).toHaveLength(1);
      // Without the exclusion the same key registers a second credential.
      const second = await createCredential(page, options('none'));
      expect(second.id).not.toBe(first.id);
    });
  }

  it("@simplewebauthn/browser's startRegistration takes the options as they are", async () => {
    const { page } = await pageWithKey('ctap2');
    const excluded = randomBytes(32).toString('base64url'); // an id the key does not hold
    const opts = options('none', [excluded]);
    const credential = await createCredentialWithSimpleWebAuthnBrowser(page, opts);
    const result = await verify(credential, opts.challenge);
    expect(result.ok, result.ok ? '' : `${result.reason}: ${result.detail}`).toBe(true);
  });

  it("a real browser credential is refused for another challenge, origin or RP ID", async () => {
    const { page } = await pageWithKey('ctap2');
    const opts = options('none');
    const credential = await createCredential(page, opts);
    const base = { credential, expectedChallenge: opts.challenge, expectedOrigins: [origin], expectedRpId: RP_ID };

    const otherChallenge = await verifyRegistration({ ...base, expectedChallenge: randomBytes(32).toString('base64url') });
    expect(otherChallenge).toMatchObject({ ok: false, reason: 'CHALLENGE_MISMATCH' });
    const otherOrigin = await verifyRegistration({ ...base, expectedOrigins: ['https://keyhold.example'] });
    expect(otherOrigin).toMatchObject({ ok: false, reason: 'ORIGIN_NOT_ALLOWED' });
    if (!otherOrigin.ok) expect(otherOrigin.detail).not.toContain(origin);
    const otherRp = await verifyRegistration({ ...base, expectedRpId: 'keyhold.example' });
    expect(otherRp).toMatchObject({ ok: false, reason: 'RP_ID_MISMATCH' });
  });
});
