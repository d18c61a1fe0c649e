// The user grant's rule (src/domain/usergrant/decider.ts): AddUserGrant, and
// the cascades of RemoveProjectRole and RemoveProject.
import { describe, expect, it } from 'vitest';
import { userGrantDecider } from '../../../src/domain/usergrant/decider.js';
import { decide, refusal } from '../../support/deciders.js';

const decider = userGrantDecider('g1');
const add = { kind: 'add' as const, userId: 'u1', projectId: 'p1', orgId: 'org', roleKeys: ['editor', 'viewer', 'editor'], actor: 'admin' };

describe('user grant decider', () => {
  it('AddUserGrant: usergrant.added with each role once, owned by the project’s org', () => {
    expect(decide(decider, [], add)).toEqual([
      { aggregateType: 'usergrant', aggregateId: 'g1', type: 'usergrant.added', payload: { userId: 'u1', projectId: 'p1', roleKeys: ['editor', 'viewer'] }, resourceOwner: 'org', creator: 'admin' },
    ]);
  });

  it('on an id in use: ID_TAKEN', () => {
    expect(refusal(decider, decide(decider, [], add), add)).toEqual({ reason: 'ID_TAKEN', metadata: { id: 'g1' } });
  });

  it('a removed role leaves the grant (the roles it keeps in the event); a grant without it, or gone: nothing', () => {
    const history = decide(decider, [], add);
    const changed = decide(decider, history, { kind: 'cascadeRemoveRole', roleKey: 'editor', actor: 'a' });
    expect(changed).toEqual([
      { aggregateType: 'usergrant', aggregateId: 'g1', type: 'usergrant.cascade.changed', payload: { removedRoleKey: 'editor', roleKeys: ['viewer'] }, resourceOwner: 'org', creator: 'a' },
    ]);
    expect(decide(decider, [...history, ...changed], { kind: 'cascadeRemoveRole', roleKey: 'editor', actor: 'a' })).toEqual([]);
    const gone = decide(decider, history, { kind: 'cascadeRemove', actor: 'a' });
    expect(gone).toMatchObject([{ type: 'usergrant.cascade.removed', resourceOwner: 'org' }]);
    expect(decide(decider, [...history, ...gone], { kind: 'cascadeRemoveRole', roleKey: 'viewer', actor: 'a' })).toEqual([]);
    expect(decide(decider, [...history, ...gone], { kind: 'cascadeRemove', actor: 'a' })).toEqual([]);
  });
});
