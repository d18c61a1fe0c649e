// Object ids: 26 characters of Crockford base32 (lowercase), a 48-bit millisecond
// timestamp followed by 80 random bits. Sorts by creation time, and processes
// sharing one database need no coordination: a collision needs two processes to
// draw the same 80 random bits in the same millisecond.
import { randomBytes } from './random.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export function newId(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  // First 6 bytes: timestamp, big-endian.
  let t = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = t % 256;
    t = Math.floor(t / 256);
  }
  // 128 bits → 26 base32 characters, most significant first; the first
  // character takes the top 3 bits (as if 2 zero bits were in front).
  let out = '';
  for (let bit = -2; bit < 128; bit += 5) {
    let symbol = 0;
    for (let b = bit; b < bit + 5; b++) symbol = (symbol << 1) | (b < 0 ? 0 : (bytes[b >> 3]! >> (7 - (b & 7))) & 1);
    out += ALPHABET[symbol];
  }
  return out;
}

/** A random token of `bytes` bytes, base64url without padding. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
