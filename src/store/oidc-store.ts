// The OpenID Provider's state on the database (schema.ts oidc_payloads,
// oidc_keys): the port the provider's adapter and key ring use
// (src/server/oidc/adapter.ts, keys.ts). Nothing here lives only in memory, so
// two Keyhold processes on one PostgreSQL serve one login (authorize on one,
// token on the other).
//
// Bearer artifacts (codes, tokens) are keyed by the SHA-256 of their value and
// stored without it: a read of the table yields no usable token.
import { createHash } from 'node:crypto';
import { and, asc, eq, isNull, sql as dsql } from 'drizzle-orm';
import { nextDevicePoll, type DevicePollState } from '../domain/oidc/device-poll.js';
import type { Database } from './database.js';
import { GROUP_COMMIT_BY_DRIVER, groupCommitter } from './group-commit.js';
import { sql, type SqlStatement } from './sql.js';
import { oidcKeys, oidcPayloads, type OidcKeyRow } from './schema.js';

/** The models whose id is a bearer secret: stored under its hash. */
const BEARER_MODELS = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'ClientCredentials',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PushedAuthorizationRequest',
  'InitialAccessToken',
  'RegistrationAccessToken',
]);

export type OidcPayload = Record<string, unknown> & {
  jti?: string;
  grantId?: string;
  uid?: string;
  userCode?: string;
  consumed?: number;
};

export interface OidcStateStore {
  /**
   * Stores the artifact, with the user it belongs to (`accountId`, default the
   * payload's): the key by which the user's sessions and tokens end at once.
   */
  upsert(model: string, id: string, payload: OidcPayload, expiresInSeconds: number | undefined, accountId?: string): Promise<void>;
  /**
   * Stores the artifact only when no live one has this id (an expired one is
   * replaced): true when stored. One statement, so of two processes storing
   * the same id at once exactly one gets true (replay detection).
   */
  insertNew(model: string, id: string, payload: OidcPayload, expiresInSeconds: number): Promise<boolean>;
  find(model: string, id: string): Promise<OidcPayload | undefined>;
  /**
   * A bearer token by its id under any of `models` (its kind not known
   * beforehand, as at introspection), each row found with the grant it names,
   * in one statement: what `find` would answer for each model and for that Grant.
   */
  findToken(id: string, models: readonly string[]): Promise<FoundToken[]>;
  findByUid(model: string, uid: string): Promise<OidcPayload | undefined>;
  findByUserCode(model: string, userCode: string): Promise<OidcPayload | undefined>;
  /**
   * Marks the artifact consumed unless it already is, in one conditional
   * statement: of any number of requests (in any process) consuming one
   * artifact at once, exactly one gets true. False also when it is gone.
   */
  consume(model: string, id: string): Promise<boolean>;
  /**
   * A refresh token's rotation step (src/server/oidc/refresh-rotation.ts), one
   * statement: takes the token, marked with this request's `nonce`, when it is
   * unconsumed — or consumed by a rotation that saved no successor, or (within
   * `graceSeconds` of that rotation) one whose successor was never used; and,
   * when the token is itself a successor, only while its predecessor's latest
   * rotation is the one that made it (marking that successor used). False:
   * a replay (or the token is gone).
   */
  rotateRefreshToken(id: string, nonce: string, graceSeconds: number): Promise<boolean>;
  /**
   * Replaces a stored artifact only while its payload still holds what
   * `expected` says (compare-and-set, one statement): true when replaced;
   * false when another request changed it first, or it is gone or expired.
   */
  replaceIf(model: string, id: string, payload: OidcPayload, expiresInSeconds: number | undefined, expected: readonly StoredExpectation[], accountId?: string): Promise<boolean>;
  /** Deletes the artifact; resolves with what this call deleted (undefined: it was gone already). */
  destroy(model: string, id: string): Promise<OidcPayload | undefined>;
  /**
   * Deletes the artifact while it is live and answers it as find would, in one
   * statement: of any number of requests taking one artifact at once, exactly
   * one gets it; the others, and any after, get undefined. With `account`, only
   * while the sign-in it holds finished as no other account (result.login).
   */
  take(model: string, id: string, account?: string): Promise<OidcPayload | undefined>;
  revokeByGrantId(grantId: string): Promise<void>;
  /**
   * Deletes a grant and every artifact issued under it, in one statement;
   * resolves with the grant this call deleted (undefined: it was gone already).
   */
  revokeGrant(grantId: string): Promise<OidcPayload | undefined>;
  /** The user's unexpired grants (every browser's), by id: the apps the account page lists. */
  grantsOf(accountId: string): Promise<Array<{ grantId: string; clientId: string }>>;
  /**
   * When the user's sessions last ended (ms since epoch; projections/oidc-sessions.ts),
   * or undefined: what a JWT access token, which is not stored, is checked against.
   */
  sessionsEndedAt(accountId: string): Promise<number | undefined>;
  /** When the user's sessions last ended, and the session that was kept then (ending the others), if one was. */
  sessionsEnded(accountId: string): Promise<{ at: number; keep?: string } | undefined>;
  /**
   * Notes a login session as its user sees it (user_sessions): created with its
   * device and address, its apps kept current, its address and last use
   * refreshed at most once a minute (a bounded write per session).
   */
  noteSession(session: SessionNote): Promise<void>;
  /** Whether the session (by uid) was ended by Keyhold (end one, end the others): it is over even if saved again. */
  sessionEnded(uid: string): Promise<boolean>;
  /** Marks a session ended whose apps the provider itself told (end_session). */
  sessionLoggedOut(uid: string): Promise<void>;
  /**
   * Takes up to `limit` ended sessions whose apps were not yet told, marking
   * them told in the same statement: of two processes, each takes its own.
   */
  takeEndedSessions(limit: number): Promise<EndedSession[]>;
  /**
   * Records a token-endpoint poll of a pending device code (RFC 8628 §3.5,
   * domain/oidc/device-poll.ts), atomically across processes; kept, under the
   * code's hash, until `expiresAt`. Resolves whether it was too soon and the
   * interval now in force.
   */
  recordDevicePoll(deviceCode: string, baseIntervalSeconds: number, expiresAt: Date): Promise<{ slowDown: boolean; intervalSeconds: number }>;
  /** Deletes rows expired before `before`, at most `limit`; resolves with how many. */
  deleteExpired(before: Date, limit: number): Promise<number>;
  /** Counts them, at most `limit` (the housekeeping sweep's backlog). */
  countExpired(before: Date, limit: number): Promise<number>;
}

/** One field of a stored payload (its path of names) and the text it must hold; null: absent. */
/** A row findToken found: its model, its payload as `find` answers it, and its grant's (undefined when gone, expired or named by none). */
export interface FoundToken {
  model: string;
  payload: OidcPayload;
  grantId?: string;
  grant?: OidcPayload;
  /** A code's: the uid of the session it is bound to, and that session as findByUid would answer it (absent: none live). */
  sessionUid?: string;
  session?: OidcPayload;
}

export interface StoredExpectation {
  path: readonly string[];
  equals: string | null;
}

export interface StoredOidcKey {
  kid: string;
  use: 'sig' | 'cookie';
  alg: string;
  publicJwk: Record<string, unknown> | null;
  sealed: string;
  createdAt: Date;
  activeFrom: Date;
  retireAt: Date | null;
}

export interface OidcKeyStore {
  /** Every key not retired before `now`, oldest first. */
  keys(now: Date): Promise<StoredOidcKey[]>;
  /** Adds a key unless one with this kid exists; resolves true when added. */
  add(key: StoredOidcKey): Promise<boolean>;
  /** Sets when a key is retired, unless it already has a time (idempotent: every process computes the same). */
  retire(kid: string, at: Date): Promise<void>;
}

/** A login session as saved (OidcStateStore.noteSession). */
export interface SessionNote {
  uid: string;
  userId: string;
  /** A short description of the browser (bounded, escaped), set when the session is first noted. */
  device: string;
  /** The client's address through the trusted proxies. */
  address: string;
  /** The apps the session signed in to: client id → the session id the app knows (sid) and its grant. */
  apps: Record<string, { sid: string; grantId?: string }>;
  expiresAt?: Date;
}

/** An ended session whose apps are to hear of it (back-channel logout). */
export interface EndedSession {
  uid: string;
  userId: string;
  apps: Record<string, { sid: string; grantId?: string }>;
}

/** When a user's sessions last ended, one row per user (projections/oidc-sessions.ts writes it, sessionsEndedAt reads it). */
export const SESSIONS_ENDED_MODEL = 'SessionsEnded';

/** The DPoP proofs used at Keyhold's own token checks (domain/oidc/dpop-proof.ts), by key and jti: claimed once by insertNew. */
export const DPOP_PROOF_MODEL = 'DPoPProof';

/** The poll state of device codes (recordDevicePoll): its own rows, so the library's saves of the code never overwrite it. */
const DEVICE_POLL_MODEL = 'DevicePoll';

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

const keyOf = (model: string, id: string) => (BEARER_MODELS.has(model) ? sha256(id) : id);

/** The stored key of a refresh token: what a successor names its predecessor by (never the token itself). */
export const refreshTokenKey = (id: string): string => keyOf('RefreshToken', id);

/**
 * A row as the finders read it. When it was consumed comes as epoch seconds
 * computed by the database: a timestamp's text form depends on the server's
 * DateStyle, and a misread time would read as "not consumed" (a code redeemed twice).
 */
type StoredRow = { payload: unknown; consumed: number | null };

function revived(model: string, id: string | undefined, rows: StoredRow[]): OidcPayload | undefined {
  const row = rows[0];
  if (!row) return undefined;
  const payload = { ...(row.payload as OidcPayload) };
  if (id !== undefined && BEARER_MODELS.has(model)) payload.jti = id;
  if (row.consumed !== null) payload.consumed = Number(row.consumed);
  return payload;
}

interface FoundRow {
  model: string;
  payload: unknown;
  consumed: number | null;
  grantId: string | null;
  grant: unknown;
  grantConsumed: number | null;
  sessionUid?: string | null;
  session?: unknown;
}

// A token under any of the models $1, by its hash $2, with its grant: the columns, joins and
// condition FIND_TOKEN and FIND_CODE share.
const TOKEN_COLUMNS = `t.model, t.payload, floor(extract(epoch from t.consumed_at))::float8 as consumed, t.grant_id as "grantId",
    g.payload as grant, floor(extract(epoch from g.consumed_at))::float8 as "grantConsumed"`;
const TOKEN_FROM = `oidc_payloads t
  left join oidc_payloads g on g.model = 'Grant' and g.key = t.grant_id and (g.expires_at is null or g.expires_at > now())`;
const TOKEN_WHERE = `t.model = any($1::text[]) and t.key = $2 and (t.expires_at is null or t.expires_at > now())`;

const FIND_TOKEN = `select ${TOKEN_COLUMNS} from ${TOKEN_FROM} where ${TOKEN_WHERE}`;

/**
 * An authorization code as FIND_TOKEN finds it, and the session it is bound to: the library checks
 * that session next (findByUid), read here in the same statement and snapshot. Only for codes: at a
 * token's lookup (introspection, userinfo) the same join took PostgreSQL from 0.3 to 0.5 ms of CPU
 * a call (bench, c=64), for the rarer token that is bound to its session.
 */
const FIND_CODE = `
  select ${TOKEN_COLUMNS}, s.uid as "sessionUid", s.payload as session
  from ${TOKEN_FROM}
  left join lateral (
    select t.payload->>'sessionUid' as uid, (
      select payload from oidc_payloads where model = 'Session' and uid = t.payload->>'sessionUid' and (expires_at is null or expires_at > now()) limit 1
    ) as payload
    where t.payload->>'expiresWithSession' = 'true' and t.payload->>'sessionUid' is not null
  ) s on true
  where ${TOKEN_WHERE}`;

/**
 * replaceIf's statement for `n` expectations, each a plain condition on the
 * row. Plain, because PostgreSQL checks the conditions again on the row a
 * concurrent writer changed meanwhile (READ COMMITTED): a subquery over the
 * expectations turned into a join was not checked again, and two processes
 * both replaced the row.
 */
const replaceIfTexts = new Map<number, string>();
function replaceIfText(n: number): string {
  let text = replaceIfTexts.get(n);
  if (text === undefined) {
    const conditions = Array.from({ length: n }, (_, i) => ` and (payload #>> $${9 + 2 * i}::text::text[]) is not distinct from $${10 + 2 * i}::text`).join('');
    text = `update oidc_payloads set payload = $3::text::jsonb, grant_id = $4, uid = $5, user_code = $6, expires_at = $7::text::timestamptz, account_id = $8
      where model = $1 and key = $2 and (expires_at is null or expires_at > now())${conditions} returning key`;
    replaceIfTexts.set(n, text);
  }
  return text;
}

/** A path of names as PostgreSQL's text[] literal (each element quoted). */
const textArray = (path: readonly string[]) => `{${path.map((p) => `"${p.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

/** When a row stored now for `expiresIn` seconds expires, as the text timestamptz parameters take. */
const expiry = (expiresIn: number | undefined) => (expiresIn ? new Date(Date.now() + expiresIn * 1000).toISOString() : null);

/**
 * The provider's writes share transactions under load (./group-commit.ts), as
 * appends do: each token request stores one to three rows (a refresh with
 * rotation consumes one and stores two), each its own commit and socket write
 * before. Each write stays its own all-or-nothing member of the shared
 * transaction, and a lone write starts at once. Its row locks are held until
 * the shared commit, so two batches writing the same two rows in opposite
 * orders (two processes given one jti) can deadlock: PostgreSQL breaks it
 * after deadlock_timeout and the group commit re-runs the members apart — slow
 * but correct, and rare, as token rows have random keys. Measured (PostgreSQL, c=64,
 * bench): socket writes were ~14% of the server's CPU at client_credentials
 * and ~20% at refresh; with sharing client_credentials went 1,111 → 1,837/s
 * (0.77 → 0.53 ms server CPU each) and refresh 378 → 605/s.
 *
 * Every token request, introspection and userinfo call reads or writes here,
 * so the statements the provider's adapter runs per request are plain SQL
 * (./sql.ts): built with drizzle they cost ~20% of the server's CPU at
 * c=64 (bench/profile.ts on the introspection and client_credentials runs).
 * The device poll's transaction and the sweep stay drizzle: cold.
 */
export function createOidcStateStore({ db, sql: client, kind }: Pick<Database, 'db' | 'sql' | 'kind'>): OidcStateStore {
  const writes = groupCommitter(client, GROUP_COMMIT_BY_DRIVER[kind]);
  /** One write, in a transaction shared with the writes of other requests waiting at that moment. */
  const write = async (statement: SqlStatement) => (await writes([statement]))[0]!;
  return {
    async upsert(model, id, payload, expiresIn, accountId = typeof payload.accountId === 'string' ? payload.accountId : undefined) {
      const stored: OidcPayload = { ...payload };
      if (BEARER_MODELS.has(model)) delete stored.jti;
      await write(sql`
        insert into oidc_payloads (model, key, payload, grant_id, uid, user_code, expires_at, account_id)
        values (${model}, ${keyOf(model, id)}, ${JSON.stringify(stored)}::text::jsonb, ${payload.grantId ?? null}, ${payload.uid ?? null},
          ${payload.userCode ?? null}, ${expiry(expiresIn)}::text::timestamptz, ${accountId ?? null})
        on conflict (model, key) do update set payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
          user_code = excluded.user_code, expires_at = excluded.expires_at, account_id = excluded.account_id`);
    },
    async insertNew(model, id, payload, expiresIn) {
      // The library saves a client assertion's jti for `exp - now` seconds, which is 0 in the
      // assertion's last second: kept 1 s then (a null expiry would keep it forever).
      const stored = await write(sql`
        insert into oidc_payloads (model, key, payload, expires_at)
        values (${model}, ${keyOf(model, id)}, ${JSON.stringify(payload)}::text::jsonb, ${expiry(Math.max(expiresIn, 1))}::text::timestamptz)
        on conflict (model, key) do update set payload = excluded.payload, expires_at = excluded.expires_at, consumed_at = null
          where oidc_payloads.expires_at is not null and oidc_payloads.expires_at <= now()
        returning key`);
      return stored.length === 1;
    },
    async find(model, id) {
      const rows = await client.query<StoredRow>(sql`
        select payload, floor(extract(epoch from consumed_at))::float8 as consumed from oidc_payloads
        where model = ${model} and key = ${keyOf(model, id)} and (expires_at is null or expires_at > now())`);
      return revived(model, id, rows);
    },
    async findToken(id, models) {
      if (models.some((m) => !BEARER_MODELS.has(m))) throw new Error(`findToken finds bearer tokens only, not ${models.join(', ')}`);
      // Every bearer model is keyed by the same hash of the id; the primary key (model, key) answers each model probed.
      const rows = await client.query<FoundRow>({ text: models.includes('AuthorizationCode') ? FIND_CODE : FIND_TOKEN, params: [models, sha256(id)] });
      return rows.map((row) => ({
        model: row.model,
        payload: revived(row.model, id, [row])!,
        ...(row.grantId !== null ? { grantId: row.grantId } : {}),
        ...(row.grant !== null ? { grant: revived('Grant', row.grantId!, [{ payload: row.grant, consumed: row.grantConsumed }]) } : {}),
        ...(row.sessionUid != null ? { sessionUid: row.sessionUid } : {}),
        ...(row.session != null ? { session: revived('Session', undefined, [{ payload: row.session, consumed: null }]) } : {}),
      }));
    },
    async findByUid(model, uid) {
      const rows = await client.query<StoredRow>(sql`
        select payload, floor(extract(epoch from consumed_at))::float8 as consumed from oidc_payloads
        where model = ${model} and uid = ${uid} and (expires_at is null or expires_at > now()) limit 1`);
      return revived(model, undefined, rows);
    },
    async findByUserCode(model, userCode) {
      const rows = await client.query<StoredRow>(sql`
        select payload, floor(extract(epoch from consumed_at))::float8 as consumed from oidc_payloads
        where model = ${model} and user_code = ${userCode} and (expires_at is null or expires_at > now()) limit 1`);
      return revived(model, undefined, rows);
    },
    async consume(model, id) {
      // The condition is checked again on the row once a concurrent consumer's lock is released
      // (PostgreSQL re-reads an updated row under READ COMMITTED): that one's commit makes this one lose.
      const taken = await write(sql`
        update oidc_payloads set consumed_at = now()
        where model = ${model} and key = ${keyOf(model, id)} and consumed_at is null
        returning key`);
      return taken.length === 1;
    },
    async rotateRefreshToken(id, nonce, graceSeconds) {
      // Every condition that decides is on the rows this statement updates (the token's, its
      // predecessor's), so PostgreSQL checks it again on the newest row once a concurrent rotation
      // commits (READ COMMITTED): two rotations of one token, or a token's rotation and its
      // predecessor's retry, are decided one after the other. The predecessor's update runs even
      // when the token's own conditions fail; it marks only that its current successor was
      // presented, which is then true.
      const key = refreshTokenKey(id);
      const taken = await write(sql`
        with me as (
          select payload->>'keyholdRotatedFrom' as pred, payload->>'keyholdRotatedBy' as pred_nonce from oidc_payloads
          where model = 'RefreshToken' and key = ${key}
        ), pred as (
          update oidc_payloads p set payload = p.payload || '{"keyholdSuccessorUsed":true}'::jsonb
          from me where p.model = 'RefreshToken' and p.key = me.pred and p.payload->>'keyholdRotation' = me.pred_nonce
          returning p.key
        )
        update oidc_payloads t set consumed_at = now(), payload = t.payload || jsonb_build_object('keyholdRotation', ${nonce}::text)
        where t.model = 'RefreshToken' and t.key = ${key} and (t.expires_at is null or t.expires_at > now())
          and (t.consumed_at is null
            or not exists (select 1 from oidc_payloads c where c.model = 'RefreshToken' and c.grant_id = t.grant_id
              and c.payload->>'keyholdRotatedFrom' = t.key and c.payload->>'keyholdRotatedBy' = t.payload->>'keyholdRotation')
            or (t.consumed_at > now() - ${graceSeconds}::int * interval '1 second' and t.payload->>'keyholdSuccessorUsed' is null))
          and (t.payload->>'keyholdRotatedFrom' is null or exists (select 1 from pred)
            or not exists (select 1 from oidc_payloads p where p.model = 'RefreshToken' and p.key = t.payload->>'keyholdRotatedFrom'))
        returning t.key`);
      return taken.length === 1;
    },
    async replaceIf(model, id, payload, expiresIn, expected, accountId = typeof payload.accountId === 'string' ? payload.accountId : undefined) {
      const stored: OidcPayload = { ...payload };
      if (BEARER_MODELS.has(model)) delete stored.jti;
      const params: unknown[] = [model, keyOf(model, id), JSON.stringify(stored), payload.grantId ?? null, payload.uid ?? null, payload.userCode ?? null, expiry(expiresIn), accountId ?? null];
      for (const e of expected) params.push(textArray(e.path), e.equals);
      const replaced = await write({ text: replaceIfText(expected.length), params });
      return replaced.length === 1;
    },
    async destroy(model, id) {
      const gone = (await write(sql`delete from oidc_payloads where model = ${model} and key = ${keyOf(model, id)} returning payload`)) as { payload: unknown }[];
      return gone[0]?.payload as OidcPayload | undefined;
    },
    async take(model, id, account) {
      const rows = (await write(sql`
        delete from oidc_payloads where model = ${model} and key = ${keyOf(model, id)} and (expires_at is null or expires_at > now())
          and (${account ?? null}::text is null or coalesce(payload #>> '{result,login,accountId}', ${account ?? null}::text) = ${account ?? null}::text)
        returning payload, floor(extract(epoch from consumed_at))::float8 as consumed`)) as StoredRow[];
      return revived(model, id, rows);
    },
    async revokeByGrantId(grantId) {
      await write(sql`delete from oidc_payloads where grant_id = ${grantId}`);
    },
    async revokeGrant(grantId) {
      const gone = (await write(sql`
        delete from oidc_payloads where grant_id = ${grantId} or (model = 'Grant' and key = ${grantId})
        returning model, payload`)) as { model: string; payload: unknown }[];
      return gone.find((r) => r.model === 'Grant')?.payload as OidcPayload | undefined;
    },
    async grantsOf(accountId) {
      const rows = await client.query<{ key: string; client_id: unknown }>(sql`
        select key, payload->>'clientId' as client_id from oidc_payloads
        where account_id = ${accountId} and model = 'Grant' and (expires_at is null or expires_at > now())
        order by key`);
      return rows.flatMap((r) => (typeof r.client_id === 'string' ? [{ grantId: r.key, clientId: r.client_id }] : []));
    },
    async sessionsEndedAt(accountId) {
      const [row] = await client.query<{ at: unknown }>(sql`select payload->'at' as at from oidc_payloads where model = ${SESSIONS_ENDED_MODEL} and key = ${accountId}`);
      return typeof row?.at === 'number' ? row.at : row?.at === undefined ? undefined : Number(row.at);
    },
    async sessionsEnded(accountId) {
      const [row] = await client.query<{ at: unknown; keep: unknown }>(
        sql`select payload->'at' as at, payload->>'keep' as keep from oidc_payloads where model = ${SESSIONS_ENDED_MODEL} and key = ${accountId}`,
      );
      if (!row || row.at === null || row.at === undefined) return undefined;
      return { at: Number(row.at), ...(typeof row.keep === 'string' ? { keep: row.keep } : {}) };
    },
    async noteSession(n) {
      await write(sql`
        insert into user_sessions (id, user_id, device, address, apps, expires_at)
        values (${n.uid}, ${n.userId}, ${n.device}, ${n.address}, ${JSON.stringify(n.apps)}::text::jsonb, ${n.expiresAt?.toISOString() ?? null}::text::timestamptz)
        on conflict (id) do update set apps = excluded.apps, address = excluded.address, last_used_at = now(), expires_at = excluded.expires_at
          where user_sessions.ended_at is null and user_sessions.user_id = excluded.user_id
            and (user_sessions.apps <> excluded.apps or user_sessions.last_used_at < now() - interval '60 seconds')`);
    },
    async sessionEnded(uid) {
      const rows = await client.query<{ one: number }>(sql`select 1 as one from user_sessions where id = ${uid} and ended_at is not null`);
      return rows.length > 0;
    },
    async sessionLoggedOut(uid) {
      await write(sql`update user_sessions set ended_at = coalesce(ended_at, now()), notified_at = coalesce(notified_at, now()) where id = ${uid}`);
    },
    async takeEndedSessions(limit) {
      const rows = (await write(sql`
        update user_sessions set notified_at = now() where id in (
          select id from user_sessions where ended_at is not null and notified_at is null order by ended_at limit ${limit} for update skip locked
        ) and notified_at is null
        returning id, user_id, apps`)) as { id: string; user_id: string; apps: unknown }[];
      return rows.map((r) => ({ uid: r.id, userId: r.user_id, apps: (typeof r.apps === 'string' ? JSON.parse(r.apps) : r.apps) as EndedSession['apps'] }));
    },
    async recordDevicePoll(deviceCode, baseIntervalSeconds, expiresAt) {
      const key = sha256(deviceCode);
      return db.transaction(async (tx) => {
        // The row first, so that the select below locks it even on the code's first poll: without a
        // row there is nothing to lock, and first polls arriving together were each the first.
        await tx.insert(oidcPayloads).values({ model: DEVICE_POLL_MODEL, key, payload: {}, expiresAt }).onConflictDoNothing();
        const [row] = await tx
          .select({ payload: oidcPayloads.payload })
          .from(oidcPayloads)
          .where(and(eq(oidcPayloads.model, DEVICE_POLL_MODEL), eq(oidcPayloads.key, key)))
          .for('update')
          .limit(1);
        const { state, slowDown } = nextDevicePoll(row?.payload as DevicePollState | undefined, Date.now(), baseIntervalSeconds);
        await tx
          .insert(oidcPayloads)
          .values({ model: DEVICE_POLL_MODEL, key, payload: state, expiresAt })
          .onConflictDoUpdate({ target: [oidcPayloads.model, oidcPayloads.key], set: { payload: state } });
        return { slowDown, intervalSeconds: state.intervalSeconds };
      });
    },
    async deleteExpired(before, limit) {
      const rows = await db.execute<{ n: number }>(dsql`
        with gone as (
          delete from ${oidcPayloads} where ctid in (
            select ctid from ${oidcPayloads} where ${oidcPayloads.expiresAt} < ${before.toISOString()}::timestamptz limit ${limit} for update skip locked
          ) and ${oidcPayloads.expiresAt} < ${before.toISOString()}::timestamptz
          returning 1
        ) select count(*)::int as n from gone`);
      const list = Array.isArray(rows) ? rows : ((rows as { rows?: { n: number }[] }).rows ?? []);
      return Number(list[0]?.n ?? 0);
    },
    async countExpired(before, limit) {
      const rows = await db.execute<{ n: number }>(dsql`
        select count(*)::int as n from (
          select 1 from ${oidcPayloads} where ${oidcPayloads.expiresAt} < ${before.toISOString()}::timestamptz limit ${limit}
        ) expired`);
      const list = Array.isArray(rows) ? rows : ((rows as { rows?: { n: number }[] }).rows ?? []);
      return Number(list[0]?.n ?? 0);
    },
  };
}

const toStored = (r: OidcKeyRow): StoredOidcKey => ({ ...r, publicJwk: (r.publicJwk as Record<string, unknown> | null) ?? null });

export function createOidcKeyStore({ db }: Pick<Database, 'db'>): OidcKeyStore {
  return {
    async keys(now) {
      const rows = await db
        .select()
        .from(oidcKeys)
        .where(dsql`${oidcKeys.retireAt} is null or ${oidcKeys.retireAt} > ${now.toISOString()}::timestamptz`)
        .orderBy(asc(oidcKeys.createdAt), asc(oidcKeys.kid));
      return rows.map(toStored);
    },
    async add(key) {
      const rows = await db.insert(oidcKeys).values(key).onConflictDoNothing().returning({ kid: oidcKeys.kid });
      return rows.length > 0;
    },
    async retire(kid, at) {
      await db.update(oidcKeys).set({ retireAt: at }).where(and(eq(oidcKeys.kid, kid), isNull(oidcKeys.retireAt)));
    },
  };
}

/** Whether any key sealed with a master key is stored, retired or not (server/oidc/keys.ts loadMasterKey). */
export async function sealedKeysExist({ db }: Pick<Database, 'db'>): Promise<boolean> {
  const rows = await db.select({ kid: oidcKeys.kid }).from(oidcKeys).limit(1);
  return rows.length > 0;
}
