// A user grant's life (ZITADEL's usergrant): roles of a project given to a user.
// One grant per user and project is guarded by the read model's unique index
// (user_grants_user_project_key → USER_GRANT_EXISTS: no aggregate holds every
// grant); that the roles exist in the project is checked by the command.
// A grant follows its project: a removed role leaves it, a removed project
// takes it (the cascade commands, written with the project's event).
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';

type UserGrantEventType = EventTypeOf<'usergrant'>;

export interface UserGrantState {
  /** Ever added (an id is never used twice). */
  created: boolean;
  exists: boolean;
  orgId: string;
  roleKeys: readonly string[];
}

export type UserGrantCommand =
  | {
      kind: 'add';
      userId: string;
      projectId: string;
      /** The project's org: the grant's owner. */
      orgId: string;
      roleKeys: readonly string[];
      actor: string;
    }
  /** The project's role was removed: the grant loses it (nothing when it does not hold it, or is gone). */
  | { kind: 'cascadeRemoveRole'; roleKey: string; actor: string }
  /** The grant's project was removed (nothing when the grant is gone already). */
  | { kind: 'cascadeRemove'; actor: string };

export function userGrantDecider(grantId: string): Decider<UserGrantState, UserGrantCommand, UserGrantEventType> {
  return {
    initialState: () => ({ created: false, exists: false, orgId: '', roleKeys: [] }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'usergrant.added':
          return { created: true, exists: true, orgId: event.resourceOwner, roleKeys: event.payload.roleKeys };
        case 'usergrant.cascade.changed':
          return { ...state, roleKeys: event.payload.roleKeys };
        case 'usergrant.cascade.removed':
          return { ...state, exists: false, roleKeys: [] };
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent<UserGrantEventType>[] => {
      const base = { aggregateType: 'usergrant' as const, aggregateId: grantId, creator: command.actor };
      switch (command.kind) {
        case 'add':
          if (state.created) throw new KeyholdError('ID_TAKEN', { id: grantId });
          return [
            {
              ...base,
              type: 'usergrant.added',
              payload: { userId: command.userId, projectId: command.projectId, roleKeys: [...new Set(command.roleKeys)] },
              resourceOwner: command.orgId,
            },
          ];
        case 'cascadeRemoveRole': {
          if (!state.exists || !state.roleKeys.includes(command.roleKey)) return [];
          const roleKeys = state.roleKeys.filter((k) => k !== command.roleKey);
          return [{ ...base, resourceOwner: state.orgId, type: 'usergrant.cascade.changed', payload: { removedRoleKey: command.roleKey, roleKeys } }];
        }
        case 'cascadeRemove':
          if (!state.exists) return [];
          return [{ ...base, resourceOwner: state.orgId, type: 'usergrant.cascade.removed', payload: {} }];
      }
    },
  };
}
