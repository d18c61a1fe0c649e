// A user's life: added as a human (possibly with a password) or a machine (the
// machine possibly with its first token, at bootstrap), personal access tokens
// added for machines and removed, passwords set for humans, profile changes,
// deactivation, locking and removal, and its metadata.
import type { Decider } from '../decider.js';
import { invalidRequest, KeyholdError } from '../errors/keyhold-error.js';
import type { EventPayloads, EventTypeOf, NewEvent } from '../events/index.js';
import type { MachineAccessTokenType } from '../events/user.js';
import { foldStreak } from './failure-streak.js';
import { MAX_METADATA_KEYS, tooManyKeys } from './metadata.js';

type UserEventType = EventTypeOf<'user'>;

export interface UserState {
  exists: boolean;
  /** Removed: the id stays spent (a new user under it would inherit what still names it: links, grants' history). */
  removed?: boolean;
  kind?: 'human' | 'machine';
  orgId: string;
  /** The stored username (a new password must not be it). */
  username: string;
  hasPassword: boolean;
  /** Ids of the personal access tokens not removed (expired ones included). */
  pats: readonly string[];
  /** Only an active user's tokens authenticate. */
  state: 'active' | 'inactive' | 'locked';
  /** A machine user's client id while it has a client secret (GenerateMachineSecret). */
  machineClientId?: string;
  /**
   * Wrong passwords since the last successful login or unlock (the lockout
   * policy's count; the throttle counts by time window instead).
   */
  failedPasswordAttempts: number;
  /** The metadata keys the user holds (NFC), at most MAX_METADATA_KEYS. */
  metadataKeys: readonly string[];
  /** Registered itself under "verification before the first login", and its address is not verified yet: no login. */
  registrationUnverified?: boolean;
}

/** A metadata entry to set: its key (NFC), value (base64) and the request field that named it (for a 400). */
export interface MetadataEntry {
  key: string;
  value: string;
  field: string;
}

/** A password's stored facts: the hash (never the password) and whether it must be changed at the next login. */
export interface PasswordFacts {
  passwordHash: string;
  changeRequired: boolean;
}

/** A lifecycle step and the state it needs (else the reason it is refused with). */
const LIFECYCLE = {
  deactivate: { to: 'inactive', allowed: (s: UserState['state']) => s !== 'inactive', refusal: 'USER_ALREADY_INACTIVE', event: 'user.deactivated' },
  reactivate: { to: 'active', allowed: (s: UserState['state']) => s === 'inactive', refusal: 'USER_NOT_INACTIVE', event: 'user.reactivated' },
  lock: { to: 'locked', allowed: (s: UserState['state']) => s === 'active', refusal: 'USER_NOT_ACTIVE', event: 'user.locked' },
  unlock: { to: 'active', allowed: (s: UserState['state']) => s === 'locked', refusal: 'USER_NOT_LOCKED', event: 'user.unlocked' },
} as const;
export type LifecycleStep = keyof typeof LIFECYCLE;

/** A token's stored facts: its id, its hash (never the token) and its expiry. */
export interface TokenFacts {
  tokenId: string;
  tokenHash: string;
  /** ISO-8601, or null for a token that does not expire. */
  expiresAt: string | null;
}

/** What the OpenID Provider records about a user (never a token, a token's id or a password). */
export type OidcAuditEvent = {
  [K in 'user.login.throttled' | 'user.oidc.grant.saved' | 'user.oidc.grant.revoked' | 'user.oidc.token.revoked']: { type: K; payload: EventPayloads[K] };
}['user.login.throttled' | 'user.oidc.grant.saved' | 'user.oidc.grant.revoked' | 'user.oidc.token.revoked'];

/** Names are in their stored forms (domain/identity: checkUsername, checkDisplayName). */
export type UserCommand =
  | {
      kind: 'addHuman';
      orgId: string;
      username: string;
      givenName: string;
      familyName: string;
      /** Empty: "<given name> <family name>". */
      displayName: string;
      email: string;
      actor: string;
      /** The initial password, already hashed. */
      password?: PasswordFacts;
      /** Registered by the person at the login (self-registration): whether the address must be verified before the first login. */
      registered?: { verificationRequired: boolean };
    }
  | {
      kind: 'addMachine';
      orgId: string;
      username: string;
      name: string;
      description: string;
      actor: string;
      token?: TokenFacts;
      /** Absent: BEARER (the event then carries none, as older events). */
      accessTokenType?: MachineAccessTokenType;
    }
  /** GenerateMachineSecret: `clientId` is used only when the user has none yet (a regenerated secret keeps the id). */
  | { kind: 'setMachineSecret'; clientId: string; clientSecretHash: string; actor: string }
  | { kind: 'removeMachineSecret'; actor: string }
  | ({ kind: 'addPat'; actor: string } & TokenFacts)
  | ({ kind: 'setPassword'; actor: string } & PasswordFacts)
  /** PasswordReset: a link for an active human user, mailed or answered (the code itself is stored elsewhere). */
  | { kind: 'requestPasswordReset'; delivery: 'mail' | 'returned'; actor: string }
  /** A forgotten password set through a mailed link: the new password, and every session of the user ends with it. */
  | { kind: 'resetPassword'; passwordHash: string; actor: string }
  /** A login's outcome at the login UI: recorded for active human users (USER_NOT_ACTIVE otherwise). */
  | { kind: 'recordLogin'; clientId: string; amr: string[]; actor: string }
  /**
   * `maxPasswordAttempts`: the org's lockout policy (0 or absent: no lock). The
   * failure that reaches it also locks the user (the state LockUser sets).
   */
  | { kind: 'recordPasswordFailure'; clientId: string; actor: string; maxPasswordAttempts?: number }
  /** The OpenID Provider's audit trail for the user (throttle engaged, grants, revocations): recorded for users that exist. */
  | { kind: 'recordOidc'; event: OidcAuditEvent; actor: string }
  | { kind: 'removePat'; tokenId: string; actor: string }
  | { kind: 'updateHuman'; username: string; givenName: string; familyName: string; displayName: string; email: string; actor: string }
  | { kind: LifecycleStep; actor: string }
  | { kind: 'remove'; actor: string }
  /** RemoveMySessions: the user ends every session and grant of its own. */
  | { kind: 'endSessions'; actor: string; keep?: string }
  /** One login session (known to be the user's: the command checked it). */
  | { kind: 'endSession'; sessionId: string; actor: string }
  /** (Bulk)SetUserMetadata: all entries or none. */
  | { kind: 'setMetadata'; entries: readonly MetadataEntry[]; actor: string }
  /** (Bulk)RemoveUserMetadata: all keys or none; each must be held. */
  | { kind: 'removeMetadata'; keys: readonly string[]; actor: string };

/**
 * Whether the user may hold a personal access token: only machine users (a
 * human's token would be a login in its name, usable without the human).
 */
export function assertTokenHolder(state: UserState, userId: string): void {
  if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
  if (state.kind !== 'machine') throw new KeyholdError('PAT_ONLY_FOR_MACHINE_USERS', { userId });
}

/**
 * Whether the user may hold a password: only human users (a machine user
 * authenticates with tokens and keys; a password would be a second,
 * phishable way in).
 */
export function assertPasswordHolder(state: UserState, userId: string): void {
  if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
  if (state.kind !== 'human') throw new KeyholdError('PASSWORD_ONLY_FOR_HUMAN_USERS', { userId });
}

export function userDecider(userId: string): Decider<UserState, UserCommand, UserEventType> {
  return {
    // A user's history grows with every login; its fold holds no secret (token ids, not tokens), so it may be kept.
    foldKey: 'user',
    initialState: () => ({ exists: false, orgId: '', username: '', hasPassword: false, pats: [], state: 'active', failedPasswordAttempts: 0, metadataKeys: [] }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'user.human.added':
          return { ...state, exists: true, kind: 'human', orgId: event.resourceOwner, username: event.payload.username, hasPassword: false };
        case 'user.machine.added':
          return { ...state, exists: true, kind: 'machine', orgId: event.resourceOwner, username: event.payload.username, hasPassword: false };
        case 'user.password.changed':
          return { ...state, hasPassword: true };
        case 'user.human.changed':
          return { ...state, username: event.payload.username };
        case 'user.pat.added':
          return { ...state, pats: [...state.pats, event.payload.tokenId] };
        case 'user.pat.removed':
          return { ...state, pats: state.pats.filter((id) => id !== event.payload.tokenId) };
        case 'user.deactivated':
          return { ...state, state: 'inactive' };
        case 'user.reactivated':
          return { ...state, state: 'active' };
        case 'user.unlocked':
          // A fresh start: an unlocked user is not locked again by its next wrong password.
          return { ...state, state: 'active', failedPasswordAttempts: foldStreak(state.failedPasswordAttempts, event.type) };
        case 'user.password.check.failed':
        case 'user.login.succeeded':
          return { ...state, failedPasswordAttempts: foldStreak(state.failedPasswordAttempts, event.type) };
        case 'user.locked':
          return { ...state, state: 'locked' };
        case 'user.self.registered':
          return { ...state, registrationUnverified: event.payload.verificationRequired };
        // Verified for the address the user holds (the email decider appends it for no other): the registration's wait ends.
        case 'user.email.verified':
          return { ...state, registrationUnverified: false };
        case 'user.machine.secret.set':
          return { ...state, machineClientId: event.payload.clientId };
        case 'user.machine.secret.removed':
          return { ...state, machineClientId: undefined };
        case 'user.removed':
          return { ...state, exists: false, removed: true, pats: [], machineClientId: undefined, metadataKeys: [] };
        case 'user.metadata.set':
          return state.metadataKeys.includes(event.payload.key) ? state : { ...state, metadataKeys: [...state.metadataKeys, event.payload.key] };
        case 'user.metadata.removed':
          return { ...state, metadataKeys: state.metadataKeys.filter((k) => k !== event.payload.key) };
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent<UserEventType>[] => {
      const own = (orgId: string) => ({ aggregateType: 'user' as const, aggregateId: userId, resourceOwner: orgId, creator: command.actor });
      switch (command.kind) {
        case 'addHuman': {
          if (state.exists || state.removed) throw new KeyholdError('USER_ID_TAKEN', { userId });
          const { username, givenName, familyName, email } = command;
          const displayName = command.displayName || `${givenName} ${familyName}`;
          const { password } = command;
          return [
            { ...own(command.orgId), type: 'user.human.added', payload: { username, givenName, familyName, displayName, email } },
            ...(password
              ? [{ ...own(command.orgId), type: 'user.password.changed' as const, payload: { passwordHash: password.passwordHash, changeRequired: password.changeRequired } }]
              : []),
            ...(command.registered ? [{ ...own(command.orgId), type: 'user.self.registered' as const, payload: { verificationRequired: command.registered.verificationRequired } }] : []),
          ];
        }
        case 'addMachine': {
          if (state.exists || state.removed) throw new KeyholdError('USER_ID_TAKEN', { userId });
          const { username, name, description, token, accessTokenType } = command;
          return [
            { ...own(command.orgId), type: 'user.machine.added', payload: { username, name, description, ...(accessTokenType ? { accessTokenType } : {}) } },
            ...(token ? [{ ...own(command.orgId), type: 'user.pat.added' as const, payload: { ...token } }] : []),
          ];
        }
        case 'addPat': {
          assertTokenHolder(state, userId);
          const { tokenId, tokenHash, expiresAt } = command;
          return [{ ...own(state.orgId), type: 'user.pat.added', payload: { tokenId, tokenHash, expiresAt } }];
        }
        case 'setPassword': {
          assertPasswordHolder(state, userId);
          // A locked or deactivated user sets no password of its own (a password-change form held open across the lock).
          if (command.actor === userId && state.state !== 'active') throw new KeyholdError('USER_NOT_ACTIVE', { userId });
          const { passwordHash, changeRequired } = command;
          return [{ ...own(state.orgId), type: 'user.password.changed', payload: { passwordHash, changeRequired } }];
        }
        case 'resetPassword': {
          assertPasswordHolder(state, userId);
          // A locked or deactivated account is not reopened by a mail: an administrator unlocks it.
          if (state.state !== 'active') throw new KeyholdError('USER_NOT_ACTIVE', { userId });
          return [
            { ...own(state.orgId), type: 'user.password.changed', payload: { passwordHash: command.passwordHash, changeRequired: false } },
            // Whoever knew the old password and signed in with it is signed out (the link's holder is not signed in either).
            { ...own(state.orgId), type: 'user.sessions.ended', payload: {} },
          ];
        }
        case 'requestPasswordReset': {
          assertPasswordHolder(state, userId);
          // The link could not be used (resetPassword refuses such a user): none is handed out.
          if (state.state !== 'active') throw new KeyholdError('USER_NOT_ACTIVE', { userId });
          return [{ ...own(state.orgId), type: 'user.password.reset.requested', payload: { delivery: command.delivery } }];
        }
        case 'recordLogin': {
          assertPasswordHolder(state, userId);
          // Decided once, here: a user locked or deactivated while the login ran (a wrong password
          // racing the right one reached the lockout policy) gets no login, hence no tokens.
          if (state.state !== 'active') throw new KeyholdError('USER_NOT_ACTIVE', { userId });
          // A self-registered address not verified yet (the org's rule): no login, whatever credential was right.
          if (state.registrationUnverified) throw new KeyholdError('REGISTRATION_UNVERIFIED', { userId });
          return [{ ...own(state.orgId), type: 'user.login.succeeded', payload: { clientId: command.clientId, amr: [...command.amr] } }];
        }
        case 'recordPasswordFailure': {
          assertPasswordHolder(state, userId);
          const failed: NewEvent<UserEventType> = { ...own(state.orgId), type: 'user.password.check.failed', payload: { clientId: command.clientId } };
          const max = command.maxPasswordAttempts ?? 0;
          // Only an active user is locked (a locked or deactivated one stays as it is; its failures still count).
          if (max > 0 && state.state === 'active' && state.failedPasswordAttempts + 1 >= max) {
            return [failed, { ...own(state.orgId), type: 'user.locked', payload: { maxAttempts: max } }];
          }
          return [failed];
        }
        case 'recordOidc': {
          if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
          return [{ ...own(state.orgId), ...command.event } as NewEvent<UserEventType>];
        }
        case 'removePat': {
          if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
          if (!state.pats.includes(command.tokenId)) throw new KeyholdError('PAT_NOT_FOUND', { userId, tokenId: command.tokenId });
          return [{ ...own(state.orgId), type: 'user.pat.removed', payload: { tokenId: command.tokenId } }];
        }
        case 'updateHuman': {
          if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
          if (state.kind !== 'human') throw new KeyholdError('USER_NOT_HUMAN', { userId });
          const { username, givenName, familyName, email } = command;
          const displayName = command.displayName || `${givenName} ${familyName}`;
          return [{ ...own(state.orgId), type: 'user.human.changed', payload: { username, givenName, familyName, displayName, email } }];
        }
        case 'deactivate':
        case 'reactivate':
        case 'lock':
        case 'unlock': {
          if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
          const step = LIFECYCLE[command.kind];
          if (!step.allowed(state.state)) throw new KeyholdError(step.refusal, { userId });
          return [{ ...own(state.orgId), type: step.event, payload: {} }];
        }
        case 'setMachineSecret': {
          if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
          if (state.kind !== 'machine') throw new KeyholdError('MACHINE_SECRET_ONLY_FOR_MACHINE_USERS', { userId });
          const clientId = state.machineClientId ?? command.clientId;
          return [{ ...own(state.orgId), type: 'user.machine.secret.set', payload: { clientId, clientSecretHash: command.clientSecretHash } }];
        }
        case 'removeMachineSecret':
          if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
          if (!state.machineClientId) throw new KeyholdError('MACHINE_SECRET_NOT_FOUND', { userId });
          return [{ ...own(state.orgId), type: 'user.machine.secret.removed', payload: {} }];
        case 'remove':
          if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
          return [{ ...own(state.orgId), type: 'user.removed', payload: {} }];
        case 'endSessions':
          if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
          return [{ ...own(state.orgId), type: 'user.sessions.ended', payload: command.keep ? { keep: command.keep } : {} }];
        case 'endSession':
          if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
          return [{ ...own(state.orgId), type: 'user.session.ended', payload: { sessionId: command.sessionId } }];
        case 'setMetadata': {
          if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
          const held = new Set(state.metadataKeys);
          for (const entry of command.entries) {
            if (held.has(entry.key)) continue;
            if (held.size >= MAX_METADATA_KEYS) throw invalidRequest([tooManyKeys(entry.field)]);
            held.add(entry.key);
          }
          return command.entries.map((e) => ({ ...own(state.orgId), type: 'user.metadata.set' as const, payload: { key: e.key, value: e.value } }));
        }
        case 'removeMetadata': {
          if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
          if (command.keys.some((k) => !state.metadataKeys.includes(k))) throw new KeyholdError('USER_METADATA_NOT_FOUND', { userId });
          return command.keys.map((key) => ({ ...own(state.orgId), type: 'user.metadata.removed' as const, payload: { key } }));
        }
      }
    },
  };
}
