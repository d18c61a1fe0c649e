// A project's life: added in an org (with its login checks), members granted
// Keyhold roles on it, its own roles (for its apps' users) added.
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';

type ProjectEventType = EventTypeOf<'project'>;

export interface ProjectState {
  exists: boolean;
  orgId: string;
  /** The keys of the project's roles. */
  roleKeys: ReadonlySet<string>;
}

export type ProjectCommand =
  /** `name` in its stored form (domain/identity checkDisplayName). */
  | { kind: 'add'; orgId: string; name: string; projectRoleCheck?: boolean; hasProjectCheck?: boolean; actor: string }
  /** `roleKey` as checked by roleKeyRule; names in their stored forms. */
  | { kind: 'addRole'; roleKey: string; displayName: string; group: string; actor: string }
  /** A grant replaces the roles the user held on the project. */
  | { kind: 'addMember'; userId: string; roles: readonly string[]; actor: string };

export function projectDecider(projectId: string): Decider<ProjectState, ProjectCommand, ProjectEventType> {
  return {
    initialState: () => ({ exists: false, orgId: '', roleKeys: new Set<string>() }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'project.added':
          return { ...state, exists: true, orgId: event.resourceOwner };
        case 'project.role.added':
          return { ...state, roleKeys: new Set([...state.roleKeys, event.payload.roleKey]) };
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent<ProjectEventType>[] => {
      switch (command.kind) {
        case 'add':
          if (state.exists) throw new KeyholdError('ID_TAKEN', { id: projectId });
          return [
            {
              aggregateType: 'project',
              aggregateId: projectId,
              type: 'project.added',
              payload: { name: command.name, projectRoleCheck: command.projectRoleCheck ?? false, hasProjectCheck: command.hasProjectCheck ?? false },
              resourceOwner: command.orgId,
              creator: command.actor,
            },
          ];
        case 'addRole': {
          if (!state.exists) throw new KeyholdError('PROJECT_NOT_FOUND', { projectId });
          const { roleKey, displayName, group } = command;
          if (state.roleKeys.has(roleKey)) throw new KeyholdError('ROLE_KEY_TAKEN', { projectId, roleKey });
          return [
            {
              aggregateType: 'project',
              aggregateId: projectId,
              type: 'project.role.added',
              payload: { roleKey, displayName, group },
              resourceOwner: state.orgId,
              creator: command.actor,
            },
          ];
        }
        case 'addMember':
          if (!state.exists) throw new KeyholdError('PROJECT_NOT_FOUND', { projectId });
          return [
            {
              aggregateType: 'project',
              aggregateId: projectId,
              type: 'project.member.added',
              payload: { userId: command.userId, roles: [...new Set(command.roles)] },
              resourceOwner: state.orgId,
              creator: command.actor,
            },
          ];
      }
    },
  };
}
