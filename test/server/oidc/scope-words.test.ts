// The consent page's words for each scope (scope-words.ts): the metadata scope
// is said in words, in each language, not as its URN.
import { describe, expect, it } from 'vitest';
import { scopeList } from '../../../src/login/pages/scope-words.js';

describe('scopeList', () => {
  it('names the metadata scope in words', () => {
    const en = scopeList('en', 'App', 'openid urn:zitadel:iam:user:metadata');
    expect(en).toContain('<li data-scope="urn:zitadel:iam:user:metadata">read the metadata your organization keeps about you</li>');
    expect(scopeList('de', 'App', 'urn:zitadel:iam:user:metadata')).toContain('die Metadaten lesen, die deine Organisation über dich führt');
  });
});
