import { describe, expect, it } from 'vitest';
import {
  CLIENT_SECRET_LENGTH,
  generateClientSecret,
  hashClientSecret,
  needsClientSecret,
  verifyClientSecret,
} from '../../../src/domain/oidc/client-secret.js';
import { OIDC_AUTH_METHOD_TYPES } from '../../../src/domain/oidc/types.js';

describe('needsClientSecret', () => {
  it.each([
    ['OIDC_AUTH_METHOD_TYPE_BASIC', true],
    ['OIDC_AUTH_METHOD_TYPE_POST', true],
    ['OIDC_AUTH_METHOD_TYPE_NONE', false],
    ['OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT', false],
  ] as const)('%s → %s', (method, expected) => {
    expect(needsClientSecret(method)).toBe(expected);
  });

  it('covers every auth method of the schema', () => {
    expect(OIDC_AUTH_METHOD_TYPES.filter(needsClientSecret)).toEqual([
      'OIDC_AUTH_METHOD_TYPE_BASIC',
      'OIDC_AUTH_METHOD_TYPE_POST',
    ]);
  });
});

describe('generateClientSecret', () => {
  const N = 2000;
  const secrets = Array.from({ length: N }, generateClientSecret);

  it('is 64 characters of [A-Za-z0-9]', () => {
    expect(CLIENT_SECRET_LENGTH).toBe(64);
    for (const s of secrets) expect(s).toMatch(/^[A-Za-z0-9]{64}$/);
  });

  it('never repeats', () => {
    expect(new Set(secrets).size).toBe(N);
  });

  it('uses all 62 symbols with no visible bias', () => {
    // 128 000 draws: each symbol expected ≈ 2065 times. Modulo bias would give the
    // first 8 symbols 5/4 of the others' share (≈ +25%); allow ±12%.
    const counts = new Map<string, number>();
    for (const s of secrets) for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (N * 64) / 62;
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(expected * 0.88);
      expect(n).toBeLessThan(expected * 1.12);
    }
  });
});

describe('hashClientSecret / verifyClientSecret', () => {
  const secret = generateClientSecret();
  const stored = hashClientSecret(secret);

  it('stores 64 hex characters that do not contain the secret', () => {
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain(secret);
    expect(hashClientSecret(secret)).toBe(stored);
  });

  it('is SHA-256 of the UTF-8 bytes (known vector)', () => {
    expect(hashClientSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('verifies the right secret', () => {
    expect(verifyClientSecret(secret, stored)).toBe(true);
    expect(verifyClientSecret(secret, stored.toUpperCase())).toBe(true);
  });

  it('rejects a different secret, including one differing in a single character', () => {
    expect(verifyClientSecret(generateClientSecret(), stored)).toBe(false);
    const flipped = (secret[0] === 'A' ? 'B' : 'A') + secret.slice(1);
    expect(verifyClientSecret(flipped, stored)).toBe(false);
    expect(verifyClientSecret(secret.slice(0, -1), stored)).toBe(false);
  });

  it('returns false, never throws, on wrong-length or malformed input', () => {
    expect(() => verifyClientSecret('', stored)).not.toThrow();
    expect(verifyClientSecret('', stored)).toBe(false);
    expect(verifyClientSecret('x'.repeat(100_000), stored)).toBe(false);
    expect(verifyClientSecret(secret, stored.slice(0, 10))).toBe(false);
    expect(verifyClientSecret(secret, `${stored}00`)).toBe(false);
    expect(verifyClientSecret(secret, '')).toBe(false);
    expect(verifyClientSecret(secret, 'z'.repeat(64))).toBe(false);
    expect(verifyClientSecret(undefined as unknown as string, stored)).toBe(false);
    expect(verifyClientSecret(secret, null as unknown as string)).toBe(false);
  });
});
