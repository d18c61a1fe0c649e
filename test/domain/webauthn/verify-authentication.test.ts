// The login's assertion check (src/domain/webauthn/verify-authentication.ts):
// what it refuses before any signature is looked at, each with its reason.
import { describe, expect, it } from 'vitest';
import { assertionClientData, assertionCredentialId, verifyAssertion } from '../../../src/domain/webauthn/verify-authentication.js';
import { verifyRegistration } from '../../../src/domain/webauthn/verify-registration.js';
import { createSoftPasskey } from '../../support/soft-passkey.js';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const answer = (clientData: unknown) => ({
  id: 'Y3JlZA',
  rawId: 'Y3JlZA',
  type: 'public-key',
  response: { clientDataJSON: b64(clientData), authenticatorData: 'AAAA', signature: 'AAAA' },
  clientExtensionResults: {},
});
const base = { expectedChallenge: 'ch', origins: ['http://localhost:8080'], rpId: 'localhost', credentialId: 'Y3JlZA', publicKey: 'AQID' };

describe('verifyAssertion', () => {
  it('another origin: U2F_LOGIN_WRONG_ORIGIN', async () => {
    const r = await verifyAssertion({ ...base, response: answer({ type: 'webauthn.get', challenge: 'ch', origin: 'https://evil.example' }) });
    expect(r).toMatchObject({ ok: false, reason: 'U2F_LOGIN_WRONG_ORIGIN' });
  });

  it('the answer to another challenge: U2F_LOGIN_REPLAYED', async () => {
    const r = await verifyAssertion({ ...base, response: answer({ type: 'webauthn.get', challenge: 'old', origin: 'http://localhost:8080' }) });
    expect(r).toMatchObject({ ok: false, reason: 'U2F_LOGIN_REPLAYED' });
  });

  it('a registration answer, or no client data: U2F_LOGIN_INVALID', async () => {
    expect(await verifyAssertion({ ...base, response: answer({ type: 'webauthn.create', challenge: 'ch', origin: 'http://localhost:8080' }) })).toMatchObject({ ok: false, reason: 'U2F_LOGIN_INVALID' });
    expect(await verifyAssertion({ ...base, response: { id: 'x' } })).toMatchObject({ ok: false, reason: 'U2F_LOGIN_INVALID' });
  });

  it('a bad signature: U2F_LOGIN_INVALID, never a throw', async () => {
    const r = await verifyAssertion({ ...base, response: answer({ type: 'webauthn.get', challenge: 'ch', origin: 'http://localhost:8080' }) });
    expect(r.ok).toBe(false);
  });

  it('reads client data and credential ids only when shaped so', () => {
    expect(assertionClientData(answer({ type: 'webauthn.get', challenge: 'c', origin: 'o' }))).toEqual({ type: 'webauthn.get', challenge: 'c', origin: 'o' });
    expect(assertionClientData({ response: { clientDataJSON: 'not json' } })).toBeUndefined();
    expect(assertionClientData(null)).toBeUndefined();
    expect(assertionCredentialId({ id: 'a/b', type: 'public-key' })).toBeUndefined();
    expect(assertionCredentialId({ id: 'abc', type: 'public-key' })).toBe('abc');
  });

  it('user verification required (a passkey): a signed assertion without UV is refused; as a second factor it passes', async () => {
    const origin = 'https://login.example';
    const rpId = 'login.example';
    const key = createSoftPasskey();
    const challenge = Buffer.from('registration-challenge-0123456789').toString('base64url');
    const registered = await verifyRegistration({
      credential: key.register({ challenge, rp: { id: rpId }, user: { id: Buffer.from('user-1').toString('base64url') } }, origin),
      expectedChallenge: challenge,
      expectedOrigins: [origin],
      expectedRpId: rpId,
      requireUserVerification: true,
    });
    if (!registered.ok) throw new Error(`registration refused: ${registered.reason}`);
    const stored = { origins: [origin], rpId, credentialId: registered.credential.credentialId, publicKey: Buffer.from(registered.credential.publicKey).toString('base64url') };
    const noUv = key.assert('login-ch', origin, rpId, { uv: false });
    expect(await verifyAssertion({ ...stored, response: noUv, expectedChallenge: 'login-ch', requireUserVerification: true })).toMatchObject({ ok: false });
    // The same signed answer is good without the requirement: the refusal above is the UV rule's alone.
    expect(await verifyAssertion({ ...stored, response: noUv, expectedChallenge: 'login-ch' })).toMatchObject({ ok: true });
    const withUv = key.assert('login-ch2', origin, rpId);
    expect(await verifyAssertion({ ...stored, response: withUv, expectedChallenge: 'login-ch2', requireUserVerification: true })).toMatchObject({ ok: true });
  });
});
