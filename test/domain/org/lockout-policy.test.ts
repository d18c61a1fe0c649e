// An org's lockout policy, decided by the org decider: given the org's events
// → AddCustomLockoutPolicy / UpdateCustomLockoutPolicy → events.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../../src/domain/events/index.js';
import { orgDecider, type OrgCommand } from '../../../src/domain/org/decider.js';
import { decide, refusal } from '../../support/deciders.js';

const decider = orgDecider('o1');
const own = { aggregateType: 'org', aggregateId: 'o1', resourceOwner: 'o1', creator: 'admin' } as const;
const added: NewEvent = { ...own, type: 'org.added', payload: { name: 'Org' } };
const add = (maxPasswordAttempts: number): OrgCommand => ({ kind: 'addLockoutPolicy', policy: { maxPasswordAttempts }, actor: 'admin' });
const change = (maxPasswordAttempts: number): OrgCommand => ({ kind: 'changeLockoutPolicy', policy: { maxPasswordAttempts }, actor: 'admin' });
const policyAdded = (maxPasswordAttempts: number): NewEvent => ({ ...own, type: 'org.lockout.policy.added', payload: { maxAttempts: maxPasswordAttempts } });

describe('org decider: lockout policy', () => {
  it('AddCustomLockoutPolicy: the org’s own policy, once; independent of the login policy', () => {
    expect(decide(decider, [added], add(3))).toEqual([policyAdded(3)]);
    expect(refusal(decider, [added, policyAdded(3)], add(5))).toEqual({ reason: 'LOCKOUT_POLICY_EXISTS', metadata: { orgId: 'o1' } });
    expect(refusal(decider, [], add(3)).reason).toBe('ORG_NOT_FOUND');
    const loginPolicy: NewEvent = { ...own, type: 'org.login.policy.added', payload: { forceMfa: true } };
    expect(decide(decider, [added, loginPolicy], add(0))).toEqual([policyAdded(0)]);
  });

  it('UpdateCustomLockoutPolicy: a change is an event; the same value again is none', () => {
    const changed: NewEvent = { ...own, type: 'org.lockout.policy.changed', payload: { maxAttempts: 10 } };
    expect(decide(decider, [added, policyAdded(3)], change(10))).toEqual([changed]);
    expect(decide(decider, [added, policyAdded(3), changed], change(10))).toEqual([]);
    expect(decide(decider, [added, policyAdded(3), changed], change(0))[0]!.payload).toEqual({ maxAttempts: 0 });
  });

  it('UpdateCustomLockoutPolicy without an own policy: not found', () => {
    expect(refusal(decider, [added], change(3))).toEqual({ reason: 'LOCKOUT_POLICY_NOT_FOUND', metadata: { orgId: 'o1' } });
  });
});
