// A user grant's life (ZITADEL's usergrant): roles of a project given to a user.
// One grant per user and project is guarded by the read model's unique index
// (user_grants_user_project_key → USER_GRANT_EXISTS: no aggregate holds every
// grant); that the roles exist in the project is checked by the command.
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';

type UserGrantEventType = EventTypeOf<'usergrant'>;

export interface UserGrantState {
  exists: boolean;
}

export type UserGrantCommand = {
  kind: 'add';
  userId: string;
  projectId: string;
  /** The project's org: the grant's owner. */
  orgId: string;
  roleKeys: readonly string[];
  actor: string;
};

export function userGrantDecider(grantId: string): Decider<UserGrantState, UserGrantCommand, UserGrantEventType> {
  return {
    initialState: () => ({ exists: false }),
    evolve: (state, event) => (event.type === 'usergrant.added' ? { exists: true } : state),
    decide: (command, state): NewEvent<UserGrantEventType>[] => {
      if (state.exists) throw new KeyholdError('ID_TAKEN', { id: grantId });
      return [
        {
          aggregateType: 'usergrant',
          aggregateId: grantId,
          type: 'usergrant.added',
          payload: { userId: command.userId, projectId: command.projectId, roleKeys: [...new Set(command.roleKeys)] },
          resourceOwner: command.orgId,
          creator: command.actor,
        },
      ];
    },
  };
}
