// Object ids and the pooled random source behind them and behind client secrets.
import { describe, expect, it } from 'vitest';
import { newId, randomToken } from '../../src/domain/ids.js';
import { randomBytes } from '../../src/domain/random.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** The 128 bits an id spells, read back independently (BigInt, most significant character first). */
function bitsOf(id: string): bigint {
  return [...id].reduce((acc, c) => (acc << 5n) | BigInt(ALPHABET.indexOf(c)), 0n);
}

describe('newId', () => {
  it('is 26 lowercase Crockford base32 characters whose top 48 bits are the millisecond given', () => {
    for (const now of [0, 1, 1_763_750_000_123, 2 ** 48 - 1]) {
      const id = newId(now);
      expect(id).toMatch(/^[0-9abcdefghjkmnpqrstvwxyz]{26}$/);
      // 26 characters hold 130 bits; the top 2 are always zero.
      expect(bitsOf(id) >> 128n).toBe(0n);
      expect(bitsOf(id) >> 80n).toBe(BigInt(now));
    }
  });

  it('sorts by creation time and never repeats', () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => newId(1_763_750_000_000 + Math.floor(i / 100)));
    expect(new Set(ids).size).toBe(ids.length);
    const byTime = ids.map((id) => bitsOf(id) >> 80n);
    expect([...ids].sort()).toEqual(
      [...ids].sort((a, b) => {
        const d = bitsOf(a) - bitsOf(b);
        return d < 0n ? -1 : d > 0n ? 1 : 0;
      }),
    );
    expect(byTime.every((t, i) => i === 0 || t >= byTime[i - 1]!)).toBe(true);
  });

  it('spreads its 80 random bits evenly (each bit set in about half of the ids)', () => {
    const counts = new Array<number>(80).fill(0);
    const n = 4_000;
    for (let i = 0; i < n; i++) {
      const random = bitsOf(newId(0));
      for (let b = 0; b < 80; b++) if ((random >> BigInt(b)) & 1n) counts[b]!++;
    }
    // Binomial(4000, 0.5): mean 2000, sd ~32; 6 sd either side.
    for (const c of counts) expect(Math.abs(c - n / 2)).toBeLessThan(190);
  });
});

describe('pooled random bytes', () => {
  it('hands out fresh bytes each call, never a view of the shared pool', () => {
    const seen = new Set<string>();
    const kept: Buffer[] = [];
    // More than a pool's worth, so refills happen in between.
    for (let i = 0; i < 600; i++) {
      const bytes = randomBytes(16);
      expect(bytes).toHaveLength(16);
      seen.add(bytes.toString('hex'));
      kept.push(bytes);
    }
    expect(seen.size).toBe(600);
    const snapshot = kept.map((b) => b.toString('hex'));
    for (let i = 0; i < 600; i++) randomBytes(32).fill(0);
    expect(kept.map((b) => b.toString('hex'))).toEqual(snapshot);
    expect(randomBytes(4096)).toHaveLength(4096);
  });

  it('refuses counts that are not byte counts instead of handing out bytes twice', () => {
    for (const n of [-1, 1.5, Number.NaN]) expect(() => randomBytes(n)).toThrow(RangeError);
    expect(randomBytes(0)).toHaveLength(0);
  });

  it('randomToken is base64url of the requested length', () => {
    expect(randomToken(32)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
