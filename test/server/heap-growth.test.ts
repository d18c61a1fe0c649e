// The heap growth bound (src/server/heap-growth.ts): set at start-up unless
// the operator gave the flag, on the command line or in NODE_OPTIONS.
import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from '../../src/server/heap-growth.js';

describe('heap growth bound', () => {
  it('is set when the operator gave no growth factor', () => {
    expect(boundHeapGrowth(['--enable-source-maps'], '--max-old-space-size=512')).toBe(true);
  });

  it("leaves the operator's own factor, given as a flag or in NODE_OPTIONS, in either spelling", () => {
    expect(boundHeapGrowth(['--heap-growing-percent=80'], '')).toBe(false);
    expect(boundHeapGrowth([], '--inspect --heap_growing_percent=20')).toBe(false);
    expect(boundHeapGrowth(['--heap-growing-percentage-of-nothing'], '')).toBe(true);
  });
});
