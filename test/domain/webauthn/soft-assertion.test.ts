// The software authenticator's assertions (test/support/soft-authenticator.ts
// makeAssertion, used by the login-surface bench): Keyhold's own assertion
// check accepts them under the key's COSE public key, and refuses them under
// another key or for another challenge.
import { describe, expect, it } from 'vitest';
import { verifyAssertion } from '../../../src/domain/webauthn/verify-authentication.js';
import { createSoftAuthenticator } from '../../support/soft-authenticator.js';

const origin = 'http://localhost:8080';
const check = (key: ReturnType<typeof createSoftAuthenticator>, response: unknown, expectedChallenge = 'Y2hhbGxlbmdl') =>
  verifyAssertion({ response, expectedChallenge, origins: [origin], rpId: 'localhost', credentialId: key.credentialId, publicKey: Buffer.from(key.cosePublicKey).toString('base64url') });

describe('software authenticator assertions', () => {
  it('verify under the key that made them, with the counter handed back', async () => {
    const key = createSoftAuthenticator({ alg: -7 });
    const r = await check(key, key.makeAssertion({ challenge: 'Y2hhbGxlbmdl', origin, rpId: 'localhost', signCount: 7 }));
    expect(r).toEqual({ ok: true, signCount: 7 });
  });

  it('fail under another key and for another challenge', async () => {
    const key = createSoftAuthenticator({ alg: -7 });
    const other = createSoftAuthenticator({ alg: -7 });
    const answer = key.makeAssertion({ challenge: 'Y2hhbGxlbmdl', origin, rpId: 'localhost' });
    expect((await check({ ...other, credentialId: key.credentialId }, answer)).ok).toBe(false);
    expect(await check(key, answer, 'b3RoZXI')).toMatchObject({ ok: false, reason: 'U2F_LOGIN_REPLAYED' });
  });
});
