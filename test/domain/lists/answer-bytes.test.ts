// The byte budget of a list answer (domain/lists.ts): how many leading entries fit.
import { describe, expect, it } from 'vitest';
import { entriesWithin, MAX_ANSWER_BYTES, pageTooLarge } from '../../../src/domain/lists.js';

describe('entriesWithin', () => {
  it('counts the leading entries whose sizes add up to at most the budget', () => {
    expect(entriesWithin([4, 4, 4], 8)).toBe(2);
    expect(entriesWithin([4, 4, 4], 12)).toBe(3);
    expect(entriesWithin([4, 5, 1], 8)).toBe(1);
  });
  it('always lets the first entry through, so a page is never empty while matches remain', () => {
    expect(entriesWithin([100, 1], 8)).toBe(1);
    expect(entriesWithin([], 8)).toBe(0);
  });
  it('defaults to MAX_ANSWER_BYTES, below the 4 MiB gRPC clients accept', () => {
    expect(MAX_ANSWER_BYTES).toBeLessThan(4 * 1024 * 1024);
    expect(entriesWithin([MAX_ANSWER_BYTES, 1])).toBe(1);
  });
  it('a refused page names query.limit and the limit that fits', () => {
    const [v] = pageTooLarge({ en: '100 apps', de: '100 Apps' }, 20, 7);
    expect(v!.field).toBe('query.limit');
    expect(v!.describe('en')).toMatch(/offset 20 .* ask for limit 7$/);
  });
});
