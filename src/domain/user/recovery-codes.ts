// Recovery codes (for a lost key): one-time codes a user keeps on paper
// and types at the login in place of a lost security key. Pure: generation
// from the CSPRNG, the normalization of what a user types, the stored hash.
//
// Why a FAST hash (one SHA-256) and not argon2 as for passwords: each code is
// 12 symbols drawn uniformly from 32, 60 bits of entropy, not a human choice,
// so there is no dictionary to try first. Online guessing meets the login's
// throttle (src/server/oidc/throttle.ts) long before 2^60; offline, a leaked
// event store at 10^10 SHA-256/s still costs months per user's set, and a code
// alone is no login (the password comes first). A slow hash would cost up to
// ten verifications per try at the login for no gain. The user id is mixed in
// (with a label), so the same code of two users has two hashes and one table
// of hashes cannot be precomputed for all users.
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBytes } from '../random.js';

/** How many codes a set has (as ZITADEL). */
export const RECOVERY_CODE_COUNT = 10;
/** Symbols per code: 12 × 5 bits = 60 bits of entropy. */
export const RECOVERY_CODE_LENGTH = 12;
/**
 * Crockford's base32 alphabet, lower case: no i, l, o, u, so nothing looks like
 * something else (the digits 0 and 1 stay; a typed o, i or l is read as them).
 */
export const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** Look-alikes a person may type for a symbol of the alphabet. */
const LOOKALIKES: Readonly<Record<string, string>> = { o: '0', i: '1', l: '1' };

/** One code as shown: two groups of six, `xxxxxx-xxxxxx`. */
export function formatRecoveryCode(normalized: string): string {
  return `${normalized.slice(0, 6)}-${normalized.slice(6)}`;
}

/** A fresh code, normalized (12 symbols). 256 is a multiple of 32: `byte & 31` is unbiased. */
export function generateRecoveryCode(): string {
  let out = '';
  for (const byte of randomBytes(RECOVERY_CODE_LENGTH)) out += RECOVERY_ALPHABET[byte & 31];
  return out;
}

/** A new set: RECOVERY_CODE_COUNT distinct codes, formatted for showing. */
export function generateRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  const codes = new Set<string>();
  while (codes.size < count) codes.add(generateRecoveryCode());
  return [...codes].map(formatRecoveryCode);
}

/**
 * What the user typed, as a code: case ignored, dashes and spaces (any
 * whitespace) dropped, o/i/l read as 0/1/1. Anything else — another symbol, too
 * short, too long — is undefined: refused, never guessed at.
 */
export function normalizeRecoveryCode(typed: string): string | undefined {
  if (typeof typed !== 'string' || typed.length > 64) return undefined;
  let out = '';
  for (const ch of typed.toLowerCase()) {
    if (ch === '-' || /\s/.test(ch)) continue;
    const symbol = LOOKALIKES[ch] ?? ch;
    if (!RECOVERY_ALPHABET.includes(symbol)) return undefined;
    out += symbol;
  }
  return out.length === RECOVERY_CODE_LENGTH ? out : undefined;
}

/** The stored form of user `userId`'s code (normalized or as shown): SHA-256 hex (see the top of this file). */
export function hashRecoveryCode(userId: string, code: string): string {
  const normalized = normalizeRecoveryCode(code) ?? code;
  return createHash('sha256').update(`keyhold recovery code\u0000${userId}\u0000${normalized}`, 'utf8').digest('hex');
}

/**
 * The index in `hashes` of the code `typed`, among the `usable` indexes, or -1.
 * Every usable hash is compared in constant time, so the time does not say
 * which one (or whether one) matched.
 */
export function matchRecoveryCode(userId: string, typed: string, hashes: readonly string[], usable: readonly number[]): number {
  const normalized = normalizeRecoveryCode(typed);
  if (!normalized) return -1;
  const presented = Buffer.from(hashRecoveryCode(userId, normalized), 'hex');
  let found = -1;
  for (const i of usable) {
    const stored = Buffer.from(hashes[i] ?? '', 'hex');
    if (stored.length === presented.length && timingSafeEqual(new Uint8Array(stored), new Uint8Array(presented)) && found < 0) found = i;
  }
  return found;
}
