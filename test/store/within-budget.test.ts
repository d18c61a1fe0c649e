// takeWithinBudget (store/queries/within-budget.ts): a page of large rows read
// in chunks ends at its limit or its byte budget, always with one row, and
// never asks for much more than the budget holds.
import { describe, expect, it } from 'vitest';
import { takeWithinBudget } from '../../src/store/queries/within-budget.js';

/** Rows 0..n-1 of `size(i)` bytes, read as the store would: after a row, at most `count`; the counts asked are kept. */
function source(n: number, size: (i: number) => number) {
  const asked: number[] = [];
  const rows = Array.from({ length: n }, (_, i) => ({ i, bytes: size(i) }));
  return {
    asked,
    chunk: async (after: { i: number } | undefined, count: number) => {
      asked.push(count);
      const from = after === undefined ? 0 : after.i + 1;
      return rows.slice(from, from + count);
    },
  };
}
const bytes = (r: { bytes: number }) => r.bytes;

describe('takeWithinBudget', () => {
  it('small rows: the limit, in order, in a few growing chunks', async () => {
    const s = source(5000, () => 100);
    const taken = await takeWithinBudget(1000, 2 ** 21, bytes, s.chunk);
    expect(taken.map((r) => r.i)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(s.asked).toEqual([25, 50, 100, 200, 400, 225]);
  });

  it('large rows: stops before the budget is passed; the next page starts right after', async () => {
    const s = source(100, () => 400_000);
    const taken = await takeWithinBudget(1000, 2_000_000, bytes, s.chunk);
    expect(taken).toHaveLength(5);
    expect(taken.reduce((n, r) => n + r.bytes, 0)).toBeLessThanOrEqual(2_000_000);
    // One chunk of 25 read: never more than that first chunk over the budget.
    expect(s.asked).toEqual([25]);
  });

  it('one row larger than the budget still comes alone; the end of the rows ends the page', async () => {
    expect(await takeWithinBudget(10, 1000, bytes, source(3, () => 5000).chunk)).toHaveLength(1);
    expect(await takeWithinBudget(10, 1e9, bytes, source(3, () => 5).chunk)).toHaveLength(3);
    expect(await takeWithinBudget(10, 1e9, bytes, source(0, () => 5).chunk)).toHaveLength(0);
  });

  it('small rows, then large ones: the next chunk at most doubles, so what is read stays near the budget', async () => {
    const s = source(1000, (i) => (i < 25 ? 10 : 50_000));
    const taken = await takeWithinBudget(1000, 1_000_000, bytes, s.chunk);
    expect(taken.reduce((n, r) => n + r.bytes, 0)).toBeLessThanOrEqual(1_000_000);
    expect(taken.length).toBe(25 + Math.floor((1_000_000 - 250) / 50_000));
    expect(s.asked).toEqual([25, 50]);
  });
});
