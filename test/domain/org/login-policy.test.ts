// An org's login policy, decided by the org decider: given the
// org's events → AddCustomLoginPolicy / UpdateCustomLoginPolicy → events.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../../src/domain/events/index.js';
import { orgDecider, type OrgCommand } from '../../../src/domain/org/decider.js';
import { decide, refusal } from '../../support/deciders.js';

const decider = orgDecider('o1');
const own = { aggregateType: 'org', aggregateId: 'o1', resourceOwner: 'o1', creator: 'admin' } as const;
const added: NewEvent = { ...own, type: 'org.added', payload: { name: 'Org' } };
const add = (forceMfa: boolean): OrgCommand => ({ kind: 'addLoginPolicy', policy: { forceMfa }, actor: 'admin' });
const change = (forceMfa: boolean): OrgCommand => ({ kind: 'changeLoginPolicy', policy: { forceMfa }, actor: 'admin' });
const policyAdded = (forceMfa: boolean): NewEvent => ({ ...own, type: 'org.login.policy.added', payload: { forceMfa } });

describe('org decider: login policy', () => {
  it('AddCustomLoginPolicy: the org’s own policy, once', () => {
    expect(decide(decider, [added], add(true))).toEqual([policyAdded(true)]);
    expect(refusal(decider, [added, policyAdded(true)], add(false))).toEqual({ reason: 'LOGIN_POLICY_EXISTS', metadata: { orgId: 'o1' } });
    expect(refusal(decider, [], add(true)).reason).toBe('ORG_NOT_FOUND');
  });

  it('UpdateCustomLoginPolicy: a change is an event; the same values again are none', () => {
    expect(decide(decider, [added, policyAdded(false)], change(true))).toEqual([{ ...own, type: 'org.login.policy.changed', payload: { forceMfa: true } }]);
    const changed: NewEvent = { ...own, type: 'org.login.policy.changed', payload: { forceMfa: true } };
    expect(decide(decider, [added, policyAdded(false), changed], change(true))).toEqual([]);
    expect(decide(decider, [added, policyAdded(false), changed], change(false))[0]!.type).toBe('org.login.policy.changed');
  });

  it('UpdateCustomLoginPolicy without an own policy: not found (the default is changed by adding one)', () => {
    expect(refusal(decider, [added], change(true))).toEqual({ reason: 'LOGIN_POLICY_NOT_FOUND', metadata: { orgId: 'o1' } });
  });
});
