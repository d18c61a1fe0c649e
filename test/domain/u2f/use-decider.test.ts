// A login with a security key, decided by the u2f decider (kind
// 'use'): given the key's events → the login's command → u2f.used with the new
// counter, or u2f.signcount.refused for a counter that did not increase.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../../src/domain/events/index.js';
import { isClonedCounter, u2fDecider, type U2fCommand } from '../../../src/domain/u2f/decider.js';
import { decide, refusal } from '../../support/deciders.js';
import { verifiedPayload } from '../../support/events.js';

const decider = u2fDecider('k1', 'u1');
const own = { aggregateType: 'u2f', aggregateId: 'k1', resourceOwner: 'org', creator: 'u1' } as const;
const started: NewEvent = { ...own, type: 'u2f.registration.started', payload: { userId: 'u1', rpId: 'localhost', challenge: 'c', expiresAt: '2999-01-01T00:00:00Z' } };
const verified = (signCount: number): NewEvent => ({ ...own, type: 'u2f.verified', payload: verifiedPayload({ userId: 'u1', signCount }) });
const used = (signCount: number): NewEvent => ({ ...own, type: 'u2f.used', payload: { userId: 'u1', signCount, clientId: 'app' } });
const use = (signCount: number): U2fCommand => ({ kind: 'use', signCount, clientId: 'app', actor: 'u1' });

describe('u2f decider: a login with the key', () => {
  it('a higher counter: u2f.used stores it', () => {
    expect(decide(decider, [started, verified(1)], use(2))).toEqual([{ ...own, type: 'u2f.used', payload: { userId: 'u1', signCount: 2, clientId: 'app' } }]);
  });

  it('the counter the last login left is the one compared (u2f.used evolves it)', () => {
    expect(decide(decider, [started, verified(1), used(7)], use(8))[0]!.type).toBe('u2f.used');
    expect(decide(decider, [started, verified(1), used(7)], use(7))).toEqual([
      { ...own, type: 'u2f.signcount.refused', payload: { userId: 'u1', storedSignCount: 7, presentedSignCount: 7, clientId: 'app' } },
    ]);
  });

  it('a counter that went back (a cloned key) is refused and recorded', () => {
    expect(decide(decider, [started, verified(5)], use(3))).toEqual([
      { ...own, type: 'u2f.signcount.refused', payload: { userId: 'u1', storedSignCount: 5, presentedSignCount: 3, clientId: 'app' } },
    ]);
  });

  it('a key that reports no counter (0 then 0) is used as it is', () => {
    expect(decide(decider, [started, verified(0)], use(0))[0]!.type).toBe('u2f.used');
    expect(isClonedCounter(0, 0)).toBe(false);
    expect(isClonedCounter(0, 1)).toBe(false);
    expect(isClonedCounter(1, 0)).toBe(true);
  });

  it('a pending registration, a removed key or another user’s key answers no login', () => {
    expect(refusal(decider, [started], use(1)).reason).toBe('U2F_LOGIN_UNKNOWN_CREDENTIAL');
    const removed: NewEvent = { ...own, type: 'u2f.removed', payload: { userId: 'u1' } };
    expect(refusal(decider, [started, verified(1), removed], use(2)).reason).toBe('U2F_LOGIN_UNKNOWN_CREDENTIAL');
    expect(refusal(u2fDecider('k1', 'u2'), [started, verified(1)], use(2)).reason).toBe('U2F_LOGIN_UNKNOWN_CREDENTIAL');
    expect(refusal(decider, [], use(1)).reason).toBe('U2F_LOGIN_UNKNOWN_CREDENTIAL');
  });
});
