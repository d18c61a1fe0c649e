// A user grant's life (ZITADEL's usergrant): roles of a project given to a
// user, replaced, deactivated and reactivated, removed. One grant per user and
// project is guarded by the read model's unique index (user_grants_user_project_key
// → USER_GRANT_EXISTS: no aggregate holds every grant); that the roles exist
// in the project is checked by the command. A grant follows its project: a
// removed role leaves it, a removed project takes it (the cascade commands,
// written with the project's event).
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';

type UserGrantEventType = EventTypeOf<'usergrant'>;

export interface UserGrantState {
  /** Ever created (an id is never used twice, not even after removal). */
  created: boolean;
  /** Created and not removed. */
  exists: boolean;
  active: boolean;
  userId: string;
  projectId: string;
  /** The grant's owner: the project's org, or the org the project is granted to. */
  orgId: string;
  roleKeys: readonly string[];
  /** The project grant it was given under ('' when the project's org gave it). */
  projectGrantId: string;
}

export type UserGrantCommand =
  | {
      kind: 'add';
      userId: string;
      projectId: string;
      /** The grant's owner: the project's org, or the org the project is granted to (with `projectGrantId`). */
      orgId: string;
      roleKeys: readonly string[];
      projectGrantId?: string;
      actor: string;
    }
  | { kind: 'change'; roleKeys: readonly string[]; actor: string }
  | { kind: 'deactivate' | 'reactivate' | 'remove'; actor: string }
  /** The project's role was removed: the grant loses it (nothing when it does not hold it, or is gone). */
  | { kind: 'cascadeRemoveRole'; roleKey: string; actor: string }
  /** The grant's project was removed (nothing when the grant is gone already). */
  | { kind: 'cascadeRemove'; actor: string };

const once = (keys: readonly string[]) => [...new Set(keys)];

export function userGrantDecider(grantId: string): Decider<UserGrantState, UserGrantCommand, UserGrantEventType> {
  return {
    initialState: () => ({ created: false, exists: false, active: false, userId: '', projectId: '', orgId: '', roleKeys: [], projectGrantId: '' }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'usergrant.added':
          return {
            created: true,
            exists: true,
            active: true,
            userId: event.payload.userId,
            projectId: event.payload.projectId,
            orgId: event.resourceOwner,
            roleKeys: event.payload.roleKeys,
            projectGrantId: event.payload.projectGrantId ?? '',
          };
        case 'usergrant.changed':
          return { ...state, roleKeys: event.payload.roleKeys };
        case 'usergrant.deactivated':
          return { ...state, active: false };
        case 'usergrant.reactivated':
          return { ...state, active: true };
        case 'usergrant.removed':
          return { ...state, exists: false, active: false };
        case 'usergrant.cascade.changed':
          return { ...state, roleKeys: event.payload.roleKeys };
        case 'usergrant.cascade.removed':
          return { ...state, exists: false, active: false, roleKeys: [] };
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent<UserGrantEventType>[] => {
      if (command.kind === 'add') {
        if (state.created) throw new KeyholdError('ID_TAKEN', { id: grantId });
        return [
          {
            aggregateType: 'usergrant',
            aggregateId: grantId,
            type: 'usergrant.added',
            payload: {
              userId: command.userId,
              projectId: command.projectId,
              roleKeys: once(command.roleKeys),
              ...(command.projectGrantId ? { projectGrantId: command.projectGrantId } : {}),
            },
            resourceOwner: command.orgId,
            creator: command.actor,
          },
        ];
      }
      if (command.kind === 'cascadeRemoveRole' || command.kind === 'cascadeRemove') {
        if (!state.exists) return [];
        const own = { aggregateType: 'usergrant' as const, aggregateId: grantId, resourceOwner: state.orgId, creator: command.actor };
        if (command.kind === 'cascadeRemove') return [{ ...own, type: 'usergrant.cascade.removed', payload: {} }];
        if (!state.roleKeys.includes(command.roleKey)) return [];
        const roleKeys = state.roleKeys.filter((k) => k !== command.roleKey);
        return [{ ...own, type: 'usergrant.cascade.changed', payload: { removedRoleKey: command.roleKey, roleKeys } }];
      }
      if (!state.exists) throw new KeyholdError('USER_GRANT_NOT_FOUND', { grantId });
      const base = { aggregateType: 'usergrant' as const, aggregateId: grantId, resourceOwner: state.orgId, creator: command.actor };
      switch (command.kind) {
        case 'change':
          return [{ ...base, type: 'usergrant.changed', payload: { roleKeys: once(command.roleKeys) } }];
        case 'deactivate':
          if (!state.active) throw new KeyholdError('USER_GRANT_NOT_ACTIVE', { grantId });
          return [{ ...base, type: 'usergrant.deactivated', payload: {} }];
        case 'reactivate':
          if (state.active) throw new KeyholdError('USER_GRANT_NOT_INACTIVE', { grantId });
          return [{ ...base, type: 'usergrant.reactivated', payload: {} }];
        case 'remove':
          return [{ ...base, type: 'usergrant.removed', payload: { userId: state.userId, projectId: state.projectId } }];
      }
    },
  };
}
