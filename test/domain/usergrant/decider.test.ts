// The user grant's rule (src/domain/usergrant/decider.ts): AddUserGrant, and
// the grant's life after it (UpdateUserGrant, Deactivate/Reactivate, Remove).
import { describe, expect, it } from 'vitest';
import { userGrantDecider } from '../../../src/domain/usergrant/decider.js';
import { decide, refusal } from '../../support/deciders.js';

const decider = userGrantDecider('g1');
const add = { kind: 'add' as const, userId: 'u1', projectId: 'p1', orgId: 'org', roleKeys: ['editor', 'viewer', 'editor'], actor: 'admin' };
const base = { aggregateType: 'usergrant', aggregateId: 'g1', resourceOwner: 'org', creator: 'mgr' };

describe('user grant decider', () => {
  it('AddUserGrant: usergrant.added with each role once, owned by the project’s org', () => {
    expect(decide(decider, [], add)).toEqual([
      { aggregateType: 'usergrant', aggregateId: 'g1', type: 'usergrant.added', payload: { userId: 'u1', projectId: 'p1', roleKeys: ['editor', 'viewer'] }, resourceOwner: 'org', creator: 'admin' },
    ]);
  });

  it('on an id in use: ID_TAKEN, also after the grant was removed', () => {
    const added = decide(decider, [], add);
    expect(refusal(decider, added, add)).toEqual({ reason: 'ID_TAKEN', metadata: { id: 'g1' } });
    const removed = [...added, ...decide(decider, added, { kind: 'remove', actor: 'mgr' })];
    expect(refusal(decider, removed, add)).toEqual({ reason: 'ID_TAKEN', metadata: { id: 'g1' } });
  });

  it('UpdateUserGrant replaces the roles (each once), owned by the grant’s org whoever changes it', () => {
    const added = decide(decider, [], add);
    expect(decide(decider, added, { kind: 'change', roleKeys: ['viewer', 'viewer'], actor: 'mgr' })).toEqual([{ ...base, type: 'usergrant.changed', payload: { roleKeys: ['viewer'] } }]);
  });

  it('deactivate → reactivate; twice the same → USER_GRANT_NOT_ACTIVE / USER_GRANT_NOT_INACTIVE', () => {
    const added = decide(decider, [], add);
    expect(refusal(decider, added, { kind: 'reactivate', actor: 'mgr' })).toEqual({ reason: 'USER_GRANT_NOT_INACTIVE', metadata: { grantId: 'g1' } });
    const off = decide(decider, added, { kind: 'deactivate', actor: 'mgr' });
    expect(off).toEqual([{ ...base, type: 'usergrant.deactivated', payload: {} }]);
    const inactive = [...added, ...off];
    expect(refusal(decider, inactive, { kind: 'deactivate', actor: 'mgr' })).toEqual({ reason: 'USER_GRANT_NOT_ACTIVE', metadata: { grantId: 'g1' } });
    // An inactive grant's roles may still be changed; it stays inactive.
    expect(decide(decider, inactive, { kind: 'change', roleKeys: ['editor'], actor: 'mgr' })[0]!.type).toBe('usergrant.changed');
    expect(decide(decider, inactive, { kind: 'reactivate', actor: 'mgr' })).toEqual([{ ...base, type: 'usergrant.reactivated', payload: {} }]);
  });

  it('remove names the user and project; a removed or never added grant is USER_GRANT_NOT_FOUND for every change', () => {
    const added = decide(decider, [], add);
    const removed = decide(decider, added, { kind: 'remove', actor: 'mgr' });
    expect(removed).toEqual([{ ...base, type: 'usergrant.removed', payload: { userId: 'u1', projectId: 'p1' } }]);
    for (const history of [[], [...added, ...removed]]) {
      for (const command of [{ kind: 'change' as const, roleKeys: ['editor'], actor: 'mgr' }, { kind: 'deactivate' as const, actor: 'mgr' }, { kind: 'reactivate' as const, actor: 'mgr' }, { kind: 'remove' as const, actor: 'mgr' }]) {
        expect(refusal(decider, history, command)).toEqual({ reason: 'USER_GRANT_NOT_FOUND', metadata: { grantId: 'g1' } });
      }
    }
  });
});
