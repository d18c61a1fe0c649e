// Project grants in the project's rules (src/domain/project/decider.ts):
// AddProjectGrant, UpdateProjectGrant, Deactivate/ReactivateProjectGrant,
// RemoveProjectGrant, and what RemoveProjectRole does to them; and the user
// grant's cascade when its project grant is narrowed (src/domain/usergrant).
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../../src/domain/events/index.js';
import { KeyholdError } from '../../../src/domain/errors/keyhold-error.js';
import { projectDecider } from '../../../src/domain/project/decider.js';
import { userGrantDecider } from '../../../src/domain/usergrant/decider.js';
import { decide, refusal } from '../../support/deciders.js';

const decider = projectDecider('p1');
const setUp = (): NewEvent[] => {
  const history = decide(decider, [], { kind: 'add', orgId: 'owner', name: 'Shop', actor: 'admin' });
  for (const roleKey of ['reader', 'writer', 'admin']) history.push(...decide(decider, history, { kind: 'addRole', roleKey, displayName: roleKey, group: '', actor: 'admin' }));
  return history;
};
const granted = () => {
  const history = setUp();
  return [...history, ...decide(decider, history, { kind: 'addGrant', grantId: 'g1', grantedOrgId: 'partner', roleKeys: ['reader', 'writer', 'reader'], actor: 'admin' })];
};
/** The field paths of a 400. */
const fieldsOf = (run: () => unknown): string[] => {
  try {
    run();
  } catch (e) {
    if (e instanceof KeyholdError) return [e.reason, ...e.violations.map((v) => v.field)];
    throw e;
  }
  throw new Error('expected a refusal');
};

describe('project grants', () => {
  it('AddProjectGrant: project.grant.added with each role once, owned by the project’s org', () => {
    const history = granted();
    expect(history.at(-1)).toEqual({
      aggregateType: 'project',
      aggregateId: 'p1',
      type: 'project.grant.added',
      payload: { grantId: 'g1', grantedOrgId: 'partner', roleKeys: ['reader', 'writer'] },
      resourceOwner: 'owner',
      creator: 'admin',
    });
  });

  it('AddProjectGrant refuses the project’s own org, a second grant to the same org, and role keys the project lacks (400 naming each)', () => {
    const history = granted();
    expect(fieldsOf(() => decide(decider, history, { kind: 'addGrant', grantId: 'g2', grantedOrgId: 'owner', roleKeys: ['reader'], actor: 'admin' }))).toEqual([
      'INVALID_REQUEST',
      'grantedOrgId',
    ]);
    expect(refusal(decider, history, { kind: 'addGrant', grantId: 'g2', grantedOrgId: 'partner', roleKeys: ['admin'], actor: 'admin' })).toEqual({
      reason: 'PROJECT_GRANT_EXISTS',
      metadata: { projectId: 'p1', grantedOrgId: 'partner' },
    });
    expect(fieldsOf(() => decide(decider, history, { kind: 'addGrant', grantId: 'g2', grantedOrgId: 'other', roleKeys: ['reader', 'nope', 'gone'], actor: 'admin' }))).toEqual([
      'INVALID_REQUEST',
      'roleKeys[1]',
      'roleKeys[2]',
    ]);
    expect(refusal(decider, [], { kind: 'addGrant', grantId: 'g2', grantedOrgId: 'other', roleKeys: ['reader'], actor: 'admin' }).reason).toBe('PROJECT_NOT_FOUND');
  });

  it('UpdateProjectGrant replaces the roles; the same roles again record nothing; an unknown grant is 404', () => {
    const history = granted();
    expect(decide(decider, history, { kind: 'changeGrant', grantId: 'g1', roleKeys: ['admin'], actor: 'admin' })).toMatchObject([
      { type: 'project.grant.changed', payload: { grantId: 'g1', roleKeys: ['admin'] } },
    ]);
    expect(decide(decider, history, { kind: 'changeGrant', grantId: 'g1', roleKeys: ['writer', 'reader'], actor: 'admin' })).toEqual([]);
    expect(refusal(decider, history, { kind: 'changeGrant', grantId: 'g9', roleKeys: ['reader'], actor: 'admin' }).reason).toBe('PROJECT_GRANT_NOT_FOUND');
  });

  it('Deactivate / Reactivate: each only from the other state', () => {
    const history = granted();
    expect(refusal(decider, history, { kind: 'reactivateGrant', grantId: 'g1', actor: 'admin' }).reason).toBe('PROJECT_GRANT_NOT_INACTIVE');
    const off = [...history, ...decide(decider, history, { kind: 'deactivateGrant', grantId: 'g1', actor: 'admin' })];
    expect(off.at(-1)!.type).toBe('project.grant.deactivated');
    expect(refusal(decider, off, { kind: 'deactivateGrant', grantId: 'g1', actor: 'admin' }).reason).toBe('PROJECT_GRANT_NOT_ACTIVE');
    expect(decide(decider, off, { kind: 'reactivateGrant', grantId: 'g1', actor: 'admin' })).toMatchObject([{ type: 'project.grant.reactivated' }]);
  });

  it('RemoveProjectGrant: gone, then 404; the org may be granted the project again', () => {
    const history = granted();
    const removed = [...history, ...decide(decider, history, { kind: 'removeGrant', grantId: 'g1', actor: 'admin' })];
    expect(removed.at(-1)).toMatchObject({ type: 'project.grant.removed', payload: { grantId: 'g1', grantedOrgId: 'partner' } });
    expect(refusal(decider, removed, { kind: 'removeGrant', grantId: 'g1', actor: 'admin' }).reason).toBe('PROJECT_GRANT_NOT_FOUND');
    expect(decide(decider, removed, { kind: 'addGrant', grantId: 'g2', grantedOrgId: 'partner', roleKeys: ['reader'], actor: 'admin' })).toHaveLength(1);
  });

  it('RemoveProjectRole takes the role from the project grants too: an update naming it is then a 400', () => {
    const history = granted();
    const without = [...history, ...decide(decider, history, { kind: 'removeRole', roleKey: 'writer', actor: 'admin' })];
    // The grant holds only reader now: asking for reader alone changes nothing.
    expect(decide(decider, without, { kind: 'changeGrant', grantId: 'g1', roleKeys: ['reader'], actor: 'admin' })).toEqual([]);
    expect(fieldsOf(() => decide(decider, without, { kind: 'changeGrant', grantId: 'g1', roleKeys: ['writer'], actor: 'admin' }))).toEqual(['INVALID_REQUEST', 'roleKeys[0]']);
  });

  it('a user grant given under a project grant is owned by the granted org and names the grant', () => {
    const given = decide(userGrantDecider('ug1'), [], { kind: 'add', userId: 'u1', projectId: 'p1', orgId: 'partner', roleKeys: ['reader', 'writer'], projectGrantId: 'g1', actor: 'partner-admin' });
    expect(given[0]).toMatchObject({ resourceOwner: 'partner', payload: { projectGrantId: 'g1', roleKeys: ['reader', 'writer'] } });
  });
});
