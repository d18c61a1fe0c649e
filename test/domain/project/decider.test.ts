// The project's rules (src/domain/project/decider.ts): AddProject (with its
// login checks), AddProjectMember, AddProjectRole.
import { describe, expect, it } from 'vitest';
import { projectDecider } from '../../../src/domain/project/decider.js';
import { decide, refusal } from '../../support/deciders.js';

const decider = projectDecider('p1');
const added = () => decide(decider, [], { kind: 'add', orgId: 'org', name: 'Shop', actor: 'admin' });

describe('project decider', () => {
  it('AddProject on a new id: project.added in the org', () => {
    expect(added()).toEqual([
      { aggregateType: 'project', aggregateId: 'p1', type: 'project.added', payload: { name: 'Shop', projectRoleCheck: false, hasProjectCheck: false }, resourceOwner: 'org', creator: 'admin' },
    ]);
  });

  it('AddProject with ZITADEL’s login checks: both flags in the event', () => {
    const [event] = decide(decider, [], { kind: 'add', orgId: 'org', name: 'Shop', projectRoleCheck: true, hasProjectCheck: true, actor: 'admin' });
    expect(event!.payload).toEqual({ name: 'Shop', projectRoleCheck: true, hasProjectCheck: true });
  });

  it('AddProjectRole: project.role.added owned by the project’s org; the same key again: ROLE_KEY_TAKEN', () => {
    const role = { kind: 'addRole' as const, roleKey: 'editor', displayName: 'Editor', group: 'content', actor: 'owner' };
    const events = decide(decider, added(), role);
    expect(events).toEqual([
      { aggregateType: 'project', aggregateId: 'p1', type: 'project.role.added', payload: { roleKey: 'editor', displayName: 'Editor', group: 'content' }, resourceOwner: 'org', creator: 'owner' },
    ]);
    expect(refusal(decider, [...added(), ...events], { ...role, displayName: 'Other' })).toEqual({ reason: 'ROLE_KEY_TAKEN', metadata: { projectId: 'p1', roleKey: 'editor' } });
    // Keys are case-sensitive claim keys: "Editor" is another role.
    expect(decide(decider, [...added(), ...events], { ...role, roleKey: 'Editor' })).toHaveLength(1);
    expect(refusal(decider, [], role).reason).toBe('PROJECT_NOT_FOUND');
  });

  it('AddProject on an existing id: ID_TAKEN', () => {
    expect(refusal(decider, added(), { kind: 'add', orgId: 'org', name: 'Again', actor: 'admin' })).toEqual({ reason: 'ID_TAKEN', metadata: { id: 'p1' } });
  });

  it('AddProjectMember: the roles once each, owned by the project’s org', () => {
    expect(decide(decider, added(), { kind: 'addMember', userId: 'u1', roles: ['PROJECT_OWNER', 'PROJECT_OWNER'], actor: 'owner' })).toEqual([
      {
        aggregateType: 'project',
        aggregateId: 'p1',
        type: 'project.member.added',
        payload: { userId: 'u1', roles: ['PROJECT_OWNER'] },
        resourceOwner: 'org',
        creator: 'owner',
      },
    ]);
  });

  it('AddProjectMember on a project that does not exist: PROJECT_NOT_FOUND', () => {
    expect(refusal(decider, [], { kind: 'addMember', userId: 'u1', roles: ['PROJECT_OWNER'], actor: 'a' })).toEqual({
      reason: 'PROJECT_NOT_FOUND',
      metadata: { projectId: 'p1' },
    });
  });
});
