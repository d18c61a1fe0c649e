// An organization's life: added (optionally with its first admins), renamed,
// deactivated and reactivated, removed; members granted roles in it, changed
// and removed (never its last ORG_OWNER); its login and lockout policies.
import type { Decider } from '../decider.js';
import { invalidRequest, KeyholdError, violation } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';

type OrgEventType = EventTypeOf<'org'>;

export interface OrgState {
  /** Added and not removed. */
  exists: boolean;
  name?: string;
  /** DeactivateOrg until ReactivateOrg. */
  active: boolean;
  /** Members and their roles (user id → roles), as the org's events say. */
  members: ReadonlyMap<string, readonly string[]>;
  /** The org's own login policy, once added (AddCustomLoginPolicy). */
  loginPolicy?: LoginPolicy;
  /** The org's own lockout policy, once added (AddCustomLockoutPolicy). */
  lockoutPolicy?: LockoutPolicy;
}

/**
 * ZITADEL's lockout policy: after `maxPasswordAttempts` consecutive wrong
 * passwords the user is locked (UnlockUser lifts it); 0 = never.
 */
export interface LockoutPolicy {
  maxPasswordAttempts: number;
}

/** Off by default (as ZITADEL's): nobody locks an admin out by typing wrong passwords unless an org chose so. */
export const DEFAULT_LOCKOUT_POLICY: LockoutPolicy = Object.freeze({ maxPasswordAttempts: 0 });

/**
 * ZITADEL's login policy, as far as Keyhold has it: whether a second factor is
 * required, and which first factors sign in — a passkey (ZITADEL's
 * passwordlessType) and the username with password (allowUsernamePassword).
 */
export interface LoginPolicy {
  forceMfa: boolean;
  passwordlessAllowed: boolean;
  allowUsernamePassword: boolean;
  /** ZITADEL's allowRegister: people may register themselves in the org at its apps' login (off by default). */
  allowRegister: boolean;
  /** The address domains a registration may use (lower-case ASCII, exact); empty: any. */
  registerDomains: readonly string[];
  /** A registered address must be verified before the first login (on by default). */
  registerVerification: boolean;
}

/** The policy of an org without its own (ZITADEL's default: no second factor required, passkeys and passwords both allowed). */
export const DEFAULT_LOGIN_POLICY: LoginPolicy = Object.freeze({
  forceMfa: false,
  passwordlessAllowed: true,
  allowUsernamePassword: true,
  allowRegister: false,
  registerDomains: [],
  registerVerification: true,
});

/** A policy from its event; fields an older event lacks take their defaults. */
export function loginPolicyOfPayload(payload: {
  forceMfa: boolean;
  passwordlessAllowed?: boolean;
  allowUsernamePw?: boolean;
  allowRegister?: boolean;
  registerDomains?: readonly string[];
  registerVerification?: boolean;
}): LoginPolicy {
  return {
    forceMfa: payload.forceMfa,
    passwordlessAllowed: payload.passwordlessAllowed ?? DEFAULT_LOGIN_POLICY.passwordlessAllowed,
    allowUsernamePassword: payload.allowUsernamePw ?? DEFAULT_LOGIN_POLICY.allowUsernamePassword,
    allowRegister: payload.allowRegister ?? DEFAULT_LOGIN_POLICY.allowRegister,
    registerDomains: [...(payload.registerDomains ?? DEFAULT_LOGIN_POLICY.registerDomains)],
    registerVerification: payload.registerVerification ?? DEFAULT_LOGIN_POLICY.registerVerification,
  };
}

/**
 * What AddCustomLoginPolicy / UpdateCustomLoginPolicy say: forceMfa and the
 * registration's rules always (a field left out is its safe default: no
 * registration, any domain, verification required), the first factors when given.
 */
export type LoginPolicyChange = Pick<LoginPolicy, 'forceMfa'> &
  Partial<Pick<LoginPolicy, 'passwordlessAllowed' | 'allowUsernamePassword' | 'allowRegister' | 'registerDomains' | 'registerVerification'>>;

/**
 * The policy a change makes of `current`; a login needs at least one first
 * factor, so a policy allowing neither is refused, naming both fields.
 */
export function changedLoginPolicy(current: LoginPolicy, change: LoginPolicyChange): LoginPolicy {
  const policy = {
    forceMfa: change.forceMfa,
    passwordlessAllowed: change.passwordlessAllowed ?? current.passwordlessAllowed,
    allowUsernamePassword: change.allowUsernamePassword ?? current.allowUsernamePassword,
    allowRegister: change.allowRegister ?? DEFAULT_LOGIN_POLICY.allowRegister,
    registerDomains: [...(change.registerDomains ?? DEFAULT_LOGIN_POLICY.registerDomains)],
    registerVerification: change.registerVerification ?? DEFAULT_LOGIN_POLICY.registerVerification,
  };
  if (!policy.passwordlessAllowed && !policy.allowUsernamePassword) {
    const why = { en: 'a login policy must allow passkeys or the username with password (or both)', de: 'eine Login-Richtlinie muss Passkeys oder Benutzername mit Passwort (oder beides) erlauben' };
    throw invalidRequest([violation('passwordlessType', why), violation('allowUsernamePassword', why)]);
  }
  return policy;
}

const payloadOfLoginPolicy = (policy: LoginPolicy) => ({
  forceMfa: policy.forceMfa,
  passwordlessAllowed: policy.passwordlessAllowed,
  allowUsernamePw: policy.allowUsernamePassword,
  allowRegister: policy.allowRegister,
  registerDomains: [...policy.registerDomains],
  registerVerification: policy.registerVerification,
});

const sameLoginPolicy = (a: LoginPolicy, b: LoginPolicy) =>
  a.forceMfa === b.forceMfa &&
  a.passwordlessAllowed === b.passwordlessAllowed &&
  a.allowUsernamePassword === b.allowUsernamePassword &&
  a.allowRegister === b.allowRegister &&
  a.registerVerification === b.registerVerification &&
  a.registerDomains.join(' ') === b.registerDomains.join(' ');

/** The first factors a login under `policy` offers (never none: a policy allowing neither is refused when written). */
export function allowedFirstFactors(policy: LoginPolicy): Array<'passkey' | 'password'> {
  return [...(policy.passwordlessAllowed ? (['passkey'] as const) : []), ...(policy.allowUsernamePassword ? (['password'] as const) : [])];
}

export interface OrgAdmin {
  userId: string;
  /** Empty: ORG_OWNER (adminRoles). */
  roles: readonly string[];
}

export type OrgCommand =
  /** `name` in its stored form (domain/identity checkDisplayName). */
  | { kind: 'add'; name: string; admins: readonly OrgAdmin[]; actor: string }
  /** A grant replaces the roles the user held in the org. */
  | { kind: 'addMember'; userId: string; roles: readonly string[]; actor: string; goneUsers?: readonly string[] }
  /** UpdateOrgMember: a member's roles replaced (the same roles again: nothing to record). */
  | { kind: 'changeMember'; userId: string; roles: readonly string[]; actor: string; goneUsers?: readonly string[] }
  /** RemoveOrgMember. */
  | { kind: 'removeMember'; userId: string; actor: string; goneUsers?: readonly string[] }
  /**
   * DeactivateUser / LockUser of a member: refused (LAST_ORG_OWNER) when it is an owner and no
   * other active owner remains; recorded (org.owner.suspended) when it is an owner, nothing otherwise.
   */
  | { kind: 'suspendOwner'; userId: string; actor: string; goneUsers?: readonly string[] }
  /**
   * Users of a deactivated org (DeactivateOrg) who own this one: refused (LAST_ORG_OWNER) when no
   * other active owner remains; each owner recorded (org.owner.suspended); non-owners passed over.
   */
  | { kind: 'suspendOwners'; userIds: readonly string[]; actor: string; goneUsers?: readonly string[] }
  /** Users of a removed org leaving this one (RemoveOrg): those not members are passed over. */
  | { kind: 'removeMembers'; userIds: readonly string[]; actor: string; goneUsers?: readonly string[] }
  /** AddCustomLoginPolicy: the org's own policy, once; a first-factor field left out takes its default. */
  | { kind: 'addLoginPolicy'; policy: LoginPolicyChange; actor: string }
  /** UpdateCustomLoginPolicy: a change of the org's own policy (a first-factor field left out keeps its value; the same values again: nothing to record). */
  | { kind: 'changeLoginPolicy'; policy: LoginPolicyChange; actor: string }
  /** AddCustomLockoutPolicy: the org's own lockout policy, once. */
  | { kind: 'addLockoutPolicy'; policy: LockoutPolicy; actor: string }
  /** UpdateCustomLockoutPolicy: a change (the same values again: nothing to record). */
  | { kind: 'changeLockoutPolicy'; policy: LockoutPolicy; actor: string }
  /** UpdateOrg: `name` in its stored form; the same name again records nothing. */
  | { kind: 'rename'; name: string; actor: string }
  | { kind: 'deactivate'; actor: string }
  | { kind: 'reactivate'; actor: string }
  /** RemoveOrg: the org's own event; what is under it is removed by the command in the same append. */
  | { kind: 'remove'; actor: string };

/** The roles an admin of a new org gets: those named, else ORG_OWNER. */
export function adminRoles(roles: readonly string[]): string[] {
  return roles.length ? [...new Set(roles)] : ['ORG_OWNER'];
}

/**
 * The refusal when the user's roles becoming `roles` would leave the org
 * without an ORG_OWNER. `goneUsers`: members whose user was removed since
 * (RemoveUser), who own nothing any more. Decided on the org's own events,
 * so two changes racing for the last two owners meet on the append.
 */
function lastOwnerRefusal(orgId: string, state: OrgState, userId: string, roles: readonly string[], goneUsers: readonly string[] = []): KeyholdError | undefined {
  if (roles.includes('ORG_OWNER') || !state.members.get(userId)?.includes('ORG_OWNER')) return undefined;
  for (const [other, held] of state.members) {
    if (other !== userId && held.includes('ORG_OWNER') && !goneUsers.includes(other)) return undefined;
  }
  return new KeyholdError('LAST_ORG_OWNER', { userId, orgId });
}

/** Owners in the org's events: for the command to tell which of them were removed since. */
export function ownersOf(state: OrgState): string[] {
  return [...state.members].filter(([, roles]) => roles.includes('ORG_OWNER')).map(([userId]) => userId);
}

const sameRoles = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((r) => b.includes(r));

export function orgDecider(orgId: string): Decider<OrgState, OrgCommand, OrgEventType> {
  const own = (actor: string) => ({ aggregateType: 'org' as const, aggregateId: orgId, resourceOwner: orgId, creator: actor });
  return {
    initialState: () => ({ exists: false, active: false, members: new Map() }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'org.added':
          return { ...state, exists: true, active: true, name: event.payload.name };
        case 'org.changed':
          return { ...state, name: event.payload.name };
        case 'org.deactivated':
          return { ...state, active: false };
        case 'org.reactivated':
          return { ...state, active: true };
        case 'org.removed':
          return { ...state, exists: false, active: false };
        case 'org.member.added':
        case 'org.member.changed':
          return { ...state, members: new Map(state.members).set(event.payload.userId, event.payload.roles) };
        case 'org.member.removed': {
          const members = new Map(state.members);
          members.delete(event.payload.userId);
          return { ...state, members };
        }
        case 'org.login.policy.added':
        case 'org.login.policy.changed':
          return { ...state, loginPolicy: loginPolicyOfPayload(event.payload) };
        case 'org.lockout.policy.added':
        case 'org.lockout.policy.changed':
          return { ...state, lockoutPolicy: { maxPasswordAttempts: event.payload.maxAttempts } };
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent<OrgEventType>[] => {
      switch (command.kind) {
        case 'add':
          if (state.exists) throw new KeyholdError('ID_TAKEN', { id: orgId });
          return [
            { ...own(command.actor), type: 'org.added', payload: { name: command.name } },
            ...command.admins.map((a): NewEvent<OrgEventType> => ({
              ...own(command.actor),
              type: 'org.member.added',
              payload: { userId: a.userId, roles: adminRoles(a.roles) },
            })),
          ];
        case 'addMember': {
          if (!state.exists) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
          // A grant to a member replaces its roles: it must not demote the last owner either.
          const refusal = lastOwnerRefusal(orgId, state, command.userId, command.roles, command.goneUsers);
          if (refusal) throw refusal;
          return [{ ...own(command.actor), type: 'org.member.added', payload: { userId: command.userId, roles: [...new Set(command.roles)] } }];
        }
        case 'changeMember': {
          if (!state.exists) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
          const held = state.members.get(command.userId);
          if (!held) throw new KeyholdError('MEMBER_NOT_FOUND', { userId: command.userId, scope: 'organization', scopeId: orgId });
          const roles = [...new Set(command.roles)];
          if (sameRoles(held, roles)) return [];
          const refusal = lastOwnerRefusal(orgId, state, command.userId, roles, command.goneUsers);
          if (refusal) throw refusal;
          return [{ ...own(command.actor), type: 'org.member.changed', payload: { userId: command.userId, roles } }];
        }
        case 'removeMember': {
          if (!state.exists) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
          if (!state.members.has(command.userId)) throw new KeyholdError('MEMBER_NOT_FOUND', { userId: command.userId, scope: 'organization', scopeId: orgId });
          const refusal = lastOwnerRefusal(orgId, state, command.userId, [], command.goneUsers);
          if (refusal) throw refusal;
          return [{ ...own(command.actor), type: 'org.member.removed', payload: { userId: command.userId } }];
        }
        case 'rename':
          if (!state.exists) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
          if (state.name === command.name) return [];
          return [{ ...own(command.actor), type: 'org.changed', payload: { name: command.name } }];
        case 'deactivate':
          if (!state.exists) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
          if (!state.active) throw new KeyholdError('ORG_NOT_ACTIVE', { orgId });
          return [{ ...own(command.actor), type: 'org.deactivated', payload: {} }];
        case 'reactivate':
          if (!state.exists) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
          if (state.active) throw new KeyholdError('ORG_NOT_INACTIVE', { orgId });
          return [{ ...own(command.actor), type: 'org.reactivated', payload: {} }];
        case 'remove':
          if (!state.exists) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
          return [{ ...own(command.actor), type: 'org.removed', payload: {} }];
        case 'suspendOwner': {
          if (!state.exists || !state.members.get(command.userId)?.includes('ORG_OWNER')) return [];
          const refusal = lastOwnerRefusal(orgId, state, command.userId, [], command.goneUsers);
          if (refusal) throw refusal;
          return [{ ...own(command.actor), type: 'org.owner.suspended', payload: { userId: command.userId } }];
        }
        case 'suspendOwners': {
          if (!state.exists) return [];
          const suspended = command.userIds.filter((u) => state.members.get(u)?.includes('ORG_OWNER'));
          for (const userId of suspended) {
            const refusal = lastOwnerRefusal(orgId, state, userId, [], [...(command.goneUsers ?? []), ...suspended]);
            if (refusal) throw refusal;
          }
          return suspended.map((userId): NewEvent<OrgEventType> => ({ ...own(command.actor), type: 'org.owner.suspended', payload: { userId } }));
        }
        case 'removeMembers': {
          if (!state.exists) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
          const leaving = command.userIds.filter((u) => state.members.has(u));
          // The others leaving count as gone: the last owner may not leave with them.
          for (const userId of leaving) {
            const refusal = lastOwnerRefusal(orgId, state, userId, [], [...(command.goneUsers ?? []), ...leaving]);
            if (refusal) throw refusal;
          }
          return leaving.map((userId): NewEvent<OrgEventType> => ({ ...own(command.actor), type: 'org.member.removed', payload: { userId } }));
        }
        case 'addLoginPolicy':
          if (!state.exists) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
          if (state.loginPolicy) throw new KeyholdError('LOGIN_POLICY_EXISTS', { orgId });
          return [{ ...own(command.actor), type: 'org.login.policy.added', payload: payloadOfLoginPolicy(changedLoginPolicy(DEFAULT_LOGIN_POLICY, command.policy)) }];
        case 'changeLoginPolicy': {
          if (!state.exists) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
          if (!state.loginPolicy) throw new KeyholdError('LOGIN_POLICY_NOT_FOUND', { orgId });
          const policy = changedLoginPolicy(state.loginPolicy, command.policy);
          if (sameLoginPolicy(state.loginPolicy, policy)) return [];
          return [{ ...own(command.actor), type: 'org.login.policy.changed', payload: payloadOfLoginPolicy(policy) }];
        }
        case 'addLockoutPolicy':
          if (!state.exists) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
          if (state.lockoutPolicy) throw new KeyholdError('LOCKOUT_POLICY_EXISTS', { orgId });
          return [{ ...own(command.actor), type: 'org.lockout.policy.added', payload: { maxAttempts: command.policy.maxPasswordAttempts } }];
        case 'changeLockoutPolicy':
          if (!state.exists) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
          if (!state.lockoutPolicy) throw new KeyholdError('LOCKOUT_POLICY_NOT_FOUND', { orgId });
          if (state.lockoutPolicy.maxPasswordAttempts === command.policy.maxPasswordAttempts) return [];
          return [{ ...own(command.actor), type: 'org.lockout.policy.changed', payload: { maxAttempts: command.policy.maxPasswordAttempts } }];
      }
    },
  };
}
