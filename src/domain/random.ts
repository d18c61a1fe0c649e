// Random bytes from the CSPRNG, drawn 4 KiB at a time and handed out once each.
//
// Why: every AddOIDCApp draws three small amounts (two ids, a secret), and
// each crypto.randomBytes call pays a fixed cost into OpenSSL and a Buffer
// allocation (bench profile: randomFillSync ~3% of the server's time). Node's
// own crypto.randomUUID batches the same way. Every byte is still from the
// CSPRNG and used once; callers get their own copy.
import { randomBytes as cryptoRandomBytes, randomFillSync } from 'node:crypto';

const pool = Buffer.allocUnsafe(4096);
let next = pool.length;

/** `n` fresh random bytes (a copy the caller owns). */
export function randomBytes(n: number): Buffer {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`randomBytes: ${n} is not a byte count`);
  if (n > pool.length / 4) return cryptoRandomBytes(n);
  if (next + n > pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const out = Buffer.from(pool.subarray(next, next + n));
  next += n;
  return out;
}
