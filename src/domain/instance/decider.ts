// The one instance: created once, at bootstrap, with its first org's id and
// its first admin (IAM_OWNER). `instance.added` at sequence 1 of the one
// instance aggregate can commit once, so of two processes bootstrapping one
// database at once exactly one succeeds; the other is refused here on its
// retry, after the conflict made it load the instance.
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import { INSTANCE_ID, type EventTypeOf, type NewEvent } from '../events/index.js';

type InstanceEventType = EventTypeOf<'instance'>;

export interface InstanceState {
  exists: boolean;
  defaultOrgId: string;
}

export type InstanceCommand =
  | { kind: 'bootstrap'; defaultOrgId: string; adminUserId: string }
  /** An IAM_OWNER added after bootstrap (the human admin, made at start). */
  | { kind: 'addOwner'; userId: string; actor: string }
  /** The login's per-IP throttle engaged for unknown names (the actor: LOGIN_ACTOR). */
  | { kind: 'recordThrottle'; clientId: string; clientIp: string; waitSeconds: number; actor: string }
  /**
   * DeactivateOrg / RemoveOrg of an org holding IAM_OWNERs (`userIds`): refused (LAST_IAM_OWNER,
   * naming `lastOwner`) when the command found no other active owner, else recorded — on this one
   * stream, so two orgs' endings at once are decided one after the other.
   */
  | { kind: 'endOwners'; orgId: string; userIds: readonly string[]; lastOwner?: string; actor: string };

/** The creator of events the login records where no user is known. */
export const LOGIN_ACTOR = 'keyhold-login';

export const instanceDecider: Decider<InstanceState, InstanceCommand, InstanceEventType> = {
  initialState: () => ({ exists: false, defaultOrgId: '' }),
  evolve: (state, event) => (event.type === 'instance.added' ? { exists: true, defaultOrgId: event.payload.defaultOrgId } : state),
  decide: (command, state): NewEvent<InstanceEventType>[] => {
    if (command.kind === 'recordThrottle') {
      if (!state.exists) throw new Error('the login records on a bootstrapped instance only');
      const { clientId, clientIp, waitSeconds } = command;
      return [
        { aggregateType: 'instance', aggregateId: INSTANCE_ID, resourceOwner: state.defaultOrgId, creator: command.actor, type: 'instance.login.throttled', payload: { clientId, clientIp, waitSeconds } },
      ];
    }
    if (command.kind === 'endOwners') {
      if (command.lastOwner) throw new KeyholdError('LAST_IAM_OWNER', { userId: command.lastOwner, orgId: command.orgId });
      return [
        {
          aggregateType: 'instance',
          aggregateId: INSTANCE_ID,
          resourceOwner: state.defaultOrgId,
          creator: command.actor,
          type: 'instance.owners.ended',
          payload: { orgId: command.orgId, userIds: [...command.userIds] },
        },
      ];
    }
    if (command.kind === 'addOwner') {
      if (!state.exists) throw new Error('an owner is added to a bootstrapped instance only');
      return [
        {
          aggregateType: 'instance',
          aggregateId: INSTANCE_ID,
          resourceOwner: state.defaultOrgId,
          creator: command.actor,
          type: 'instance.member.added',
          payload: { userId: command.userId, roles: ['IAM_OWNER'] },
        },
      ];
    }
    if (state.exists) throw new KeyholdError('ID_TAKEN', { id: INSTANCE_ID });
    const own = { aggregateType: 'instance' as const, aggregateId: INSTANCE_ID, resourceOwner: command.defaultOrgId, creator: command.adminUserId };
    return [
      { ...own, type: 'instance.added', payload: { defaultOrgId: command.defaultOrgId } },
      { ...own, type: 'instance.member.added', payload: { userId: command.adminUserId, roles: ['IAM_OWNER'] } },
    ];
  },
};
