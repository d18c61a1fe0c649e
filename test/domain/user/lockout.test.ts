// The lockout policy at the user: given the user's events → a wrong password
// (with the org's threshold) → events. The failure that reaches the threshold
// also locks the user, the state LockUser sets; a successful login and
// UnlockUser start the count again.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../../src/domain/events/index.js';
import { userDecider, type UserCommand } from '../../../src/domain/user/decider.js';
import { decide } from '../../support/deciders.js';

const decider = userDecider('u1');
const own = { aggregateType: 'user', aggregateId: 'u1', resourceOwner: 'org', creator: 'u1' } as const;
const added: NewEvent = { ...own, creator: 'admin', type: 'user.human.added', payload: { username: 'ada', givenName: 'A', familyName: 'L', displayName: 'A L', email: 'a@example.com' } };
const password: NewEvent = { ...own, creator: 'admin', type: 'user.password.changed', payload: { passwordHash: '$argon2id$x', changeRequired: false } };
const failed: NewEvent = { ...own, type: 'user.password.check.failed', payload: { clientId: 'app' } };
const succeeded: NewEvent = { ...own, type: 'user.login.succeeded', payload: { clientId: 'app', amr: ['pwd'] } };
const wrong = (maxPasswordAttempts?: number): UserCommand => ({ kind: 'recordPasswordFailure', clientId: 'app', actor: 'u1', maxPasswordAttempts });
const types = (events: NewEvent[]) => events.map((e) => e.type);

describe('user decider: lockout policy', () => {
  it('the wrong password that reaches the threshold is recorded and locks the user, naming the threshold', () => {
    const history = [added, password, failed, failed];
    expect(decide(decider, history, wrong(3))).toEqual([failed, { ...own, type: 'user.locked', payload: { maxAttempts: 3 } }]);
    expect(types(decide(decider, [added, password, failed], wrong(3)))).toEqual(['user.password.check.failed']);
    expect(types(decide(decider, [added, password], wrong(1)))).toEqual(['user.password.check.failed', 'user.locked']);
  });

  it('off (0 or no policy): failures are recorded, nobody is locked', () => {
    const many = [added, password, ...Array<NewEvent>(50).fill(failed)];
    expect(types(decide(decider, many, wrong(0)))).toEqual(['user.password.check.failed']);
    expect(types(decide(decider, many, wrong()))).toEqual(['user.password.check.failed']);
  });

  it('a successful login starts the count again', () => {
    expect(types(decide(decider, [added, password, failed, failed, succeeded, failed], wrong(3)))).toEqual(['user.password.check.failed']);
    expect(types(decide(decider, [added, password, failed, failed, succeeded, failed, failed], wrong(3)))).toEqual(['user.password.check.failed', 'user.locked']);
  });

  it('a locked user is not locked again; UnlockUser lifts the lock and starts the count again', () => {
    const locked: NewEvent = { ...own, type: 'user.locked', payload: { maxAttempts: 2 } };
    const history = [added, password, failed, failed, locked];
    expect(types(decide(decider, history, wrong(2)))).toEqual(['user.password.check.failed']);
    // UnlockUser is allowed on a policy lock: the same state LockUser sets.
    expect(types(decide(decider, history, { kind: 'unlock', actor: 'admin' }))).toEqual(['user.unlocked']);
    const unlocked: NewEvent = { ...own, creator: 'admin', type: 'user.unlocked', payload: {} };
    expect(types(decide(decider, [...history, unlocked], wrong(2)))).toEqual(['user.password.check.failed']);
    expect(types(decide(decider, [...history, unlocked, failed], wrong(2)))).toEqual(['user.password.check.failed', 'user.locked']);
  });

  it('a deactivated user is not locked (its state stays inactive)', () => {
    const deactivated: NewEvent = { ...own, creator: 'admin', type: 'user.deactivated', payload: {} };
    expect(types(decide(decider, [added, password, failed, deactivated], wrong(2)))).toEqual(['user.password.check.failed']);
  });
});
