// Each WebAuthn ceremony check runs once (src/domain/webauthn/verify-attestation.ts):
// Keyhold checks the ceremony (its own reasons), SimpleWebAuthn only the
// attestation statement. What that saves is WebCrypto work on the verification
// thread: SimpleWebAuthn's RP ID check hashed the RP ID through
// crypto.subtle.digest, a round trip through libuv's thread pool, which
// Keyhold's synchronous rpIdHash comparison made redundant.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyRegistration } from '../../../src/domain/webauthn/index.js';
import { createSoftAuthenticator } from '../../support/soft-authenticator.js';

const RP_ID = 'login.example.com';
const ORIGIN = 'https://login.example.com';
const key = createSoftAuthenticator({ alg: -7 });

afterEach(() => vi.restoreAllMocks());

/** The SHA-256 digests WebCrypto computed while `work` ran, as hex. */
async function digestsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const subtle = globalThis.crypto.subtle;
  const digest = subtle.digest.bind(subtle);
  const seen: string[] = [];
  vi.spyOn(subtle, 'digest').mockImplementation(async (algorithm, data) => {
    const out = await digest(algorithm, data);
    seen.push(Buffer.from(out).toString('hex'));
    return out;
  });
  await work();
  return seen;
}

const sha256 = async (text: string) => Buffer.from(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))).toString('hex');

describe('WebAuthn checks run once', () => {
  it.each(['none', 'packed'] as const)('a %s registration: the RP ID is not hashed again through WebCrypto', async (fmt) => {
    const challenge = randomBytes(32).toString('base64url');
    const credential = key.makeRegistration({ challenge, origin: ORIGIN, rpId: RP_ID, fmt });
    const rpIdHash = await sha256(RP_ID);
    let ok = false;
    const digests = await digestsDuring(async () => {
      const result = await verifyRegistration({ credential, expectedChallenge: challenge, expectedOrigins: [ORIGIN], expectedRpId: RP_ID });
      ok = result.ok;
    });
    expect(ok).toBe(true);
    expect(digests).not.toContain(rpIdHash);
    // What is left is the attestation's own: the client data hash it signs over.
    expect(digests).toHaveLength(1);
  });

  it('a wrong RP ID is still refused with its own reason, by Keyhold', async () => {
    const challenge = randomBytes(32).toString('base64url');
    const credential = key.makeRegistration({ challenge, origin: ORIGIN, rpId: 'evil.example', fmt: 'none' });
    const result = await verifyRegistration({ credential, expectedChallenge: challenge, expectedOrigins: [ORIGIN], expectedRpId: RP_ID });
    expect(result.ok ? 'verified' : result.reason).toBe('RP_ID_MISMATCH');
  });
});
