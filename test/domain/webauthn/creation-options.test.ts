// RegisterU2F's options as a browser and @simplewebauthn/browser receive them.
// (That Chromium accepts them is tested in chromium.test.ts.)
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildCreationOptions, type CreationOptionsInput } from '../../../src/domain/webauthn/index.js';

const challenge = Uint8Array.from(randomBytes(32));
const input: CreationOptionsInput = {
  rpId: 'login.example.com',
  rpName: 'Example Login',
  userId: '2v3kxq8m1c9e7hjw4rtp6naby5',
  userName: 'ada@example.com',
  userDisplayName: 'Ada Lovelace',
  challenge,
  timeoutMs: 300_000,
  excludeCredentialIds: ['AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8', 'qrvM3e7_'],
  attestation: 'none',
};

describe('buildCreationOptions', () => {
  it('produces PublicKeyCredentialCreationOptionsJSON with base64url binary members', () => {
    expect(buildCreationOptions(input)).toEqual({
      rp: { id: 'login.example.com', name: 'Example Login' },
      user: {
        id: Buffer.from('2v3kxq8m1c9e7hjw4rtp6naby5', 'utf8').toString('base64url'),
        name: 'ada@example.com',
        displayName: 'Ada Lovelace',
      },
      challenge: Buffer.from(challenge).toString('base64url'),
      pubKeyCredParams: [
        { type: 'public-key', alg: -7 },
        { type: 'public-key', alg: -8 },
        { type: 'public-key', alg: -257 },
      ],
      timeout: 300_000,
      excludeCredentials: [
        { id: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8', type: 'public-key' },
        { id: 'qrvM3e7_', type: 'public-key' },
      ],
      authenticatorSelection: { userVerification: 'discouraged', residentKey: 'discouraged' },
      attestation: 'none',
    });
  });

  it('survives JSON (it is sent as JSON) unchanged', () => {
    const options = buildCreationOptions({ ...input, attestation: 'direct' });
    expect(JSON.parse(JSON.stringify(options))).toEqual(options);
    expect(options.attestation).toBe('direct');
  });

  it('encodes the user handle from UTF-8, so non-ASCII ids round-trip', () => {
    const options = buildCreationOptions({ ...input, userId: 'ünïcødé-👤' });
    expect(Buffer.from(options.user.id, 'base64url').toString('utf8')).toBe('ünïcødé-👤');
    expect(options.user.id).not.toMatch(/[+/=]/);
  });

  it('refuses inputs a browser would reject or that weaken the ceremony', () => {
    expect(() => buildCreationOptions({ ...input, challenge: challenge.slice(0, 31) })).toThrow(/32 bytes/);
    expect(() => buildCreationOptions({ ...input, userId: 'x'.repeat(65) })).toThrow(/1\.\.64 bytes/);
    expect(() => buildCreationOptions({ ...input, userId: '' })).toThrow(/1\.\.64 bytes/);
    expect(() => buildCreationOptions({ ...input, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => buildCreationOptions({ ...input, excludeCredentialIds: ['q/+='] })).toThrow(/base64url/);
  });
});
