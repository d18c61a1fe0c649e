// Object ids: 26 characters of Crockford base32 (lowercase), a 48-bit millisecond
// timestamp followed by 80 random bits. Sorts by creation time, and processes
// sharing one database need no coordination: a collision needs two processes to
// draw the same 80 random bits in the same millisecond.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export function newId(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  // First 6 bytes: timestamp, big-endian.
  let t = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = t % 256;
    t = Math.floor(t / 256);
  }
  // 128 bits → 26 base32 characters (the top 2 bits of the first char are 0).
  let out = '';
  let acc = 0n;
  for (const b of bytes) acc = (acc << 8n) | BigInt(b);
  for (let i = 0; i < 26; i++) {
    out = ALPHABET[Number(acc & 31n)] + out;
    acc >>= 5n;
  }
  return out;
}

/** A random token of `bytes` bytes, base64url without padding. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
