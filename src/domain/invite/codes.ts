// Invitation codes: drawn from the CSPRNG, shown once (in the mail's link or
// in the answer to the caller who asked for it), stored only as a hash.
//
// 20 symbols of Crockford's base32 (100 bits), as `xxxxx-xxxxx-xxxxx-xxxxx`
// so a person can read it out or type it into another login UI. A fast hash
// (SHA-256, under a label and the user's id) is enough for a random 100-bit
// value: there is no dictionary to try, and online guessing meets the attempt
// budgets long before (as recovery codes: ../user/recovery-codes.ts).
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBytes } from '../random.js';
import { RECOVERY_ALPHABET } from '../user/recovery-codes.js';

export const INVITE_CODE_LENGTH = 20;
/** How long an invitation works: three days, long enough for a weekend (ZITADEL's default is 72 h as well). */
export const INVITE_LIFETIME_MS = 72 * 3600 * 1000;

const LOOKALIKES: Readonly<Record<string, string>> = { o: '0', i: '1', l: '1' };

/** A fresh code, formatted for showing. 256 is a multiple of 32: `byte & 31` is unbiased. */
export function generateInviteCode(): string {
  let out = '';
  for (const byte of randomBytes(INVITE_CODE_LENGTH)) out += RECOVERY_ALPHABET[byte & 31];
  return out.match(/.{5}/g)!.join('-');
}

/** What was typed or pasted, as a code (case, dashes and spaces ignored; o/i/l read as 0/1/1); anything else undefined. */
export function normalizeInviteCode(typed: string): string | undefined {
  if (typeof typed !== 'string' || typed.length > 64) return undefined;
  let out = '';
  for (const ch of typed.toLowerCase()) {
    if (ch === '-' || /\s/.test(ch)) continue;
    const symbol = LOOKALIKES[ch] ?? ch;
    if (!RECOVERY_ALPHABET.includes(symbol)) return undefined;
    out += symbol;
  }
  return out.length === INVITE_CODE_LENGTH ? out : undefined;
}

/** The stored form of user `userId`'s code: SHA-256 hex, the user's id mixed in (one code, one user). */
export function hashInviteCode(userId: string, code: string): string {
  const normalized = normalizeInviteCode(code) ?? code;
  return createHash('sha256').update(`keyhold invite code\u0000${userId}\u0000${normalized}`, 'utf8').digest('hex');
}

/** Whether `typed` is the code whose hash is `stored` (constant time). */
export function inviteCodeMatches(userId: string, typed: string, stored: string): boolean {
  const normalized = normalizeInviteCode(typed);
  if (!normalized || !stored) return false;
  const a = Buffer.from(hashInviteCode(userId, normalized), 'hex');
  const b = Buffer.from(stored, 'hex');
  return a.length === b.length && timingSafeEqual(new Uint8Array(a), new Uint8Array(b));
}
