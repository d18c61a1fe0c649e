// The one pg-core schema. drizzle-kit generates the migrations from this file,
// and the same migrations run on embedded PGlite and on PostgreSQL.
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The event log. `position` gives a global order; `sequence` counts per
 * aggregate. The unique key is the optimistic-concurrency guard: two writers
 * that loaded the same aggregate version both try to insert the same sequence,
 * and only one commit can win.
 */
export const events = pgTable(
  'events',
  {
    position: bigserial('position', { mode: 'bigint' }).primaryKey(),
    aggregateType: text('aggregate_type').notNull(),
    aggregateId: text('aggregate_id').notNull(),
    sequence: integer('sequence').notNull(),
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    resourceOwner: text('resource_owner').notNull(),
    creator: text('creator').notNull(),
    // now() is the transaction's start time, so every event of one append shares it.
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [
    unique('events_aggregate_sequence_key').on(t.aggregateType, t.aggregateId, t.sequence),
    check('events_sequence_positive', sql`${t.sequence} >= 1`),
  ],
);

// ---------------------------------------------------------------------------
// Read models. Projections update them in the same transaction as the events,
// so a read after a successful write always sees it. `sequence` is the owning
// aggregate's sequence after the last event applied to the row.

/** The instance aggregate ('default'); its row exists once the instance is bootstrapped. */
export const instances = pgTable('instances', {
  id: text('id').primaryKey(),
  defaultOrgId: text('default_org_id').notNull(),
  createdAt: timestamptz('created_at').notNull(),
  changedAt: timestamptz('changed_at').notNull(),
  sequence: integer('sequence').notNull(),
});

export const orgs = pgTable('orgs', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** DeactivateOrg: 'inactive' until ReactivateOrg. */
  state: text('state', { enum: ['active', 'inactive'] }).notNull().default('active'),
  createdAt: timestamptz('created_at').notNull(),
  changedAt: timestamptz('changed_at').notNull(),
  sequence: integer('sequence').notNull(),
});

/** An org's own login policy (AddCustomLoginPolicy); an org without a row uses the default (forceMfa off). */
export const loginPolicies = pgTable('login_policies', {
  orgId: text('org_id').primaryKey(),
  forceMfa: boolean('force_mfa').notNull(),
  /** ZITADEL's passwordlessType: PASSWORDLESS_TYPE_ALLOWED (true) or _NOT_ALLOWED. */
  passwordlessAllowed: boolean('passwordless_allowed').notNull().default(true),
  allowUsernamePassword: boolean('allow_username_password').notNull().default(true),
  /** Self-registration (ZITADEL's allowRegister), its address domains (space-separated; empty: any), and verification before the first login. */
  allowRegister: boolean('allow_register').notNull().default(false),
  registerDomains: text('register_domains').notNull().default(''),
  registerVerification: boolean('register_verification').notNull().default(true),
  createdAt: timestamptz('created_at').notNull(),
  changedAt: timestamptz('changed_at').notNull(),
  sequence: integer('sequence').notNull(),
});

/** An org's own lockout policy (AddCustomLockoutPolicy); an org without a row uses the default (no lock). */
export const lockoutPolicies = pgTable('lockout_policies', {
  orgId: text('org_id').primaryKey(),
  maxPasswordAttempts: integer('max_password_attempts').notNull(),
  createdAt: timestamptz('created_at').notNull(),
  changedAt: timestamptz('changed_at').notNull(),
  sequence: integer('sequence').notNull(),
});

/**
 * A user's recovery codes (for a lost key): how many of the current set
 * are unused, for ListU2FTokens. The hashes stay in the user's events (the
 * login decides on them); no row: no codes.
 */
export const userRecoveryCodes = pgTable('user_recovery_codes', {
  userId: text('user_id').primaryKey(),
  orgId: text('org_id').notNull(),
  unused: integer('unused').notNull(),
  createdAt: timestamptz('created_at').notNull(),
  changedAt: timestamptz('changed_at').notNull(),
  sequence: integer('sequence').notNull(),
});

/** A user's authenticator app (user.totp.*): which one, pending or ready; no row: none. */
export const userTotp = pgTable('user_totp', {
  userId: text('user_id').primaryKey(),
  totpId: text('totp_id').notNull(),
  orgId: text('org_id').notNull(),
  state: text('state').$type<'pending' | 'ready'>().notNull(),
  createdAt: timestamptz('created_at').notNull(),
  changedAt: timestamptz('changed_at').notNull(),
  sequence: integer('sequence').notNull(),
});

/**
 * The TOTP secrets, sealed (AES-256-GCM under a key derived from the master
 * key): in no event, so no read model: replay neither makes nor drops them.
 * `lastStep`: the newest time step accepted, raised by a conditional update
 * so each code is accepted once.
 */
export const totpSecrets = pgTable(
  'totp_secrets',
  {
    totpId: text('totp_id').primaryKey(),
    userId: text('user_id').notNull(),
    sealed: text('sealed').notNull(),
    lastStep: bigint('last_step', { mode: 'number' }).notNull().default(0),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [index('totp_secrets_user_id_idx').on(t.userId)],
);

export const projects = pgTable(
  'projects',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull(),
    name: text('name').notNull(),
    state: text('state').$type<'active' | 'inactive'>().notNull(),
    /** Login checks: only users with a grant on the project / whose org has it may log in to its apps. */
    projectRoleCheck: boolean('project_role_check').notNull().default(false),
    hasProjectCheck: boolean('has_project_check').notNull().default(false),
    createdAt: timestamptz('created_at').notNull(),
    changedAt: timestamptz('changed_at').notNull(),
    sequence: integer('sequence').notNull(),
  },
  (t) => [index('projects_org_id_idx').on(t.orgId)],
);

/** A project's own roles (project.role.added): what user grants give. */
export const projectRoles = pgTable(
  'project_roles',
  {
    projectId: text('project_id').notNull(),
    roleKey: text('role_key').notNull(),
    orgId: text('org_id').notNull(),
    displayName: text('display_name').notNull(),
    group: text('role_group').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [primaryKey({ name: 'project_roles_pkey', columns: [t.projectId, t.roleKey] })],
);

/** Roles of a project given to a user (usergrant.*); one grant per user and project (USER_GRANT_EXISTS); a removed grant's row is deleted. */
export const userGrants = pgTable(
  'user_grants',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    projectId: text('project_id').notNull(),
    /** The grant's owner: the project's org, or the org the project is granted to (with projectGrantId). */
    orgId: text('org_id').notNull(),
    roleKeys: text('role_keys').array().notNull(),
    /** DeactivateUserGrant: an inactive grant keeps its roles but gives none. */
    state: text('state').$type<'active' | 'inactive'>().notNull().default('active'),
    /** The project grant it was given under (AddProjectGrant); null when the project's org gave it. */
    projectGrantId: text('project_grant_id'),
    createdAt: timestamptz('created_at').notNull(),
    changedAt: timestamptz('changed_at').notNull(),
    sequence: integer('sequence').notNull(),
  },
  (t) => [
    uniqueIndex('user_grants_user_project_key').on(t.userId, t.projectId),
    index('user_grants_org_id_idx').on(t.orgId),
    index('user_grants_project_grant_id_idx').on(t.projectGrantId),
  ],
);

/** A project granted to another org (project.grant.*): one per project and granted org; a removed grant's row is deleted. */
export const projectGrants = pgTable(
  'project_grants',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    /** The project's org (the grant's owner). */
    orgId: text('org_id').notNull(),
    grantedOrgId: text('granted_org_id').notNull(),
    /** Roles of the project the granted org may give its users. */
    roleKeys: text('role_keys').array().notNull(),
    state: text('state').$type<'active' | 'inactive'>().notNull().default('active'),
    createdAt: timestamptz('created_at').notNull(),
    changedAt: timestamptz('changed_at').notNull(),
    sequence: integer('sequence').notNull(),
  },
  (t) => [uniqueIndex('project_grants_project_org_key').on(t.projectId, t.grantedOrgId), index('project_grants_granted_org_id_idx').on(t.grantedOrgId)],
);

export const userMetadata = pgTable(
  'user_metadata',
  {
    userId: text('user_id').notNull(),
    /** NFC, as in its event. */
    key: text('key').notNull(),
    orgId: text('org_id').notNull(),
    /** Base64, as in its event: personal data, never logged. */
    value: text('value').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    changedAt: timestamptz('changed_at').notNull(),
    sequence: integer('sequence').notNull(),
  },
  (t) => [primaryKey({ name: 'user_metadata_pkey', columns: [t.userId, t.key] })],
);

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull(),
    kind: text('kind').$type<'human' | 'machine'>().notNull(),
    /** As sent: trimmed, width-mapped, NFC (src/domain/identity/identifiers.ts). */
    username: text('username').notNull(),
    /**
     * The username's comparison key (usernameKey: RFC 8265 UsernameCaseMapped),
     * computed by Keyhold, never by the database's locale. Added by migration
     * 0001 as nullable; rekey-identifiers.ts keys the rows before it and then
     * sets NOT NULL, at start, before Keyhold serves.
     */
    usernameKey: text('username_key').notNull(),
    /**
     * The username's key as a login name, unique across the instance (the
     * login name is the username). New rows: usernameKey. Rows stored
     * before (migration 0003 adds it nullable; rekey-identifiers.ts keys them at
     * start, then sets NOT NULL): the oldest holder of a key gets it, each later
     * one the key + U+001F + its id — it keeps its row and logs in with the org
     * scope, but no new user can take the name.
     */
    loginNameKey: text('login_name_key').notNull(),
    // human users
    givenName: text('given_name'),
    familyName: text('family_name'),
    displayName: text('display_name'),
    email: text('email'),
    /** The address is the user's (user.email.verified); another address makes it false again. */
    emailVerified: boolean('email_verified').notNull().default(false),
    /**
     * argon2id PHC string of the password (user.password.changed), null when
     * none is set. Read only by the login's check (queries/passwords.ts), never
     * shown by an API answer.
     */
    passwordHash: text('password_hash'),
    /** The password must be changed at the next login. */
    passwordChangeRequired: boolean('password_change_required').notNull().default(false),
    // machine users
    name: text('name'),
    description: text('description'),
    /** Deactivate/Reactivate, Lock/Unlock: only an active user's tokens authenticate. */
    state: text('state').$type<'active' | 'inactive' | 'locked'>().notNull().default('active'),
    createdAt: timestamptz('created_at').notNull(),
    changedAt: timestamptz('changed_at').notNull(),
    sequence: integer('sequence').notNull(),
  },
  (t) => [
    // Usernames are unique per org by their key; callers map this constraint
    // name to USERNAME_TAKEN, and lookups by username use the same key.
    uniqueIndex('users_org_username_key').on(t.orgId, t.usernameKey),
    // … and across the instance (USERNAME_TAKEN as well).
    uniqueIndex('users_login_name_key').on(t.loginNameKey),
    check('users_kind_check', sql`${t.kind} in ('human', 'machine')`),
  ],
);

export const memberships = pgTable(
  'memberships',
  {
    scopeType: text('scope_type').$type<'instance' | 'org' | 'project'>().notNull(),
    /** 'default' for the instance, else the org or project id. */
    scopeId: text('scope_id').notNull(),
    userId: text('user_id').notNull(),
    /** The org that owns the scope (the event's resource owner). */
    orgId: text('org_id').notNull(),
    roles: text('roles').array().notNull(),
  },
  (t) => [
    primaryKey({ name: 'memberships_pkey', columns: [t.scopeType, t.scopeId, t.userId] }),
    index('memberships_user_id_idx').on(t.userId),
    check('memberships_scope_type_check', sql`${t.scopeType} in ('instance', 'org', 'project')`),
  ],
);

export const personalAccessTokens = pgTable(
  'personal_access_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    orgId: text('org_id').notNull(),
    // Only the SHA-256 of the token is stored; authentication looks it up here.
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamptz('expires_at'),
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [
    unique('personal_access_tokens_token_hash_key').on(t.tokenHash),
    index('personal_access_tokens_user_id_idx').on(t.userId),
  ],
);

export const apps = pgTable(
  'apps',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    orgId: text('org_id').notNull(),
    /** As sent: trimmed, NFC. */
    name: text('name').notNull(),
    /** The name's comparison key (displayNameKey), like users.username_key. */
    nameKey: text('name_key').notNull(),
    // Null between app.added and app.oidc.config.added (both land in one append).
    clientId: text('client_id'),
    clientSecretHash: text('client_secret_hash'),
    config: jsonb('config'),
    /** DeactivateApp/ReactivateApp; an inactive app cannot authenticate. */
    state: text('state').$type<'active' | 'inactive'>().notNull().default('active'),
    /** SetAppAPIAccess: may obtain tokens for Keyhold's own API (an instance administrator's decision). */
    apiAccess: boolean('api_access').notNull().default(false),
    createdAt: timestamptz('created_at').notNull(),
    changedAt: timestamptz('changed_at').notNull(),
    sequence: integer('sequence').notNull(),
  },
  (t) => [
    // Names are unique per project by their key (APP_NAME_TAKEN). Each app is
    // its own aggregate, so concurrent AddOIDCApp calls in one project only
    // meet on this index, never on a shared project row.
    uniqueIndex('apps_project_name_key').on(t.projectId, t.nameKey),
    unique('apps_client_id_key').on(t.clientId),
  ],
);

export const u2fTokens = pgTable(
  'u2f_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    orgId: text('org_id').notNull(),
    state: text('state').$type<'pending' | 'ready'>().notNull(),
    rpId: text('rp_id').notNull(),
    challenge: text('challenge').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    name: text('name'),
    // Set on verification; unique so one authenticator credential belongs to one
    // token only (CREDENTIAL_ALREADY_REGISTERED).
    credentialId: text('credential_id'),
    /** base64url COSE public key */
    publicKey: text('public_key'),
    algorithm: integer('algorithm'),
    format: text('format'),
    aaguid: text('aaguid'),
    signCount: bigint('sign_count', { mode: 'number' }),
    transports: text('transports').array(),
    backupEligible: boolean('backup_eligible'),
    backedUp: boolean('backed_up'),
    userVerified: boolean('user_verified'),
    createdAt: timestamptz('created_at').notNull(),
    changedAt: timestamptz('changed_at').notNull(),
    sequence: integer('sequence').notNull(),
  },
  (t) => [
    unique('u2f_tokens_credential_id_key').on(t.credentialId),
    index('u2f_tokens_user_id_idx').on(t.userId),
    check('u2f_tokens_state_check', sql`${t.state} in ('pending', 'ready')`),
  ],
);

/** Passkeys: as u2f_tokens, for discoverable credentials with user verification. */
export const passkeys = pgTable(
  'passkeys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    orgId: text('org_id').notNull(),
    state: text('state').$type<'pending' | 'ready'>().notNull(),
    rpId: text('rp_id').notNull(),
    challenge: text('challenge').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    name: text('name'),
    credentialId: text('credential_id'),
    /** base64url COSE public key */
    publicKey: text('public_key'),
    algorithm: integer('algorithm'),
    format: text('format'),
    aaguid: text('aaguid'),
    signCount: bigint('sign_count', { mode: 'number' }),
    transports: text('transports').array(),
    backupEligible: boolean('backup_eligible'),
    backedUp: boolean('backed_up'),
    createdAt: timestamptz('created_at').notNull(),
    changedAt: timestamptz('changed_at').notNull(),
    sequence: integer('sequence').notNull(),
  },
  (t) => [index('passkeys_user_id_idx').on(t.userId), check('passkeys_state_check', sql`${t.state} in ('pending', 'ready')`)],
);

/**
 * Every verified credential id, of a security key or a passkey: one
 * credential, one user and one token (CREDENTIAL_ALREADY_REGISTERED); the
 * discoverable login's lookup of an assertion's credential.
 */
export const webauthnCredentials = pgTable(
  'webauthn_credentials',
  {
    credentialId: text('credential_id').primaryKey(),
    userId: text('user_id').notNull(),
    kind: text('kind').$type<'u2f' | 'passkey'>().notNull(),
    tokenId: text('token_id').notNull(),
  },
  (t) => [index('webauthn_credentials_token_id_idx').on(t.tokenId), index('webauthn_credentials_user_id_idx').on(t.userId), check('webauthn_credentials_kind_check', sql`${t.kind} in ('u2f', 'passkey')`)],
);

/**
 * Machine users' OAuth side: the access token type chosen at
 * AddMachineUser, and the client credentials of GenerateMachineSecret — the
 * generated client id and only the secret's hash. One row per machine user.
 */
export const machineUsers = pgTable(
  'machine_users',
  {
    userId: text('user_id').primaryKey(),
    orgId: text('org_id').notNull(),
    accessTokenType: text('access_token_type').$type<'bearer' | 'jwt'>().notNull().default('bearer'),
    clientId: text('client_id'),
    clientSecretHash: text('client_secret_hash'),
    changedAt: timestamptz('changed_at').notNull(),
  },
  (t) => [
    unique('machine_users_client_id_key').on(t.clientId),
    check('machine_users_access_token_type_check', sql`${t.accessTokenType} in ('bearer', 'jwt')`),
  ],
);

/**
 * Keys of private_key_jwt apps (AddAppKey): only the public key (a
 * JWK); the private key was in the key file shown once.
 */
export const appKeys = pgTable(
  'app_keys',
  {
    id: text('id').primaryKey(),
    appId: text('app_id').notNull(),
    projectId: text('project_id').notNull(),
    orgId: text('org_id').notNull(),
    type: text('type').notNull(),
    publicKey: jsonb('public_key').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [index('app_keys_app_id_idx').on(t.appId)],
);

// ---------------------------------------------------------------------------
// The OpenID Provider's state (src/store/oidc-adapter.ts): sessions,
// interactions, grants, codes and tokens of oidc-provider, one row per artifact,
// so every Keyhold process on one PostgreSQL serves the same login. Not events:
// short-lived protocol state, deleted after `expires_at` (housekeeping). Tokens
// are keyed by the SHA-256 of their value (`key`), never the value itself.
export const oidcPayloads = pgTable(
  'oidc_payloads',
  {
    model: text('model').notNull(),
    key: text('key').notNull(),
    payload: jsonb('payload').notNull(),
    grantId: text('grant_id'),
    uid: text('uid'),
    userCode: text('user_code'),
    expiresAt: timestamptz('expires_at'),
    consumedAt: timestamptz('consumed_at'),
    /** The user the artifact belongs to (its payload's accountId): what ends with the user's sessions (projections/oidc-sessions.ts). */
    accountId: text('account_id'),
  },
  (t) => [
    primaryKey({ name: 'oidc_payloads_pkey', columns: [t.model, t.key] }),
    index('oidc_payloads_grant_id_idx').on(t.grantId),
    index('oidc_payloads_account_id_idx').on(t.accountId),
    index('oidc_payloads_uid_idx').on(t.uid),
    index('oidc_payloads_expires_at_idx').on(t.expiresAt),
  ],
);

// A user's login sessions as the user sees them (migration 0024): one row per
// oidc-provider session, by its uid; ended rows wait for their logout tokens.
export const userSessions = pgTable(
  'user_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    device: text('device').notNull().default(''),
    address: text('address').notNull().default(''),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    lastUsedAt: timestamptz('last_used_at').notNull().defaultNow(),
    apps: jsonb('apps').notNull().default({}),
    expiresAt: timestamptz('expires_at'),
    endedAt: timestamptz('ended_at'),
    notifiedAt: timestamptz('notified_at'),
  },
  (t) => [index('user_sessions_user_id_idx').on(t.userId)],
);

/**
 * Keys of the OpenID Provider (src/server/oidc/keys.ts): signing keys (RS256,
 * ES256) and the cookie-signing secret, private parts encrypted with the master
 * key (AES-256-GCM), shared by every process.
 */
export const oidcKeys = pgTable(
  'oidc_keys',
  {
    kid: text('kid').primaryKey(),
    use: text('use').$type<'sig' | 'cookie'>().notNull(),
    alg: text('alg').notNull(),
    /** The public JWK (null for the cookie secret). */
    publicJwk: jsonb('public_jwk'),
    /** base64url(iv | tag | AES-256-GCM(private JWK or secret)) under the master key. */
    sealed: text('sealed').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    /** First use for signing; before it the key is only published. */
    activeFrom: timestamptz('active_from').notNull(),
    /** After it the key is neither used nor published. */
    retireAt: timestamptz('retire_at'),
  },
  (t) => [check('oidc_keys_use_check', sql`${t.use} in ('sig', 'cookie')`)],
);

/**
 * Guessing budgets (src/store/attempt-budgets.ts, rules in
 * src/domain/identity/attempt-budget.ts): one row per bucket — a password's
 * account and client, a client address, a lockout policy's user, … — keyed by
 * an HMAC of what it counts (never a name, address or user id in clear).
 * Shared by every process; not events: deleted after `expires_at`.
 */
export const attemptBudgets = pgTable(
  'attempt_budgets',
  {
    key: text('key').primaryKey(),
    failures: integer('failures').notNull().default(0),
    lastFailureAt: timestamptz('last_failure_at'),
    inFlight: integer('in_flight').notNull().default(0),
    inFlightUntil: timestamptz('in_flight_until'),
    epoch: integer('epoch').notNull().default(0),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (t) => [index('attempt_budgets_expires_at_idx').on(t.expiresAt)],
);

/**
 * Answers of requests sent with an Idempotency-Key (src/store/idempotent-answers.ts,
 * src/server/rpc/interceptors/idempotency.ts): one row per caller and key, keyed by an
 * HMAC of both; the request's digest; the answer sealed (AES-256-GCM under a key
 * derived from the master key) once the first execution finished, null while it
 * runs. Not events: deleted after `expires_at`.
 */
export const idempotentAnswers = pgTable(
  'idempotent_answers',
  {
    key: text('key').primaryKey(),
    requestDigest: text('request_digest').notNull(),
    owner: text('owner').notNull(),
    sealedAnswer: text('sealed_answer'),
    runningUntil: timestamptz('running_until').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (t) => [index('idempotent_answers_expires_at_idx').on(t.expiresAt)],
);

/**
 * One-time codes sent by mail (src/store/email-codes.ts): an HMAC of the code,
 * what it is for (`reset`, `verify`), whose and for which address. Used once by a
 * conditional update of `used_at`; not events: deleted after `expires_at`.
 */
export const emailCodes = pgTable(
  'email_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    purpose: text('purpose').notNull(),
    userId: text('user_id').notNull(),
    email: text('email').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    /** Who had it made for the user (an administrator's PasswordReset); null: asked for at the login. */
    createdBy: text('created_by'),
  },
  (t) => [index('email_codes_user_idx').on(t.userId, t.purpose), index('email_codes_expires_at_idx').on(t.expiresAt)],
);

export type EventRow = typeof events.$inferSelect;
export type InstanceRow = typeof instances.$inferSelect;
export type OrgRow = typeof orgs.$inferSelect;
export type ProjectRow = typeof projects.$inferSelect;
export type ProjectGrantRow = typeof projectGrants.$inferSelect;
/** A user as finders return it: never its password hash (only queries/users.ts findPasswordOf reads that). */
export type UserRow = Omit<typeof users.$inferSelect, 'passwordHash' | 'passwordChangeRequired'>;
export type MembershipRow = typeof memberships.$inferSelect;
export type PatRow = typeof personalAccessTokens.$inferSelect;
export type UserMetadataRow = typeof userMetadata.$inferSelect;
export type AppRow = typeof apps.$inferSelect;
export type U2fRow = typeof u2fTokens.$inferSelect;
export type PasskeyRow = typeof passkeys.$inferSelect;
export type ProjectRoleRow = typeof projectRoles.$inferSelect;
export type UserGrantRow = typeof userGrants.$inferSelect;
export type OidcPayloadRow = typeof oidcPayloads.$inferSelect;
export type OidcKeyRow = typeof oidcKeys.$inferSelect;
export type MachineUserRow = typeof machineUsers.$inferSelect;
export type AppKeyRow = typeof appKeys.$inferSelect;
