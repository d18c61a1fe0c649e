// A project's life: added in an org (with its login checks), members granted
// Keyhold roles on it, changed and removed, its own roles (for its apps' users) added.
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';

type ProjectEventType = EventTypeOf<'project'>;

export interface ProjectState {
  exists: boolean;
  orgId: string;
  /** The keys of the project's roles. */
  roleKeys: ReadonlySet<string>;
  /** Members and their roles (user id → roles), as the project's events say. */
  members: ReadonlyMap<string, readonly string[]>;
}

export type ProjectCommand =
  /** `name` in its stored form (domain/identity checkDisplayName). */
  | { kind: 'add'; orgId: string; name: string; projectRoleCheck?: boolean; hasProjectCheck?: boolean; actor: string }
  /** `roleKey` as checked by roleKeyRule; names in their stored forms. */
  | { kind: 'addRole'; roleKey: string; displayName: string; group: string; actor: string }
  /** A grant replaces the roles the user held on the project. */
  | { kind: 'addMember'; userId: string; roles: readonly string[]; actor: string }
  /** UpdateProjectMember: a member's roles replaced (the same roles again: nothing to record). */
  | { kind: 'changeMember'; userId: string; roles: readonly string[]; actor: string }
  /** RemoveProjectMember. */
  | { kind: 'removeMember'; userId: string; actor: string };

export function projectDecider(projectId: string): Decider<ProjectState, ProjectCommand, ProjectEventType> {
  return {
    initialState: () => ({ exists: false, orgId: '', roleKeys: new Set<string>(), members: new Map() }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'project.added':
          return { ...state, exists: true, orgId: event.resourceOwner };
        case 'project.role.added':
          return { ...state, roleKeys: new Set([...state.roleKeys, event.payload.roleKey]) };
        case 'project.member.added':
        case 'project.member.changed':
          return { ...state, members: new Map(state.members).set(event.payload.userId, event.payload.roles) };
        case 'project.member.removed': {
          const members = new Map(state.members);
          members.delete(event.payload.userId);
          return { ...state, members };
        }
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
        case 'changeMember': {
          if (!state.exists) throw new KeyholdError('PROJECT_NOT_FOUND', { projectId });
          const held = state.members.get(command.userId);
          if (!held) throw new KeyholdError('MEMBER_NOT_FOUND', { userId: command.userId, scope: 'project', scopeId: projectId });
          const roles = [...new Set(command.roles)];
          if (held.length === roles.length && held.every((r) => roles.includes(r))) return [];
          const own = { aggregateType: 'project' as const, aggregateId: projectId, resourceOwner: state.orgId, creator: command.actor };
          return [{ ...own, type: 'project.member.changed', payload: { userId: command.userId, roles } }];
        }
        case 'removeMember': {
          if (!state.exists) throw new KeyholdError('PROJECT_NOT_FOUND', { projectId });
          if (!state.members.has(command.userId)) throw new KeyholdError('MEMBER_NOT_FOUND', { userId: command.userId, scope: 'project', scopeId: projectId });
          const own = { aggregateType: 'project' as const, aggregateId: projectId, resourceOwner: state.orgId, creator: command.actor };
          return [{ ...own, type: 'project.member.removed', payload: { userId: command.userId } }];
        }
      }
    },
  };
}
