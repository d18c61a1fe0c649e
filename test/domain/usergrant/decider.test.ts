// The user grant's rule (src/domain/usergrant/decider.ts): AddUserGrant.
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
});
