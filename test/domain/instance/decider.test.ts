// The instance's rule (src/domain/instance/decider.ts): bootstrap, once.
import { describe, expect, it } from 'vitest';
import { INSTANCE_ID } from '../../../src/domain/events/index.js';
import { instanceDecider } from '../../../src/domain/instance/decider.js';
import { decide, refusal } from '../../support/deciders.js';

const bootstrap = { kind: 'bootstrap', defaultOrgId: 'org', adminUserId: 'admin' } as const;

describe('instance decider', () => {
  it('bootstrap on an empty database: the instance with its default org, and the admin as IAM_OWNER', () => {
    const own = { aggregateType: 'instance', aggregateId: INSTANCE_ID, resourceOwner: 'org', creator: 'admin' } as const;
    expect(decide(instanceDecider, [], bootstrap)).toEqual([
      { ...own, type: 'instance.added', payload: { defaultOrgId: 'org' } },
      { ...own, type: 'instance.member.added', payload: { userId: 'admin', roles: ['IAM_OWNER'] } },
    ]);
  });

  it('bootstrap of an instance that exists (another process was first): ID_TAKEN', () => {
    const history = decide(instanceDecider, [], bootstrap);
    expect(refusal(instanceDecider, history, { ...bootstrap, defaultOrgId: 'org2', adminUserId: 'admin2' })).toEqual({
      reason: 'ID_TAKEN',
      metadata: { id: INSTANCE_ID },
    });
  });

  it('addOwner (the human admin): one more IAM_OWNER, owned by the default org; before bootstrap: refused', () => {
    const history = decide(instanceDecider, [], bootstrap);
    expect(decide(instanceDecider, history, { kind: 'addOwner', userId: 'human', actor: 'human' })).toEqual([
      { aggregateType: 'instance', aggregateId: INSTANCE_ID, resourceOwner: 'org', creator: 'human', type: 'instance.member.added', payload: { userId: 'human', roles: ['IAM_OWNER'] } },
    ]);
    expect(() => decide(instanceDecider, [], { kind: 'addOwner', userId: 'human', actor: 'human' })).toThrow(/bootstrapped instance/);
  });
});
