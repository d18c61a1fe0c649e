// The heap growth bound (src/server/heap-growth.ts): set at start-up unless
// the operator gave the flag, on the command line or in NODE_OPTIONS. The
// decision alone is tested here (setting the flag would change this test
// process's collector for the files after it); npm-start and the bench run the
// server that sets it.
import { describe, expect, it } from 'vitest';
import { heapGrowthGiven } from '../../src/server/heap-growth.js';

describe('heap growth bound', () => {
  it('is set when the operator gave no growth factor', () => {
    expect(heapGrowthGiven(['--enable-source-maps'], '--max-old-space-size=512')).toBe(false);
    expect(heapGrowthGiven([], '')).toBe(false);
  });

  it("leaves the operator's own factor, given as a flag or in NODE_OPTIONS, in either spelling", () => {
    expect(heapGrowthGiven(['--heap-growing-percent=80'], '')).toBe(true);
    expect(heapGrowthGiven([], '--inspect --heap_growing_percent=20')).toBe(true);
    expect(heapGrowthGiven(['--heap-growing-percentage-of-nothing'], '')).toBe(false);
  });
});
