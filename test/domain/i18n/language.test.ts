import { describe, expect, it } from 'vitest';
import { negotiateLanguage } from '../../../src/domain/i18n/language.js';

describe('negotiateLanguage', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['de', 'de'],
    ['de-CH, en;q=0.5', 'de'],
    ['en;q=0.4, de;q=0.9', 'de'],
    ['fr, de;q=0.1', 'de'],
    ['fr, it', 'en'],
    ['de;q=0, en', 'en'],
    ['*', 'en'],
    ['DE-at', 'de'],
  ])('%s → %s', (header, expected) => {
    expect(negotiateLanguage(header)).toBe(expected);
  });
});
