// The TOTP decider: one TOTP per user, pending or ready, on the user's events.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../../src/domain/events/index.js';
import { totpDecider } from '../../../src/domain/totp/decider.js';
import { decide, refusal } from '../../support/deciders.js';

const U = 'u1';
const own = { aggregateType: 'user' as const, aggregateId: U, resourceOwner: 'o1', creator: 'a' };
const human: NewEvent = { ...own, type: 'user.human.added', payload: { username: 'ada', givenName: 'A', familyName: 'L', displayName: 'A L', email: 'a@example.com' } };
const machine: NewEvent = { ...own, type: 'user.machine.added', payload: { username: 'm', name: 'm', description: '' } };
const added = (totpId: string): NewEvent => ({ ...own, type: 'user.totp.added', payload: { totpId } });
const verified = (totpId: string): NewEvent => ({ ...own, type: 'user.totp.verified', payload: { totpId } });
const d = totpDecider(U);

describe('totpDecider', () => {
  it('add: a pending one is replaced, a ready one refuses, a machine user refuses, no user is 404', () => {
    expect(decide(d, [human], { kind: 'add', totpId: 't1', actor: 'a' }).map((e) => [e.type, e.payload])).toEqual([['user.totp.added', { totpId: 't1' }]]);
    expect(decide(d, [human, added('t1')], { kind: 'add', totpId: 't2', actor: 'a' }).map((e) => e.payload)).toEqual([{ totpId: 't2' }]);
    expect(refusal(d, [human, added('t1'), verified('t1')], { kind: 'add', totpId: 't2', actor: 'a' }).reason).toBe('TOTP_ALREADY_READY');
    expect(refusal(d, [machine], { kind: 'add', totpId: 't1', actor: 'a' }).reason).toBe('USER_NOT_HUMAN');
    expect(refusal(d, [], { kind: 'add', totpId: 't1', actor: 'a' }).reason).toBe('USER_NOT_FOUND');
  });

  it('verify: the pending one becomes ready (with recovery codes when given); none, ready or replaced refuse', () => {
    const events = decide(d, [human, added('t1')], { kind: 'verify', totpId: 't1', step: 100, actor: 'a', recoveryCodeHashes: ['h1', 'h2'] });
    expect(events.map((e) => e.type)).toEqual(['user.totp.verified', 'user.recovery.codes.generated']);
    expect(decide(d, [human, added('t1')], { kind: 'verify', totpId: 't1', step: 100, actor: 'a' }).map((e) => e.type)).toEqual(['user.totp.verified']);
    expect(refusal(d, [human], { kind: 'verify', totpId: 't1', step: 100, actor: 'a' }).reason).toBe('TOTP_NOT_REGISTERED');
    expect(refusal(d, [human, added('t1'), verified('t1')], { kind: 'verify', totpId: 't1', step: 100, actor: 'a' }).reason).toBe('TOTP_ALREADY_READY');
    expect(refusal(d, [human, added('t1'), added('t2')], { kind: 'verify', totpId: 't1', step: 100, actor: 'a' }).reason).toBe('TOTP_CODE_WRONG');
  });

  it('remove: the current one (pending or ready), then nothing to remove; a removed user has none', () => {
    expect(decide(d, [human, added('t1'), verified('t1')], { kind: 'remove', actor: 'a' }).map((e) => e.payload)).toEqual([{ totpId: 't1' }]);
    const removed: NewEvent = { ...own, type: 'user.totp.removed', payload: { totpId: 't1' } };
    expect(refusal(d, [human, added('t1'), removed], { kind: 'remove', actor: 'a' }).reason).toBe('TOTP_NOT_REGISTERED');
    const userRemoved: NewEvent = { ...own, type: 'user.removed', payload: {} };
    expect(refusal(d, [human, added('t1'), userRemoved], { kind: 'remove', actor: 'a' }).reason).toBe('USER_NOT_FOUND');
  });

  it('verify: a first factor\u2019s codes only while no set was generated since the command counted them; the confirming step is spent', () => {
    const codes: NewEvent = { ...own, type: 'user.recovery.codes.generated', payload: { codeHashes: ['x'] } };
    const counted = (history: NewEvent[], ifGenerations: number) => decide(d, history, { kind: 'verify', totpId: 't1', step: 100, actor: 'a', recoveryCodeHashes: ['h1'], ifGenerations }).map((e) => e.type);
    expect(counted([human, added('t1')], 0)).toEqual(['user.totp.verified', 'user.recovery.codes.generated']);
    // Another first factor's set was written meanwhile: this one brings none.
    expect(counted([human, codes, added('t1')], 0)).toEqual(['user.totp.verified']);
    expect(counted([human, codes, added('t1')], 1)).toEqual(['user.totp.verified', 'user.recovery.codes.generated']);
    const confirmed: NewEvent = { ...own, type: 'user.totp.verified', payload: { totpId: 't1', step: 100 } };
    expect(decide(d, [human, added('t1'), confirmed], { kind: 'use', totpId: 't1', step: 100, floor: -1, clientId: 'app', actor: U })[0]!.type).toBe('user.totp.check.failed');
  });

  it('use: a step newer than every spent one is user.totp.used with its step; a wrong, spent or older one user.totp.check.failed; no code or secret in either', () => {
    const history = [human, added('t1'), verified('t1')];
    const use = (events: NewEvent[], step: number | undefined, floor = -1) => decide(d, events, { kind: 'use', totpId: 't1', step, floor, clientId: 'app', actor: U });
    const ok = use(history, 200);
    const no = use(history, undefined);
    expect([...ok, ...no].map((e) => [e.type, e.payload])).toEqual([
      ['user.totp.used', { totpId: 't1', clientId: 'app', step: 200 }],
      ['user.totp.check.failed', { totpId: 't1', clientId: 'app' }],
    ]);
    const after = [...history, ...ok];
    // The same step again, an older one, or one at or below the secrets table's floor: refused.
    expect(use(after, 200)[0]!.type).toBe('user.totp.check.failed');
    expect(use(after, 199)[0]!.type).toBe('user.totp.check.failed');
    expect(use(history, 150, 150)[0]!.type).toBe('user.totp.check.failed');
    expect(use(after, 201)[0]!.type).toBe('user.totp.used');
    // A replaced or pending app accepts nothing.
    expect(use([human, added('t1')], 300)[0]!.type).toBe('user.totp.check.failed');
  });
});
