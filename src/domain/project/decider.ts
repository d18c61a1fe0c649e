// A project's life: added in an org (with its login checks), changed,
// deactivated and reactivated, removed; members granted Keyhold roles on it,
// changed and removed; its own roles (for its apps' users) added, changed and removed;
// granted to other orgs (project grants), those grants changed, deactivated, removed.
// A project grant lives in its project (as ZITADEL's project.grant.* events do):
// one grant per granted org and roles of the project only are then decided on
// one history, so racing AddProjectGrants meet on the project's sequence.
import type { Decider } from '../decider.js';
import { invalidRequest, KeyholdError, violation } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';

type ProjectEventType = EventTypeOf<'project'>;

export interface ProjectState {
  /** Ever added (an id is never used twice, not even after removal). */
  created: boolean;
  exists: boolean;
  orgId: string;
  name: string;
  active: boolean;
  projectRoleCheck: boolean;
  hasProjectCheck: boolean;
  /** The project's roles by key. */
  roles: ReadonlyMap<string, { displayName: string; group: string }>;
  /** Members and their roles (user id → roles), as the project's events say. */
  members: ReadonlyMap<string, readonly string[]>;
  /** Project grants by grant id. */
  grants: ReadonlyMap<string, ProjectGrantState>;
}

export interface ProjectGrantState {
  grantedOrgId: string;
  roleKeys: readonly string[];
  active: boolean;
}

export type ProjectCommand =
  /** `name` in its stored form (domain/identity checkDisplayName). */
  | { kind: 'add'; orgId: string; name: string; projectRoleCheck?: boolean; hasProjectCheck?: boolean; actor: string }
  /** `roleKey` as checked by roleKeyRule; names in their stored forms. */
  | { kind: 'addRole'; roleKey: string; displayName: string; group: string; actor: string }
  /** A grant replaces the roles the user held on the project. */
  | { kind: 'addMember'; userId: string; roles: readonly string[]; actor: string }
  /** UpdateProject: every field replaced (ZITADEL's shape); nothing changed → no event. */
  | { kind: 'update'; name: string; projectRoleCheck: boolean; hasProjectCheck: boolean; actor: string }
  | { kind: 'deactivate'; actor: string }
  | { kind: 'reactivate'; actor: string }
  | { kind: 'remove'; actor: string }
  /** UpdateProjectRole: names in their stored forms; nothing changed → no event. */
  | { kind: 'changeRole'; roleKey: string; displayName: string; group: string; actor: string }
  | { kind: 'removeRole'; roleKey: string; actor: string }
  /** UpdateProjectMember: a member's roles replaced (the same roles again: nothing to record). */
  | { kind: 'changeMember'; userId: string; roles: readonly string[]; actor: string }
  /** RemoveProjectMember. */
  | { kind: 'removeMember'; userId: string; actor: string }
  /** AddProjectGrant: `grantedOrgId` an existing, active org (checked by the command). */
  | { kind: 'addGrant'; grantId: string; grantedOrgId: string; roleKeys: readonly string[]; actor: string }
  /** UpdateProjectGrant: the grant's roles replaced (the same roles again: nothing to record). */
  | { kind: 'changeGrant'; grantId: string; roleKeys: readonly string[]; actor: string }
  | { kind: 'deactivateGrant' | 'reactivateGrant' | 'removeGrant'; grantId: string; actor: string };

export function projectDecider(projectId: string): Decider<ProjectState, ProjectCommand, ProjectEventType> {
  return {
    initialState: () => ({
      created: false,
      exists: false,
      orgId: '',
      name: '',
      active: false,
      projectRoleCheck: false,
      hasProjectCheck: false,
      roles: new Map<string, { displayName: string; group: string }>(),
      members: new Map<string, readonly string[]>(),
      grants: new Map<string, ProjectGrantState>(),
    }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'project.added':
          return {
            ...state,
            created: true,
            exists: true,
            active: true,
            orgId: event.resourceOwner,
            name: event.payload.name,
            projectRoleCheck: event.payload.projectRoleCheck ?? false,
            hasProjectCheck: event.payload.hasProjectCheck ?? false,
          };
        case 'project.changed':
          return { ...state, name: event.payload.name, projectRoleCheck: event.payload.projectRoleCheck, hasProjectCheck: event.payload.hasProjectCheck };
        case 'project.deactivated':
          return { ...state, active: false };
        case 'project.reactivated':
          return { ...state, active: true };
        case 'project.removed':
          return { ...state, exists: false, roles: new Map(), members: new Map(), grants: new Map() };
        case 'project.role.added':
        case 'project.role.changed': {
          const { roleKey, displayName, group } = event.payload;
          return { ...state, roles: new Map(state.roles).set(roleKey, { displayName, group }) };
        }
        case 'project.role.removed': {
          const roles = new Map(state.roles);
          roles.delete(event.payload.roleKey);
          // The project grants holding the role lose it with it (ZITADEL's project.grant.cascade.changed).
          const grants = new Map<string, ProjectGrantState>();
          for (const [id, g] of state.grants) grants.set(id, { ...g, roleKeys: g.roleKeys.filter((k) => k !== event.payload.roleKey) });
          return { ...state, roles, grants };
        }
        case 'project.grant.added':
          return {
            ...state,
            grants: new Map(state.grants).set(event.payload.grantId, { grantedOrgId: event.payload.grantedOrgId, roleKeys: event.payload.roleKeys, active: true }),
          };
        case 'project.grant.changed':
        case 'project.grant.deactivated':
        case 'project.grant.reactivated': {
          const grant = state.grants.get(event.payload.grantId);
          if (!grant) return state;
          const changed =
            event.type === 'project.grant.changed'
              ? { ...grant, roleKeys: event.payload.roleKeys }
              : { ...grant, active: event.type === 'project.grant.reactivated' };
          return { ...state, grants: new Map(state.grants).set(event.payload.grantId, changed) };
        }
        case 'project.grant.removed': {
          const grants = new Map(state.grants);
          grants.delete(event.payload.grantId);
          return { ...state, grants };
        }
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
      if (command.kind !== 'add' && !state.exists) throw new KeyholdError('PROJECT_NOT_FOUND', { projectId });
      const base = { aggregateType: 'project' as const, aggregateId: projectId, resourceOwner: state.orgId, creator: command.actor };
      switch (command.kind) {
        case 'add':
          if (state.created) throw new KeyholdError('ID_TAKEN', { id: projectId });
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
          const { roleKey, displayName, group } = command;
          if (state.roles.has(roleKey)) throw new KeyholdError('ROLE_KEY_TAKEN', { projectId, roleKey });
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
          const held = state.members.get(command.userId);
          if (!held) throw new KeyholdError('MEMBER_NOT_FOUND', { userId: command.userId, scope: 'project', scopeId: projectId });
          const roles = [...new Set(command.roles)];
          if (held.length === roles.length && held.every((r) => roles.includes(r))) return [];
          return [{ ...base, type: 'project.member.changed', payload: { userId: command.userId, roles } }];
        }
        case 'removeMember':
          if (!state.members.has(command.userId)) throw new KeyholdError('MEMBER_NOT_FOUND', { userId: command.userId, scope: 'project', scopeId: projectId });
          return [{ ...base, type: 'project.member.removed', payload: { userId: command.userId } }];
        case 'update': {
          const { name, projectRoleCheck, hasProjectCheck } = command;
          if (name === state.name && projectRoleCheck === state.projectRoleCheck && hasProjectCheck === state.hasProjectCheck) return [];
          return [{ ...base, type: 'project.changed', payload: { name, projectRoleCheck, hasProjectCheck } }];
        }
        case 'deactivate':
          if (!state.active) throw new KeyholdError('PROJECT_NOT_ACTIVE', { projectId });
          return [{ ...base, type: 'project.deactivated', payload: {} }];
        case 'reactivate':
          if (state.active) throw new KeyholdError('PROJECT_NOT_INACTIVE', { projectId });
          return [{ ...base, type: 'project.reactivated', payload: {} }];
        case 'remove':
          return [{ ...base, type: 'project.removed', payload: {} }];
        case 'changeRole': {
          const { roleKey, displayName, group } = command;
          const role = state.roles.get(roleKey);
          if (!role) throw new KeyholdError('PROJECT_ROLE_NOT_FOUND', { projectId, roleKey });
          if (role.displayName === displayName && role.group === group) return [];
          return [{ ...base, type: 'project.role.changed', payload: { roleKey, displayName, group } }];
        }
        case 'removeRole':
          if (!state.roles.has(command.roleKey)) throw new KeyholdError('PROJECT_ROLE_NOT_FOUND', { projectId, roleKey: command.roleKey });
          return [{ ...base, type: 'project.role.removed', payload: { roleKey: command.roleKey } }];
        case 'addGrant': {
          const { grantId, grantedOrgId } = command;
          if (grantedOrgId === state.orgId) {
            throw invalidRequest([
              violation('grantedOrgId', { en: 'is the organization that owns the project', de: 'ist die Organisation, der das Projekt gehört' }),
            ]);
          }
          if ([...state.grants.values()].some((g) => g.grantedOrgId === grantedOrgId)) throw new KeyholdError('PROJECT_GRANT_EXISTS', { projectId, grantedOrgId });
          if (state.grants.has(grantId)) throw new KeyholdError('ID_TAKEN', { id: grantId });
          const roleKeys = projectRoleKeys(state, command.roleKeys);
          return [{ ...base, type: 'project.grant.added', payload: { grantId, grantedOrgId, roleKeys } }];
        }
        case 'changeGrant': {
          const grant = grantOf(state, projectId, command.grantId);
          const roleKeys = projectRoleKeys(state, command.roleKeys);
          if (grant.roleKeys.length === roleKeys.length && grant.roleKeys.every((k) => roleKeys.includes(k))) return [];
          return [{ ...base, type: 'project.grant.changed', payload: { grantId: command.grantId, roleKeys } }];
        }
        case 'deactivateGrant':
          if (!grantOf(state, projectId, command.grantId).active) throw new KeyholdError('PROJECT_GRANT_NOT_ACTIVE', { grantId: command.grantId });
          return [{ ...base, type: 'project.grant.deactivated', payload: { grantId: command.grantId } }];
        case 'reactivateGrant':
          if (grantOf(state, projectId, command.grantId).active) throw new KeyholdError('PROJECT_GRANT_NOT_INACTIVE', { grantId: command.grantId });
          return [{ ...base, type: 'project.grant.reactivated', payload: { grantId: command.grantId } }];
        case 'removeGrant': {
          const grant = grantOf(state, projectId, command.grantId);
          return [{ ...base, type: 'project.grant.removed', payload: { grantId: command.grantId, grantedOrgId: grant.grantedOrgId } }];
        }
      }
    },
  };
}

function grantOf(state: ProjectState, projectId: string, grantId: string): ProjectGrantState {
  const grant = state.grants.get(grantId);
  if (!grant) throw new KeyholdError('PROJECT_GRANT_NOT_FOUND', { grantId, projectId });
  return grant;
}

/** The keys once each, in the order sent; 400 naming each one the project does not have. */
function projectRoleKeys(state: ProjectState, keys: readonly string[]): string[] {
  const unknown = keys.flatMap((key, i) =>
    state.roles.has(key) ? [] : [violation(`roleKeys[${i}]`, { en: 'is not a role of the project', de: 'ist keine Rolle des Projekts' })],
  );
  if (unknown.length) throw invalidRequest(unknown);
  return [...new Set(keys)];
}
