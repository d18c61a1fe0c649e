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
  createdAt: timestamptz('created_at').notNull(),
  changedAt: timestamptz('changed_at').notNull(),
  sequence: integer('sequence').notNull(),
});

export const projects = pgTable(
  'projects',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull(),
    name: text('name').notNull(),
    state: text('state').$type<'active'>().notNull(),
    createdAt: timestamptz('created_at').notNull(),
    changedAt: timestamptz('changed_at').notNull(),
    sequence: integer('sequence').notNull(),
  },
  (t) => [index('projects_org_id_idx').on(t.orgId)],
);

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull(),
    kind: text('kind').$type<'human' | 'machine'>().notNull(),
    username: text('username').notNull(),
    // human users
    givenName: text('given_name'),
    familyName: text('family_name'),
    displayName: text('display_name'),
    email: text('email'),
    // machine users
    name: text('name'),
    description: text('description'),
    createdAt: timestamptz('created_at').notNull(),
    changedAt: timestamptz('changed_at').notNull(),
    sequence: integer('sequence').notNull(),
  },
  (t) => [
    // Usernames are unique per org, case-insensitively; callers map this
    // constraint name to USERNAME_TAKEN.
    uniqueIndex('users_org_username_key').on(t.orgId, sql`lower(${t.username})`),
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
    name: text('name').notNull(),
    // Null between app.added and app.oidc.config.added (both land in one append).
    clientId: text('client_id'),
    clientSecretHash: text('client_secret_hash'),
    config: jsonb('config'),
    createdAt: timestamptz('created_at').notNull(),
    changedAt: timestamptz('changed_at').notNull(),
    sequence: integer('sequence').notNull(),
  },
  (t) => [
    // Names are unique per project, case-insensitively (APP_NAME_TAKEN). Each app
    // is its own aggregate, so concurrent AddOIDCApp calls in one project only
    // meet on this index, never on a shared project row.
    uniqueIndex('apps_project_name_key').on(t.projectId, sql`lower(${t.name})`),
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

export type EventRow = typeof events.$inferSelect;
export type InstanceRow = typeof instances.$inferSelect;
export type OrgRow = typeof orgs.$inferSelect;
export type ProjectRow = typeof projects.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type MembershipRow = typeof memberships.$inferSelect;
export type PatRow = typeof personalAccessTokens.$inferSelect;
export type AppRow = typeof apps.$inferSelect;
export type U2fRow = typeof u2fTokens.$inferSelect;
