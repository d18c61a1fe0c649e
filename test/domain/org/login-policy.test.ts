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
/** The registration's fields at their defaults: off, any domain, verification required. */
const NO_REGISTRATION = { allowRegister: false, registerDomains: [], registerVerification: true };
const policyAdded = (forceMfa: boolean): NewEvent => ({ ...own, type: 'org.login.policy.added', payload: { forceMfa, passwordlessAllowed: true, allowUsernamePw: true, ...NO_REGISTRATION } });

describe('org decider: login policy', () => {
  it('AddCustomLoginPolicy: the org’s own policy, once', () => {
    expect(decide(decider, [added], add(true))).toEqual([policyAdded(true)]);
    expect(refusal(decider, [added, policyAdded(true)], add(false))).toEqual({ reason: 'LOGIN_POLICY_EXISTS', metadata: { orgId: 'o1' } });
    expect(refusal(decider, [], add(true)).reason).toBe('ORG_NOT_FOUND');
  });

  it('UpdateCustomLoginPolicy: a change is an event; the same values again are none', () => {
    expect(decide(decider, [added, policyAdded(false)], change(true))).toEqual([
      { ...own, type: 'org.login.policy.changed', payload: { forceMfa: true, passwordlessAllowed: true, allowUsernamePw: true, ...NO_REGISTRATION } },
    ]);
    // An event written before the first-factor fields existed: their defaults.
    const changed: NewEvent = { ...own, type: 'org.login.policy.changed', payload: { forceMfa: true } };
    expect(decide(decider, [added, policyAdded(false), changed], change(true))).toEqual([]);
    expect(decide(decider, [added, policyAdded(false), changed], change(false))[0]!.type).toBe('org.login.policy.changed');
  });

  it('UpdateCustomLoginPolicy without an own policy: not found (the default is changed by adding one)', () => {
    expect(refusal(decider, [added], change(true))).toEqual({ reason: 'LOGIN_POLICY_NOT_FOUND', metadata: { orgId: 'o1' } });
  });

  it('first factors: defaults when left out, kept on update when left out; a policy allowing neither is refused naming both fields', () => {
    const passkeysOnly: OrgCommand = { kind: 'addLoginPolicy', policy: { forceMfa: false, allowUsernamePassword: false }, actor: 'admin' };
    const [event] = decide(decider, [added], passkeysOnly);
    expect(event!.payload).toEqual({ forceMfa: false, passwordlessAllowed: true, allowUsernamePw: false, ...NO_REGISTRATION });
    // Only forceMfa changes: the first factors stay as they are.
    expect(decide(decider, [added, event!], change(true))[0]!.payload).toEqual({ forceMfa: true, passwordlessAllowed: true, allowUsernamePw: false, ...NO_REGISTRATION });
    // Passkeys off too: neither would be left.
    const neither = refusal(decider, [added, event!], { kind: 'changeLoginPolicy', policy: { forceMfa: false, passwordlessAllowed: false }, actor: 'admin' });
    expect(neither).toEqual({ reason: 'INVALID_REQUEST', metadata: { fields: 'passwordlessType, allowUsernamePassword' } });
    expect(refusal(decider, [added], { kind: 'addLoginPolicy', policy: { forceMfa: false, passwordlessAllowed: false, allowUsernamePassword: false }, actor: 'admin' }).reason).toBe(
      'INVALID_REQUEST',
    );
  });

  it('registration: its rules are written with the policy; left out on an update, they fall back to off (not kept)', () => {
    const open: OrgCommand = { kind: 'addLoginPolicy', policy: { forceMfa: false, allowRegister: true, registerDomains: ['example.com'], registerVerification: false }, actor: 'admin' };
    const [event] = decide(decider, [added], open);
    expect(event!.payload).toMatchObject({ allowRegister: true, registerDomains: ['example.com'], registerVerification: false });
    expect(decide(decider, [added, event!], change(false))[0]!.payload).toMatchObject(NO_REGISTRATION);
    // An event from before registration existed: off.
    const old: NewEvent = { ...own, type: 'org.login.policy.added', payload: { forceMfa: false } };
    expect(decide(decider, [added, old], change(false))).toEqual([]);
  });
});
