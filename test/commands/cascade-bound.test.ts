// The bound of one cascade (src/commands/projects/cascade-bound.ts): what one
// append may change when a role or a project is removed.
import { describe, expect, it } from 'vitest';
import { assertCascadeBounded, MAX_CASCADE } from '../../src/commands/projects/cascade-bound.js';
import { KeyholdError } from '../../src/domain/errors/keyhold-error.js';

describe('cascade bound', () => {
  it('up to MAX_CASCADE grants and apps pass; one more is CASCADE_TOO_LARGE naming both numbers', () => {
    expect(() => assertCascadeBounded(MAX_CASCADE)).not.toThrow();
    let thrown: unknown;
    try {
      assertCascadeBounded(MAX_CASCADE + 1);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(KeyholdError);
    expect(thrown).toMatchObject({ reason: 'CASCADE_TOO_LARGE', metadata: { count: String(MAX_CASCADE + 1), max: String(MAX_CASCADE) } });
    // Its events fit in one insert: 7 parameters each, PostgreSQL's limit 65,535.
    expect((MAX_CASCADE + 1) * 7).toBeLessThan(65_535);
  });
});
