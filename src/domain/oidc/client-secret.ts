// Client secrets of confidential OIDC apps (design §6): generated from the
// CSPRNG, shown once, stored only as a hash, verified in constant time.
//
// Why a FAST hash (one SHA-256) and not bcrypt/argon2: slow hashes exist to make
// guessing low-entropy, human-chosen passwords expensive. These secrets are 64
// characters drawn uniformly from 62 symbols: 64 × log2(62) ≈ 381 bits of
// entropy. Even at 10^18 guesses per second, brute force outlasts the universe,
// and a leaked hash table cannot be reversed either. A slow hash would add
// nothing but CPU cost on every token request (ZITADEL and Ory Hydra both
// moved away from bcrypt for client secrets for exactly this reason).

import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBytes } from '../random.js';
import type { OidcAuthMethodType } from './types.js';

export const CLIENT_SECRET_LENGTH = 64;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// Auth methods in which the client proves itself with a shared secret. NONE
// (public clients, PKCE) and PRIVATE_KEY_JWT (asymmetric keys) have none.
const SECRET_METHODS: ReadonlySet<string> = new Set<OidcAuthMethodType>([
  'OIDC_AUTH_METHOD_TYPE_BASIC',
  'OIDC_AUTH_METHOD_TYPE_POST',
]);

export function needsClientSecret(authMethod: OidcAuthMethodType | string): boolean {
  return SECRET_METHODS.has(authMethod);
}

// Rejection sampling: 256 is not a multiple of 62, so `byte % 62` would favour
// the first 8 symbols. Accept only bytes below 248 (= 4 × 62), where every
// symbol has exactly 4 preimages, and draw again for the rest (~3% of bytes).
const ACCEPT_BELOW = 256 - (256 % ALPHABET.length);

/** 64 characters of [A-Za-z0-9], uniformly random from the CSPRNG. */
export function generateClientSecret(): string {
  let out = '';
  while (out.length < CLIENT_SECRET_LENGTH) {
    // A little over what is needed, so one draw almost always suffices.
    for (const byte of randomBytes(CLIENT_SECRET_LENGTH + 16)) {
      if (byte >= ACCEPT_BELOW) continue;
      out += ALPHABET[byte % ALPHABET.length];
      if (out.length === CLIENT_SECRET_LENGTH) break;
    }
  }
  return out;
}

/**
 * The stored form of a secret: SHA-256 of its UTF-8 bytes, as 64 lowercase hex
 * characters. Deterministic (no salt needed at this entropy), so a stored hash
 * can also serve as a lookup key.
 */
export function hashClientSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

const STORED_HASH = /^[0-9a-f]{64}$/i;

/**
 * Whether `presented` is the secret whose hash is `storedHash`. Both sides are
 * compared as 32-byte digests, so the comparison time depends on neither the
 * secret nor the presented length; malformed input yields false, never a throw.
 */
export function verifyClientSecret(presented: string, storedHash: string): boolean {
  if (typeof presented !== 'string' || typeof storedHash !== 'string') return false;
  if (!STORED_HASH.test(storedHash)) return false;
  const expected = Buffer.from(storedHash, 'hex');
  const actual = createHash('sha256').update(presented, 'utf8').digest();
  // Plain Uint8Array views keep the call type-correct across @types/node versions.
  return timingSafeEqual(new Uint8Array(actual), new Uint8Array(expected));
}

/** The claim a machine user's token says which secret got it in (a JWT's claim, an opaque token's stored extra). */
export const SECRET_VERSION_CLAIM = 'keyhold_secret_version';

/**
 * Which secret a token was got with, as a JWT may say it (16 characters): a
 * one-way digest of the stored hash, so a machine user's JWT from a secret
 * since regenerated is told apart without a clock. Says nothing of the secret.
 */
export function secretVersion(storedHash: string): string {
  return createHash('sha256').update(`keyhold client secret version\u0000${storedHash}`).digest('base64url').slice(0, 16);
}
