// A user's metadata rules: the key and value bounds (src/domain/user/metadata.ts)
// and the decider's (src/domain/user/decider.ts): set and remove all or nothing,
// at most 64 keys, a removed user's keys gone with it.
import { describe, expect, it } from 'vitest';
import { userDecider, type UserCommand } from '../../../src/domain/user/decider.js';
import { MAX_METADATA_KEYS, metadataKey, metadataValueRule } from '../../../src/domain/user/metadata.js';
import { decide, refusal } from '../../support/deciders.js';

const decider = userDecider('u1');
const human: UserCommand = { kind: 'addHuman', orgId: 'org', username: 'ada', givenName: 'Ada', familyName: 'L', displayName: '', email: 'ada@example.com', actor: 'admin' };
const set = (...keys: string[]): UserCommand => ({ kind: 'setMetadata', entries: keys.map((key, i) => ({ key, value: 'dg==', field: `metadata[${i}].key` })), actor: 'admin' });
const remove = (...keys: string[]): UserCommand => ({ kind: 'removeMetadata', keys, actor: 'admin' });

describe('metadata bounds', () => {
  it('a key: 1 to 200 characters (code points), no control characters, stored in NFC', () => {
    expect(metadataKey('key', 'cafe\u0301').key).toBe('caf\u00e9');
    expect(metadataKey('key', '😀'.repeat(200)).violations).toEqual([]);
    for (const bad of ['', 'k'.repeat(201), 'tab\there', 'nul\u0000', 'c1\u0085', 'half\ud800']) expect(metadataKey('key', bad).violations.map((v) => v.field)).toEqual(['key']);
  });

  it('a value: 1 to 2048 bytes', () => {
    expect(metadataValueRule('value', new Uint8Array(2048))).toEqual([]);
    expect(metadataValueRule('value', new Uint8Array(0)).map((v) => v.field)).toEqual(['value']);
    expect(metadataValueRule('value', new Uint8Array(2049)).map((v) => v.field)).toEqual(['value']);
  });
});

describe('user decider: metadata', () => {
  const history = decide(decider, [], human);

  it('a set is one event per key, in one write; setting a held key again changes its value', () => {
    const first = decide(decider, history, set('a', 'b'));
    expect(first.map((e) => [e.type, e.payload])).toEqual([
      ['user.metadata.set', { key: 'a', value: 'dg==' }],
      ['user.metadata.set', { key: 'b', value: 'dg==' }],
    ]);
    expect(decide(decider, [...history, ...first], set('a')).map((e) => e.type)).toEqual(['user.metadata.set']);
  });

  it('64 keys at most: the first new key past them is refused by its field; held keys may still change', () => {
    const full = [...history, ...decide(decider, history, set(...Array.from({ length: MAX_METADATA_KEYS }, (_, i) => `k${i}`)))];
    const past = refusal(decider, full, set('k0', 'new'));
    expect(past.reason).toBe('INVALID_REQUEST');
    expect(past.metadata.fields).toBe('metadata[1].key');
    expect(decide(decider, full, set('k0', 'k63'))).toHaveLength(2);
    const freed = [...full, ...decide(decider, full, remove('k5'))];
    expect(decide(decider, freed, set('new'))).toHaveLength(1);
  });

  it('a removal takes held keys only: one the user lacks removes none', () => {
    const held = [...history, ...decide(decider, history, set('a', 'b'))];
    expect(refusal(decider, held, remove('a', 'c')).reason).toBe('USER_METADATA_NOT_FOUND');
    expect(decide(decider, held, remove('a', 'b')).map((e) => e.payload)).toEqual([{ key: 'a' }, { key: 'b' }]);
  });

  it('no user, or a removed one: USER_NOT_FOUND; a removed user keeps no keys', () => {
    expect(refusal(decider, [], set('a')).reason).toBe('USER_NOT_FOUND');
    const held = [...history, ...decide(decider, history, set('a'))];
    const removed = [...held, ...decide(decider, held, { kind: 'remove', actor: 'admin' })];
    expect(refusal(decider, removed, remove('a')).reason).toBe('USER_NOT_FOUND');
  });
});
