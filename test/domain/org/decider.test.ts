// The organization's rules (src/domain/org/decider.ts): AddOrganization (with
// admins), AddOrgMember.
import { describe, expect, it } from 'vitest';
import { orgDecider } from '../../../src/domain/org/decider.js';
import { decide, refusal } from '../../support/deciders.js';

const decider = orgDecider('o1');
const own = { aggregateType: 'org', aggregateId: 'o1', resourceOwner: 'o1' } as const;
const added = () => decide(decider, [], { kind: 'add', name: 'Acme', admins: [], actor: 'admin' });

describe('org decider', () => {
  it('AddOrganization: org.added owned by itself, then one grant per admin (ORG_OWNER unless roles are named)', () => {
    const events = decide(decider, [], {
      kind: 'add',
      name: 'Acme',
      admins: [
        { userId: 'u1', roles: [] },
        { userId: 'u2', roles: ['ORG_USER_MANAGER', 'ORG_USER_MANAGER'] },
      ],
      actor: 'admin',
    });
    expect(events).toEqual([
      { ...own, type: 'org.added', payload: { name: 'Acme' }, creator: 'admin' },
      { ...own, type: 'org.member.added', payload: { userId: 'u1', roles: ['ORG_OWNER'] }, creator: 'admin' },
      { ...own, type: 'org.member.added', payload: { userId: 'u2', roles: ['ORG_USER_MANAGER'] }, creator: 'admin' },
    ]);
  });

  it('AddOrganization on an existing id: ID_TAKEN', () => {
    expect(refusal(decider, added(), { kind: 'add', name: 'Again', admins: [], actor: 'admin' })).toEqual({ reason: 'ID_TAKEN', metadata: { id: 'o1' } });
  });

  it('AddOrgMember: the roles once each', () => {
    expect(decide(decider, added(), { kind: 'addMember', userId: 'u3', roles: ['ORG_OWNER', 'ORG_OWNER'], actor: 'owner' })).toEqual([
      { ...own, type: 'org.member.added', payload: { userId: 'u3', roles: ['ORG_OWNER'] }, creator: 'owner' },
    ]);
  });

  it('AddOrgMember on an org that does not exist: ORG_NOT_FOUND', () => {
    expect(refusal(decider, [], { kind: 'addMember', userId: 'u3', roles: ['ORG_OWNER'], actor: 'a' })).toEqual({ reason: 'ORG_NOT_FOUND', metadata: { orgId: 'o1' } });
  });
});
