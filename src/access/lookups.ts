// The read port every check and command stands on: what Keyhold knows of users, their
// credentials, memberships and the objects a caller names. src/store implements it
// (store/read-model.ts); the access checks (./access.ts), the commands and the queries read
// through it.
import type { IdpSettings } from '../domain/events/index.js';
import type { Membership } from '../domain/identity/permissions.js';

/** A user as the commands need it. */
export interface UserFacts {
  id: string;
  orgId: string;
  kind: 'human' | 'machine';
  username: string;
  displayName: string | null;
  name: string | null;
  /** Humans (UpdateHumanUser keeps what a request leaves out). */
  givenName: string | null;
  familyName: string | null;
  email: string | null;
  /** The address was verified (by its code, an administrator, or a trusted provider) and has not changed since. */
  emailVerified?: boolean;
  /** Whether the user may log in (a passkey login refuses any other); deactivated or locked users hold no role that counts for the last-owner rule (orgs/org-members.ts goneOwners). */
  state: 'active' | 'inactive' | 'locked';
  /** false: the user's org is deactivated (DeactivateOrg), so the user cannot sign in whatever its own state. */
  orgActive?: boolean;
}

/** A security key (registration) of a user, as listed by the read model. */
export interface U2fFacts {
  id: string;
  userId: string;
  orgId: string;
  state: 'pending' | 'ready';
  rpId: string;
  credentialId: string | null;
  expiresAt: Date;
}

/** A passkey (registration) of a user, as listed by the read model. */
export interface PasskeyFacts {
  id: string;
  userId: string;
  orgId: string;
  state: 'pending' | 'ready';
  rpId: string;
  credentialId: string | null;
  expiresAt: Date;
}

/**
 * What commands (and the authorization they share with queries) look up in the
 * read models: facts for authorization, ownership and uniqueness, never
 * the rules themselves.
 */
/** An identity provider as the commands see it. */
export interface IdpFacts {
  idpId: string;
  /** undefined: the instance's, offered to every org. */
  orgId?: string;
  settings: IdpSettings;
}

export interface Lookups {
  /** Whether the org exists. */
  orgExists(orgId: string): Promise<boolean>;
  /** The org that owns the project, or undefined when there is no such project. */
  ownerOfProject(projectId: string): Promise<string | undefined>;
  /** The org the user belongs to, or undefined when there is no such user. */
  ownerOfUser(userId: string): Promise<string | undefined>;
  /** Every scope (instance, org, project) where the user holds roles. */
  membershipsOf(userId: string): Promise<Membership[]>;
  /** The user, or undefined. */
  userFacts(userId: string): Promise<UserFacts | undefined>;
  /** The user's security keys, pending and ready, oldest first. */
  u2fOf(userId: string): Promise<U2fFacts[]>;
  /** The ready security key with this credential id (base64url) — its id and user — or undefined. */
  u2fByCredentialId(credentialId: string): Promise<{ id: string; userId: string } | undefined>;
  /** The user's passkeys, pending and ready, oldest first. */
  passkeysOf(userId: string): Promise<PasskeyFacts[]>;
  /** The token (security key or passkey) holding this verified credential id (base64url), and its user; or undefined. */
  webauthnCredential(credentialId: string): Promise<{ kind: 'u2f' | 'passkey'; tokenId: string; userId: string } | undefined>;
  /** The user's login sessions that have not ended, most recently used first (store user_sessions). */
  userSessions(userId: string): Promise<UserSessionView[]>;
  /** The user's authenticator app (TOTP): its id and whether it is ready; undefined: none (one primary-key read). */
  totpOf(userId: string): Promise<{ totpId: string; state: 'pending' | 'ready' } | undefined>;
  /** Whether the org's login policy requires a second factor (forceMfa), read now (no cache). */
  secondFactorRequired(orgId: string): Promise<boolean>;
  /** An identity provider (its scope and settings, never its secret), or undefined. */
  identityProvider(idpId: string): Promise<IdpFacts | undefined>;
  /** The user the upstream identity (provider, subject) is linked to, or undefined. */
  idpLink(idpId: string, subject: string): Promise<{ userId: string; orgId: string } | undefined>;
  /** Which of `roleKeys` the project has (its own roles, project.role.added). */
  existingRoleKeys(projectId: string, roleKeys: readonly string[]): Promise<string[]>;
  /** The ids of the project's user grants; with `roleKey`, only those holding that role (RemoveProjectRole, RemoveProject). */
  grantIdsOfProject(projectId: string, roleKey?: string): Promise<string[]>;
  /** The org's state, or undefined when there is no such org (AddProjectGrant: only to an active org). */
  orgStateOf(orgId: string): Promise<'active' | 'inactive' | undefined>;
  /** The project's grant to the org, or undefined (AddUserGrant by the org the project is granted to). */
  projectGrantFor(projectId: string, grantedOrgId: string): Promise<{ id: string; roleKeys: string[]; state: 'active' | 'inactive' } | undefined>;
  /** The ids of the project's apps (RemoveProject). */
  appIdsOfProject(projectId: string): Promise<string[]>;
  /** The ids of the org's users (RemoveOrg). */
  userIdsOfOrg(orgId: string): Promise<string[]>;
  /** The users holding IAM_OWNER (DeactivateOrg, RemoveOrg: the instance keeps one). */
  instanceOwnerIds(): Promise<string[]>;
  /** The ids of the org's projects (RemoveOrg). */
  projectIdsOfOrg(orgId: string): Promise<string[]>;
  /** The org's lockout threshold (its own lockout policy's maxPasswordAttempts; 0 = no lock, the default). */
  maxPasswordAttemptsOf(orgId: string): Promise<number>;
  /** What the password check needs of a user; never more than the login reads (no name, no grant). */
  passwordOf(userId: string): Promise<PasswordFacts | undefined>;
}

/** A login session as its user recognises it (the account page, ListUserSessions). */
export interface UserSessionView {
  /** The session's id (the provider's session uid; never the cookie's value). */
  id: string;
  userId: string;
  /** A short description of the browser ("Firefox on Linux"; domain/user/device.ts). */
  device: string;
  /** The client's address when it last used the session (through the trusted proxies). */
  address: string;
  createdAt: Date;
  /** Last use, to the minute (written at most once a minute). */
  lastUsedAt: Date;
  /** The client ids of the apps the session signed in to. */
  clientIds: string[];
}

export interface PasswordFacts {
  userId: string;
  orgId: string;
  kind: 'human' | 'machine';
  /** argon2id PHC string; null: no password set. */
  passwordHash: string | null;
  changeRequired: boolean;
  /** LockUser / DeactivateUser: only an active user logs in. */
  state: 'active' | 'inactive' | 'locked';
  /** Whether the user holds a ready second factor (a key, wherever it works, or an authenticator app): read with the hash, so a right password of a user with none decides what follows without another read. */
  secondFactorReady?: boolean;
}
