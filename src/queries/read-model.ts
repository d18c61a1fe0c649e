// THE read side's port: every finder and lister the queries (and, through
// Lookups, the commands) need. src/store implements it (store/read-model.ts);
// whether a finder is plain SQL or drizzle, cached or not, is the store's
// choice and nobody else's.
import type { IdpFacts, Lookups, PasskeyFacts, PasswordFacts, U2fFacts } from '../access/lookups.js';

export type { PasswordFacts } from '../access/lookups.js';
import type { Membership } from '../domain/identity/permissions.js';
import type { EventSearch, Listed, Page, TextFilter } from '../domain/lists.js';
import type { StoredEvent } from '../domain/events/index.js';
import type { OidcConfig } from '../domain/oidc/types.js';

/** What every read-model row of an object carries (design §5 ObjectDetails). */
export interface Versioned {
  orgId: string;
  sequence: number | bigint;
  createdAt: Date;
  changedAt: Date;
}

export interface ProjectView extends Versioned {
  id: string;
  name: string;
  /** DeactivateProject: 'inactive' until ReactivateProject; its apps cannot authenticate meanwhile. */
  state: 'active' | 'inactive';
  /** Login checks. */
  projectRoleCheck: boolean;
  hasProjectCheck: boolean;
}

/** A role of a project (AddProjectRole), for ListProjectRoles; its version (sequence, changedAt) is its project's. */
export interface ProjectRoleView extends Versioned {
  projectId: string;
  roleKey: string;
  displayName: string;
  group: string;
}

/** A project role a user holds through a grant, with the granting org (the roles claim `{roleKey: {orgId: orgName}}`). */
export interface GrantedRole {
  roleKey: string;
  orgId: string;
  orgName: string;
}

export interface AppView extends Versioned {
  id: string;
  projectId: string;
  name: string;
  clientId: string | null;
  clientSecretHash: string | null;
  config: OidcConfig | null;
  state: 'active' | 'inactive';
  /** May obtain tokens for Keyhold's own API (SetAppAPIAccess). */
  apiAccess: boolean;
}

/**
 * An app as its client id finds it (authentication, and every refresh,
 * userinfo and introspection): `state` is the one authentication obeys, and
 * its project's login checks come along, so the login-check decision after
 * the login reads nothing more than this (cached) row.
 */
export interface ClientAppView extends AppView {
  projectRoleCheck: boolean;
  hasProjectCheck: boolean;
}

export interface UserView extends Versioned {
  id: string;
  kind: 'human' | 'machine';
  username: string;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  email: string | null;
  /** The address was verified and has not changed since (absent where not read). */
  emailVerified?: boolean;
  name: string | null;
  description: string | null;
  state: 'active' | 'inactive' | 'locked';
  /**
   * False while the user's org is deactivated (DeactivateOrg): the user is then
   * refused wherever an inactive user is (userIsLive). Read with the user by the
   * finders the login and the tokens use; absent where not read.
   */
  orgActive?: boolean;
}

/** Whether the user may log in and use its tokens: active, and its org active. */
export const userIsLive = (user: Pick<UserView, 'state' | 'orgActive'> | undefined): boolean => user?.state === 'active' && user.orgActive !== false;

export interface U2fView extends U2fFacts {
  name: string | null;
  format: string | null;
  aaguid: string | null;
  transports: string[] | null;
  createdAt: Date;
}

export interface PasskeyView extends PasskeyFacts {
  name: string | null;
  createdAt: Date;
}

export interface LoginPolicyView extends Versioned {
  forceMfa: boolean;
  passwordlessAllowed: boolean;
  allowUsernamePassword: boolean;
  allowRegister: boolean;
  /** Space-separated lower-case domains; empty: any. */
  registerDomains: string;
  registerVerification: boolean;
}

export interface LockoutPolicyView extends Versioned {
  maxPasswordAttempts: number;
}

export interface OrgView extends Omit<Versioned, 'orgId'> {
  id: string;
  name: string;
  /** DeactivateOrg: 'inactive' until ReactivateOrg. */
  state: 'active' | 'inactive';
}

/** ListUsers' search: what the caller may see, and the filters (all must match). */
export interface UserSearch {
  /** Orgs whose users the caller may read; undefined: every org. */
  orgIds: readonly string[] | undefined;
  /** Users the caller sees besides those orgs' (itself). */
  userIds: readonly string[];
  usernames: readonly TextFilter[];
  displayNames: readonly TextFilter[];
  emails: readonly TextFilter[];
  kinds: readonly ('human' | 'machine')[];
  states: readonly string[];
  inOrgs: readonly string[];
}

/** A user grant as ListUserGrants shows it. */
export interface UserGrantView extends Versioned {
  id: string;
  userId: string;
  projectId: string;
  roleKeys: string[];
  /** inactive: DeactivateUserGrant; keeps its roles, gives none. */
  state: 'active' | 'inactive';
  /** The project grant it was given under; null when the project's org gave it. */
  projectGrantId: string | null;
}

/** A project grant as ListProjectGrants, ListGrantedProjects and GetProjectGrantByID show it (orgId: the project's org). */
export interface ProjectGrantView extends Versioned {
  id: string;
  projectId: string;
  projectName: string;
  ownerName: string;
  grantedOrgId: string;
  grantedOrgName: string;
  roleKeys: string[];
  state: 'active' | 'inactive';
}

/** The project grants' search (all must match). */
export interface ProjectGrantSearch {
  projectId?: string;
  grantedOrgId?: string;
  grantId?: string;
  projectNames: readonly TextFilter[];
  roleKeys: readonly TextFilter[];
}

/** ListUserGrants' search: the grants of one org the caller may read, and the filters (all must match). */
export interface UserGrantSearch {
  orgId: string;
  /** The org's projects whose grants the caller may read; undefined: every project of the org. */
  projectIds: readonly string[] | undefined;
  userIds: readonly string[];
  inProjects: readonly string[];
  roleKeys: readonly TextFilter[];
}

export interface PatView {
  id: string;
  userId: string;
  orgId: string;
  /** null: does not expire. */
  expiresAt: Date | null;
}

/** A user's password facts, for the login's check only (queries/passwords.ts); never in an API answer. */

/** A token as ListPersonalAccessTokens shows it: never the token or its hash. */
export interface PatListed {
  id: string;
  userId: string;
  orgId: string;
  expiresAt: Date | null;
  createdAt: Date;
}

/** A member as ListOrgMembers and ListProjectMembers show it. */
export interface MemberListed {
  userId: string;
  /** The org of the scope (for a project: the project's org). */
  orgId: string;
  roles: string[];
  username: string;
  kind: 'human' | 'machine';
  /** The human's display name or the machine's name. */
  displayName: string;
  /** A human's e-mail address and names; '' for a machine user. */
  email: string;
  givenName: string;
  familyName: string;
}

/** A user's metadata entry: its key (NFC) and value (base64). Personal data: never logged. */
export interface UserMetadataView extends Versioned {
  userId: string;
  key: string;
  value: string;
}

/** A machine user's client credentials, for the token endpoint and the API's token check. */
export interface MachineClientView {
  userId: string;
  orgId: string;
  accessTokenType: 'bearer' | 'jwt';
  clientId: string;
  /** The secret's hash (domain/oidc hashClientSecret); never shown. */
  clientSecretHash: string;
  state: 'active' | 'inactive' | 'locked';
}

/** A key of a private_key_jwt app as ListAppKeys shows it: never the key. */
export interface AppKeyListed {
  id: string;
  appId: string;
  orgId: string;
  type: string;
  expiresAt: Date;
  createdAt: Date;
}

/** A provider as the API lists it: its settings (never the secret) and its version. */
export interface IdpView extends IdpFacts {
  createdAt: Date;
  changedAt: Date;
  sequence: number;
}

export interface ReadModel extends Lookups {
  /** The identity providers of one scope (orgId undefined: the instance's), oldest first. */
  identityProviders(orgId: string | undefined): Promise<IdpView[]>;
  /** The providers an app of the org offers at its login: the instance's, then the org's own. */
  identityProvidersOffered(orgId: string): Promise<IdpFacts[]>;
  /** The user's links to external identities, oldest first. */
  idpLinksOf(userId: string): Promise<{ idpId: string; subject: string; userId: string; orgId: string; createdAt: Date }[]>;
  project(projectId: string): Promise<ProjectView | undefined>;
  /** The org's projects, oldest first. */
  projectsOf(orgId: string): Promise<ProjectView[]>;
  app(appId: string): Promise<AppView | undefined>;
  /** The project's apps, oldest first. */
  appsOf(projectId: string): Promise<AppView[]>;
  appByClientId(clientId: string): Promise<ClientAppView | undefined>;
  user(userId: string): Promise<UserView | undefined>;
  /** The users with this username (any spelling with the same key), in `orgId` only when given; at most `limit`, oldest first. */
  usersByLoginName(username: string, orgId: string | undefined, limit: number): Promise<UserView[]>;
  /** The user's security keys, pending and ready, oldest first. */
  u2fTokensOf(userId: string): Promise<U2fView[]>;
  /** The user's security keys (as u2fTokensOf) and whether its authenticator app is ready, in one read. */
  secondFactorsOf(userId: string): Promise<{ keys: U2fView[]; totpReady: boolean }>;
  /** One page of them (ListU2FTokens). */
  u2fTokensPage(userId: string, page: Page): Promise<Listed<U2fView>>;
  /** One page of the user's passkeys, pending and ready (ListPasskeys). */
  passkeysPage(userId: string, page: Page): Promise<Listed<PasskeyView>>;
  /** The token with this hash and its user, in one round trip (authentication's hot path). */
  patByHash(tokenHash: string): Promise<{ pat: PatView; user: UserView } | undefined>;
  /** At most `maxBytes` of configuration; `leftOut` counts the page's entries that did not fit. */
  searchApps(projectId: string, names: readonly TextFilter[], page: Page, maxBytes: number): Promise<Listed<AppView>>;
  /** `projectIds` undefined: every project of the org; else only those. */
  /** One page of the project's roles, by key and display name filters. */
  searchProjectRoles(projectId: string, filters: { keys: readonly TextFilter[]; displayNames: readonly TextFilter[] }, page: Page): Promise<Listed<ProjectRoleView>>;
  searchProjects(orgId: string, projectIds: readonly string[] | undefined, names: readonly TextFilter[], page: Page): Promise<Listed<ProjectView>>;
  searchUsers(search: UserSearch, page: Page): Promise<Listed<UserView>>;
  /** At most `maxBytes` of role keys; `leftOut` counts the page's entries that did not fit. */
  searchUserGrants(search: UserGrantSearch, page: Page, maxBytes: number): Promise<Listed<UserGrantView>>;
  /** `orgIds` undefined: every org. */
  searchOrgs(orgIds: readonly string[] | undefined, names: readonly TextFilter[], ids: readonly string[], page: Page): Promise<Listed<OrgView>>;
  patsOf(userId: string, page: Page): Promise<Listed<PatListed>>;
  /** One page of the members of an org or a project; each of `userIds` must match (ListOrgMembers' user id queries). */
  membersOf(scopeType: 'org' | 'project', scopeId: string, userIds: readonly string[], page: Page): Promise<Listed<MemberListed>>;
  /** One page of the user's metadata, every key filter matching (ListUserMetadata). */
  searchUserMetadata(userId: string, keys: readonly TextFilter[], page: Page): Promise<Listed<UserMetadataView>>;
  userMetadataEntry(userId: string, key: string): Promise<UserMetadataView | undefined>;
  /** All of the user's metadata, by key (the metadata claim). */
  userMetadataOf(userId: string): Promise<UserMetadataView[]>;
  org(orgId: string): Promise<OrgView | undefined>;
  /** The machine user with this client id and a secret; undefined when none. */
  machineByClientId(clientId: string): Promise<MachineClientView | undefined>;
  /** The public JWKs of the app's keys not expired at `now`. */
  liveAppKeys(appId: string, now: Date): Promise<Record<string, unknown>[]>;
  /** One page of the app's keys. */
  appKeysOf(appId: string, page: Page): Promise<Listed<AppKeyListed>>;
  /** The org's own lockout policy; undefined: the default (no lock) applies. */
  lockoutPolicyOf(orgId: string): Promise<LockoutPolicyView | undefined>;
  /** The org's own login policy; undefined: the default applies. */
  loginPolicyOf(orgId: string): Promise<LoginPolicyView | undefined>;
  /** For a lost key: how many of the user's recovery codes are unused (0: none). */
  unusedRecoveryCodesOf(userId: string): Promise<number>;
  /** The audit log: events matching the search, in position order from the cursor, at most `limit` and `maxBytes` of payload. */
  events(search: EventSearch): Promise<StoredEvent[]>;
  /** True once an `instance.added` committed. */
  isBootstrapped(): Promise<boolean>;
  /** The instance's first org (bootstrap's), or undefined before bootstrap. */
  defaultOrgId(): Promise<string | undefined>;
  membershipsOf(userId: string): Promise<Membership[]>;
  /** One page of project grants (ListProjectGrants, ListGrantedProjects, GetProjectGrantByID). */
  searchProjectGrants(search: ProjectGrantSearch, page: Page): Promise<Listed<ProjectGrantView>>;
  /** Whether the project is granted to the org by an active project grant (hasProjectCheck). */
  isProjectGrantedTo(projectId: string, orgId: string): Promise<boolean>;
  /** The project roles the user holds on the project through user grants, by role key. */
  projectRolesOfUser(userId: string, projectId: string): Promise<GrantedRole[]>;
}
