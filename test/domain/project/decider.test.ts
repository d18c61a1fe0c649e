// The project's rules (src/domain/project/decider.ts): AddProject (with its
// login checks), AddProjectMember, AddProjectRole, and their lifecycle:
// UpdateProject, Deactivate/ReactivateProject, RemoveProject, UpdateProjectRole, RemoveProjectRole.
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

  it('UpdateProject: project.changed with every field; the same values: nothing', () => {
    const update = { kind: 'update' as const, name: 'Store', projectRoleCheck: true, hasProjectCheck: false, actor: 'a' };
    const [changed] = decide(decider, added(), update);
    expect(changed).toMatchObject({ type: 'project.changed', payload: { name: 'Store', projectRoleCheck: true, hasProjectCheck: false }, resourceOwner: 'org' });
    expect(decide(decider, [...added(), changed!], update)).toEqual([]);
    expect(decide(decider, added(), { ...update, name: 'Shop', projectRoleCheck: false })).toEqual([]);
  });

  it('Deactivate / Reactivate: each only from the other state', () => {
    const [off] = decide(decider, added(), { kind: 'deactivate', actor: 'a' });
    expect(off!.type).toBe('project.deactivated');
    expect(refusal(decider, [...added(), off!], { kind: 'deactivate', actor: 'a' }).reason).toBe('PROJECT_NOT_ACTIVE');
    expect(refusal(decider, added(), { kind: 'reactivate', actor: 'a' }).reason).toBe('PROJECT_NOT_INACTIVE');
    expect(decide(decider, [...added(), off!], { kind: 'reactivate', actor: 'a' })[0]!.type).toBe('project.reactivated');
  });

  it('RemoveProject: project.removed; afterwards every command is PROJECT_NOT_FOUND and the id is never added again', () => {
    const [removed] = decide(decider, added(), { kind: 'remove', actor: 'a' });
    expect(removed!.type).toBe('project.removed');
    const history = [...added(), removed!];
    expect(refusal(decider, history, { kind: 'remove', actor: 'a' }).reason).toBe('PROJECT_NOT_FOUND');
    expect(refusal(decider, history, { kind: 'addRole', roleKey: 'r', displayName: 'R', group: '', actor: 'a' }).reason).toBe('PROJECT_NOT_FOUND');
    expect(refusal(decider, history, { kind: 'add', orgId: 'org', name: 'Again', actor: 'a' }).reason).toBe('ID_TAKEN');
  });

  it('UpdateProjectRole / RemoveProjectRole: only a role the project has; a removed key may be added again', () => {
    const role = decide(decider, added(), { kind: 'addRole', roleKey: 'editor', displayName: 'Editor', group: '', actor: 'a' });
    const history = [...added(), ...role];
    expect(decide(decider, history, { kind: 'changeRole', roleKey: 'editor', displayName: 'Chief', group: 'g', actor: 'a' })).toMatchObject([
      { type: 'project.role.changed', payload: { roleKey: 'editor', displayName: 'Chief', group: 'g' } },
    ]);
    expect(decide(decider, history, { kind: 'changeRole', roleKey: 'editor', displayName: 'Editor', group: '', actor: 'a' })).toEqual([]);
    expect(refusal(decider, history, { kind: 'changeRole', roleKey: 'nosuch', displayName: 'X', group: '', actor: 'a' })).toEqual({
      reason: 'PROJECT_ROLE_NOT_FOUND',
      metadata: { projectId: 'p1', roleKey: 'nosuch' },
    });
    const removed = decide(decider, history, { kind: 'removeRole', roleKey: 'editor', actor: 'a' });
    expect(removed).toMatchObject([{ type: 'project.role.removed', payload: { roleKey: 'editor' } }]);
    expect(refusal(decider, [...history, ...removed], { kind: 'removeRole', roleKey: 'editor', actor: 'a' }).reason).toBe('PROJECT_ROLE_NOT_FOUND');
    expect(decide(decider, [...history, ...removed], { kind: 'addRole', roleKey: 'editor', displayName: 'Editor', group: '', actor: 'a' })).toHaveLength(1);
  });
});
