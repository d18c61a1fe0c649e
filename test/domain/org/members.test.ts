// The rules of changing and removing members (src/domain/org/decider.ts,
// src/domain/project/decider.ts, src/commands/orgs/org-members.ts
// containedMember): the org keeps an ORG_OWNER, a non-member is not found, the
// same roles again record nothing, and the caller must hold what it changes.
import { describe, expect, it } from 'vitest';
import { containedMember } from '../../../src/commands/orgs/org-members.js';
import { KeyholdError } from '../../../src/domain/errors/keyhold-error.js';
import { orgDecider } from '../../../src/domain/org/decider.js';
import { projectDecider } from '../../../src/domain/project/decider.js';
import { decide, refusal } from '../../support/deciders.js';

const decider = orgDecider('o1');
const own = { aggregateType: 'org', aggregateId: 'o1', resourceOwner: 'o1' } as const;
const withOwners = (...owners: string[]) =>
  decide(decider, [], { kind: 'add', name: 'Acme', admins: [...owners.map((userId) => ({ userId, roles: [] })), { userId: 'm', roles: ['ORG_USER_MANAGER'] }], actor: 'admin' });

describe('org members', () => {
  it('an owner deactivated or locked (suspendOwner): recorded while another active owner stays; the last active one is LAST_ORG_OWNER; a non-owner records nothing', () => {
    const history = withOwners('a', 'b');
    expect(decide(decider, history, { kind: 'suspendOwner', userId: 'a', actor: 'admin' })).toEqual([{ ...own, type: 'org.owner.suspended', payload: { userId: 'a' }, creator: 'admin' }]);
    expect(refusal(decider, history, { kind: 'suspendOwner', userId: 'a', actor: 'admin', goneUsers: ['b'] })).toEqual({ reason: 'LAST_ORG_OWNER', metadata: { userId: 'a', orgId: 'o1' } });
    expect(decide(decider, history, { kind: 'suspendOwner', userId: 'm', actor: 'admin', goneUsers: ['a', 'b'] })).toEqual([]);
  });

  it('owners of a deactivated org (suspendOwners): each recorded while an active owner stays; all of them the last: LAST_ORG_OWNER; non-owners and a removed org record nothing', () => {
    const history = withOwners('a', 'b', 'c');
    expect(decide(decider, history, { kind: 'suspendOwners', userIds: ['a', 'b', 'm'], actor: 'admin' })).toEqual([
      { ...own, type: 'org.owner.suspended', payload: { userId: 'a' }, creator: 'admin' },
      { ...own, type: 'org.owner.suspended', payload: { userId: 'b' }, creator: 'admin' },
    ]);
    expect(refusal(decider, history, { kind: 'suspendOwners', userIds: ['a', 'b'], actor: 'admin', goneUsers: ['c'] })).toEqual({ reason: 'LAST_ORG_OWNER', metadata: { userId: 'a', orgId: 'o1' } });
    expect(decide(decider, history, { kind: 'suspendOwners', userIds: ['m', 'x'], actor: 'admin', goneUsers: ['a', 'b', 'c'] })).toEqual([]);
    expect(decide(decider, [...history, ...decide(decider, history, { kind: 'remove', actor: 'admin' })], { kind: 'suspendOwners', userIds: ['a', 'b', 'c'], actor: 'admin' })).toEqual([]);
  });

  it('an owner is removed or demoted while another owner stays', () => {
    const history = withOwners('a', 'b');
    expect(decide(decider, history, { kind: 'removeMember', userId: 'a', actor: 'b' })).toEqual([{ ...own, type: 'org.member.removed', payload: { userId: 'a' }, creator: 'b' }]);
    expect(decide(decider, history, { kind: 'changeMember', userId: 'a', roles: ['ORG_USER_MANAGER'], actor: 'b' })).toEqual([
      { ...own, type: 'org.member.changed', payload: { userId: 'a', roles: ['ORG_USER_MANAGER'] }, creator: 'b' },
    ]);
  });

  it('the last owner: removal, demotion and a replacing grant are LAST_ORG_OWNER; other members come and go', () => {
    const history = [...withOwners('a', 'b'), ...decide(decider, withOwners('a', 'b'), { kind: 'removeMember', userId: 'b', actor: 'a' })];
    const last = { reason: 'LAST_ORG_OWNER', metadata: { userId: 'a', orgId: 'o1' } };
    expect(refusal(decider, history, { kind: 'removeMember', userId: 'a', actor: 'a' })).toEqual(last);
    expect(refusal(decider, history, { kind: 'changeMember', userId: 'a', roles: ['ORG_USER_MANAGER'], actor: 'a' })).toEqual(last);
    expect(refusal(decider, history, { kind: 'addMember', userId: 'a', roles: ['ORG_USER_MANAGER'], actor: 'a' })).toEqual(last);
    expect(decide(decider, history, { kind: 'changeMember', userId: 'a', roles: ['ORG_OWNER', 'ORG_USER_MANAGER'], actor: 'a' })).toHaveLength(1);
    expect(decide(decider, history, { kind: 'removeMember', userId: 'm', actor: 'a' })).toHaveLength(1);
  });

  it('an owner whose user was removed owns nothing: the last live owner stays', () => {
    expect(refusal(decider, withOwners('a', 'gone'), { kind: 'removeMember', userId: 'a', actor: 'x', goneUsers: ['gone'] }).reason).toBe('LAST_ORG_OWNER');
  });

  it('a non-member: MEMBER_NOT_FOUND; the same roles again: nothing to record', () => {
    const history = withOwners('a');
    expect(refusal(decider, history, { kind: 'removeMember', userId: 'z', actor: 'a' })).toEqual({
      reason: 'MEMBER_NOT_FOUND',
      metadata: { userId: 'z', scope: 'organization', scopeId: 'o1' },
    });
    expect(refusal(decider, history, { kind: 'changeMember', userId: 'z', roles: ['ORG_OWNER'], actor: 'a' }).reason).toBe('MEMBER_NOT_FOUND');
    expect(decide(decider, history, { kind: 'changeMember', userId: 'm', roles: ['ORG_USER_MANAGER'], actor: 'a' })).toEqual([]);
    const removed = [...history, ...decide(decider, history, { kind: 'removeMember', userId: 'm', actor: 'a' })];
    expect(refusal(decider, removed, { kind: 'removeMember', userId: 'm', actor: 'a' }).reason).toBe('MEMBER_NOT_FOUND');
  });
});

describe('project members', () => {
  const project = projectDecider('p1');
  const created = decide(project, [], { kind: 'add', orgId: 'o1', name: 'P', actor: 'admin' });
  const history = [...created, ...decide(project, created, { kind: 'addMember', userId: 'u', roles: ['PROJECT_OWNER'], actor: 'admin' })];
  it('removed (a project keeps no owner by force); unknown: MEMBER_NOT_FOUND', () => {
    expect(decide(project, history, { kind: 'removeMember', userId: 'u', actor: 'admin' })).toEqual([
      { aggregateType: 'project', aggregateId: 'p1', resourceOwner: 'o1', type: 'project.member.removed', payload: { userId: 'u' }, creator: 'admin' },
    ]);
    expect(refusal(project, history, { kind: 'changeMember', userId: 'z', roles: ['PROJECT_OWNER'], actor: 'admin' }).reason).toBe('MEMBER_NOT_FOUND');
    expect(decide(project, history, { kind: 'changeMember', userId: 'u', roles: ['PROJECT_OWNER'], actor: 'admin' })).toEqual([]);
  });
});

describe('containment of a member change (AddOrgMember’s rule)', () => {
  const scope = { scopeType: 'org', scopeId: 'o1', orgId: 'o1' } as const;
  const members = new Map([['owner', ['ORG_OWNER']], ['manager', ['ORG_USER_MANAGER']]]);
  const caller = (roles: string[]) => ({ userId: 'c', orgId: 'o1', tokenId: 't', memberships: [{ scopeType: 'org' as const, scopeId: 'o1', orgId: 'o1', roles }] });
  const reason = (f: () => unknown) => {
    try {
      f();
      return 'OK';
    } catch (e) {
      return (e as KeyholdError).reason;
    }
  };
  it('a caller holding less than the member neither removes, demotes nor raises it', () => {
    const manager = caller(['ORG_USER_MANAGER']);
    expect(reason(() => containedMember(manager, members, 'owner', scope, []))).toBe('PRIVILEGE_ESCALATION');
    expect(reason(() => containedMember(manager, members, 'owner', scope, ['ORG_USER_MANAGER']))).toBe('PRIVILEGE_ESCALATION');
    expect(reason(() => containedMember(manager, members, 'manager', scope, ['ORG_OWNER']))).toBe('PRIVILEGE_ESCALATION');
    expect(reason(() => containedMember(manager, members, 'manager', scope, []))).toBe('OK');
    expect(reason(() => containedMember(caller(['ORG_OWNER']), members, 'owner', scope, []))).toBe('OK');
    expect(reason(() => containedMember(manager, members, 'nobody', scope, []))).toBe('MEMBER_NOT_FOUND');
  });
});
