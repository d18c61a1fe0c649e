// Recovery codes (for a lost key): the pure module (generation, what a
// typed code may look like, the hash) and the decider on the user's aggregate,
// given events → command → events.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../../src/domain/events/index.js';
import { userDecider } from '../../../src/domain/user/decider.js';
import {
  formatRecoveryCode,
  generateRecoveryCodes,
  hashRecoveryCode,
  normalizeRecoveryCode,
  RECOVERY_ALPHABET,
  RECOVERY_CODE_COUNT,
} from '../../../src/domain/user/recovery-codes.js';
import { recoveryDecider, type RecoveryCommand } from '../../../src/domain/user/recovery-decider.js';
import { decide, refusal } from '../../support/deciders.js';

const decider = recoveryDecider('u1');
const added: NewEvent[] = decide(userDecider('u1'), [], {
  kind: 'addHuman',
  orgId: 'org',
  username: 'ada',
  givenName: 'Ada',
  familyName: 'L',
  displayName: '',
  email: 'a@example.com',
  actor: 'admin',
});
const generate = (codes: string[]): RecoveryCommand => ({ kind: 'generate', codeHashes: codes.map((c) => hashRecoveryCode('u1', c)), actor: 'u1' });
const use = (typed: string): RecoveryCommand => ({ kind: 'use', typed, clientId: 'app', actor: 'u1' });
const withCodes = (codes: string[]): NewEvent[] => [...added, ...decide(decider, added, generate(codes))];

describe('recovery codes (pure)', () => {
  it('a set is 10 distinct codes shown as xxxxxx-xxxxxx from the unambiguous alphabet', () => {
    const codes = generateRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of codes) expect(code).toMatch(new RegExp(`^[${RECOVERY_ALPHABET}]{6}-[${RECOVERY_ALPHABET}]{6}$`));
    expect(RECOVERY_ALPHABET).toHaveLength(32);
    expect(RECOVERY_ALPHABET).not.toMatch(/[ilou]/);
  });

  it('uses every symbol (60 bits a code: no symbol left out by a biased draw)', () => {
    const seen = new Set(generateRecoveryCodes(200).join('').replace(/-/g, ''));
    expect(seen.size).toBe(32);
  });

  it('reads what a person types: any case, dashes, spaces, o/i/l for 0/1/1; refuses anything else', () => {
    expect(normalizeRecoveryCode('4F7K2Q-9XM3BD')).toBe('4f7k2q9xm3bd');
    expect(normalizeRecoveryCode(' 4f7k 2q9x-m3bd ')).toBe('4f7k2q9xm3bd');
    expect(normalizeRecoveryCode('O1IL00-abcdef')).toBe('011100abcdef');
    expect(normalizeRecoveryCode('4f7k2q-9xm3b')).toBeUndefined(); // 11 symbols
    expect(normalizeRecoveryCode('4f7k2q-9xm3bdd')).toBeUndefined(); // 13
    expect(normalizeRecoveryCode('4f7k2q_9xm3bd')).toBeUndefined(); // another separator
    expect(normalizeRecoveryCode('4f7k2q-9xm3bu')).toBeUndefined(); // u is not in the alphabet
    expect(normalizeRecoveryCode('')).toBeUndefined();
  });

  it('hashes the normalized code per user: the same code of two users has two hashes', () => {
    expect(hashRecoveryCode('u1', '4F7K2Q 9XM3BD')).toBe(hashRecoveryCode('u1', '4f7k2q-9xm3bd'));
    expect(hashRecoveryCode('u1', '4f7k2q-9xm3bd')).not.toBe(hashRecoveryCode('u2', '4f7k2q-9xm3bd'));
    expect(hashRecoveryCode('u1', '4f7k2q-9xm3bd')).toMatch(/^[0-9a-f]{64}$/);
    expect(formatRecoveryCode('4f7k2q9xm3bd')).toBe('4f7k2q-9xm3bd');
  });
});

describe('recovery codes decider', () => {
  const codes = ['aaaaaa-aaaaa1', 'bbbbbb-bbbbb2', 'cccccc-ccccc3'];

  it('generate: only the hashes go into the event, never a code', () => {
    const events = decide(decider, added, generate(codes));
    expect(events).toEqual([
      {
        aggregateType: 'user',
        aggregateId: 'u1',
        resourceOwner: 'org',
        creator: 'u1',
        type: 'user.recovery.codes.generated',
        payload: { codeHashes: codes.map((c) => hashRecoveryCode('u1', c)) },
      },
    ]);
    expect(JSON.stringify(events)).not.toContain('aaaaaa');
  });

  it('use: a right code (typed loosely) is recorded with its index; the same code again is a failure', () => {
    const history = withCodes(codes);
    const first = decide(decider, history, use('BBBBBB bbbbb2'));
    expect(first).toEqual([expect.objectContaining({ type: 'user.recovery.code.used', payload: { index: 1, clientId: 'app' } })]);
    const again = decide(decider, [...history, ...first], use('bbbbbb-bbbbb2'));
    expect(again).toEqual([expect.objectContaining({ type: 'user.recovery.code.check.failed', payload: { clientId: 'app' } })]);
    // The others still work.
    expect(decide(decider, [...history, ...first], use('cccccc-ccccc3'))[0]!.type).toBe('user.recovery.code.used');
  });

  it('use: a wrong code, or any code without a set, is a recorded failure; something that is no code is refused without an event', () => {
    expect(decide(decider, withCodes(codes), use('dddddd-ddddd4'))[0]!.type).toBe('user.recovery.code.check.failed');
    expect(decide(decider, added, use('aaaaaa-aaaaa1'))[0]!.type).toBe('user.recovery.code.check.failed');
    expect(refusal(decider, withCodes(codes), use('not a code!'))).toEqual({ reason: 'RECOVERY_CODE_MALFORMED', metadata: { userId: 'u1' } });
  });

  it('regenerating replaces every old code, used or not', () => {
    const history = withCodes(codes);
    const used = [...history, ...decide(decider, history, use('aaaaaa-aaaaa1'))];
    const fresh = ['eeeeee-eeeee5'];
    const regenerated = [...used, ...decide(decider, used, generate(fresh))];
    expect(decide(decider, regenerated, use('bbbbbb-bbbbb2'))[0]!.type).toBe('user.recovery.code.check.failed');
    expect(decide(decider, regenerated, use('eeeeee-eeeee5'))[0]).toEqual(expect.objectContaining({ type: 'user.recovery.code.used', payload: { index: 0, clientId: 'app' } }));
  });

  it('remove: the set goes (no code works after); without a set nothing is written', () => {
    const history = withCodes(codes);
    const removed = decide(decider, history, { kind: 'remove', actor: 'admin' });
    expect(removed).toEqual([expect.objectContaining({ type: 'user.recovery.codes.removed', payload: {}, creator: 'admin' })]);
    expect(decide(decider, [...history, ...removed], use('aaaaaa-aaaaa1'))[0]!.type).toBe('user.recovery.code.check.failed');
    expect(decide(decider, added, { kind: 'remove', actor: 'admin' })).toEqual([]);
  });

  it('refuses every command for a user that does not exist (or was removed)', () => {
    expect(refusal(decider, [], generate(codes)).reason).toBe('USER_NOT_FOUND');
    const gone = [...added, ...decide(userDecider('u1'), added, { kind: 'remove', actor: 'admin' })];
    expect(refusal(decider, gone, use('aaaaaa-aaaaa1')).reason).toBe('USER_NOT_FOUND');
  });
});
