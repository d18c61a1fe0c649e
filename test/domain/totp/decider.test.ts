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
    const events = decide(d, [human, added('t1')], { kind: 'verify', totpId: 't1', actor: 'a', recoveryCodeHashes: ['h1', 'h2'] });
    expect(events.map((e) => e.type)).toEqual(['user.totp.verified', 'user.recovery.codes.generated']);
    expect(decide(d, [human, added('t1')], { kind: 'verify', totpId: 't1', actor: 'a' }).map((e) => e.type)).toEqual(['user.totp.verified']);
    expect(refusal(d, [human], { kind: 'verify', totpId: 't1', actor: 'a' }).reason).toBe('TOTP_NOT_REGISTERED');
    expect(refusal(d, [human, added('t1'), verified('t1')], { kind: 'verify', totpId: 't1', actor: 'a' }).reason).toBe('TOTP_ALREADY_READY');
    expect(refusal(d, [human, added('t1'), added('t2')], { kind: 'verify', totpId: 't1', actor: 'a' }).reason).toBe('TOTP_CODE_WRONG');
  });

  it('remove: the current one (pending or ready), then nothing to remove; a removed user has none', () => {
    expect(decide(d, [human, added('t1'), verified('t1')], { kind: 'remove', actor: 'a' }).map((e) => e.payload)).toEqual([{ totpId: 't1' }]);
    const removed: NewEvent = { ...own, type: 'user.totp.removed', payload: { totpId: 't1' } };
    expect(refusal(d, [human, added('t1'), removed], { kind: 'remove', actor: 'a' }).reason).toBe('TOTP_NOT_REGISTERED');
    const userRemoved: NewEvent = { ...own, type: 'user.removed', payload: {} };
    expect(refusal(d, [human, added('t1'), userRemoved], { kind: 'remove', actor: 'a' }).reason).toBe('USER_NOT_FOUND');
  });

  it('use: an accepted code is user.totp.used, a refused one user.totp.check.failed; neither carries a code or secret', () => {
    const history = [human, added('t1'), verified('t1')];
    const ok = decide(d, history, { kind: 'use', totpId: 't1', accepted: true, clientId: 'app', actor: U });
    const no = decide(d, history, { kind: 'use', totpId: 't1', accepted: false, clientId: 'app', actor: U });
    expect([...ok, ...no].map((e) => [e.type, e.payload])).toEqual([
      ['user.totp.used', { totpId: 't1', clientId: 'app' }],
      ['user.totp.check.failed', { totpId: 't1', clientId: 'app' }],
    ]);
  });
});
