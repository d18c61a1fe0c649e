// Opens the one database Keyhold uses: PostgreSQL via postgres.js when a URL is
// given (several Keyhold processes may share it), else embedded PGlite in the
// data directory (one process owns it). Both get the same migrations at open
// and expose the same drizzle type, so nothing above this file knows which.
// PGlite's side is ./pglite-database.ts, loaded only when it is the one used.
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import * as schema from './schema.js';
import { databaseUnavailable, isUnavailable, StorageUnavailable } from './errors.js';
import { storageHealth, type StorageHealth } from './storage-health.js';
import { readMigrations, runMigrations, type MigrationQuery, type MigrationRun, type MigrationTransaction } from './migrate.js';
import { databaseErrorKind, NO_OBSERVER, type StoreObserver } from './observer.js';
import { assertPostgresRepaired } from './postgres-repairs.js';
import { postgresTarget } from './postgres-url.js';
import { rekeyIdentifiers, type RekeyReport } from './rekey-identifiers.js';
import { postgresSqlClient, type SqlClient } from './sql.js';
import { newStatementCount, type StatementCount } from './statement-count.js';
import { beginWithin, boundedQuery, DATABASE_WAIT_BOUNDS, SERVER_TIMEOUTS } from './wait-bounds.js';

export type Schema = typeof schema;
/** The drizzle handle both drivers share; a transaction (`tx`) is one too. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** Plain SQL on the same connections, for the hot paths (./sql.ts). */
  sql: SqlClient;
  /** What keying the names stored before migration 0001 did at this open (./rekey-identifiers.ts). */
  rekey: RekeyReport;
  /** Resolves when the database answers; rejects with DatabaseUnavailable (or StorageUnavailable) otherwise. */
  ping(): Promise<void>;
  /** Whether the storage takes writes (storage-health.ts); the event store reports its appends to it. */
  storage: StorageHealth;
  /** Statements and transactions sent so far, over drizzle and `sql` alike (./statement-count.ts). */
  readonly counted: Readonly<StatementCount>;
  /**
   * Resolves when this database can no longer be used by this process (PGlite
   * after a PANIC, pglite-guard.ts): the process should stop, to be restarted.
   * Never resolves for PostgreSQL, whose server recovers by itself.
   */
  failed: Promise<StorageUnavailable>;
  /**
   * PGlite only: copies the data directory, checkpointed and with nothing running,
   * into `target` (a new directory beside it) for a backup (./pglite-snapshot.ts).
   */
  snapshot?(target: string): Promise<void>;
  /**
   * PGlite only: vacuums tables that lost rows (the housekeeping sweep's), so
   * that their space is used again. PGlite runs no autovacuum: without this its
   * files grow with every row ever written (a soak of short-lived tokens: 137 MiB
   * of oidc_payloads against 4.8 MiB vacuumed). PostgreSQL's autovacuum does it.
   */
  reclaim?(tables: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** postgres://… — when set, PostgreSQL is used and `dataDir` only holds files. */
  databaseUrl?: string;
  dataDir: string;
  /** PGlite's shared_buffers (default 16MB, ./pglite-open.ts). */
  pgliteSharedBuffers?: string;
  /** PostgreSQL pool size (default 20). */
  poolSize?: number;
  /** Hears of failed pings (./observer.ts); the event store and the read model take it too. */
  observer?: StoreObserver;
  /** Told of each migration as it commits (./migrate.ts). */
  onMigrated?: (run: MigrationRun) => void;
  /** The version recorded in keyhold_schema by the migrations this open applies (the server passes package.json's; a tool or test that leaves it out records "unknown"). */
  keyholdVersion?: string;
}

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

// Arbitrary but fixed: every Keyhold process sharing a PostgreSQL serializes
// its migration run on this advisory lock ("KEYHOLD" in ASCII-ish digits).
const MIGRATION_LOCK_KEY = 4_859_728_279n;

function unavailable(err: unknown, what: string): unknown {
  return isUnavailable(err) ? databaseUnavailable(err, `${what}: the database is unavailable`) : err;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const observer = options.observer ?? NO_OBSERVER;
  const migrating: Migrating = { keyholdVersion: options.keyholdVersion ?? 'unknown', onMigrated: options.onMigrated };
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolSize ?? 20, observer, migrating)
    : (await import('./pglite-database.js')).openPglite(options.dataDir, options.pgliteSharedBuffers, observer, migrating);
}

export interface Migrating {
  keyholdVersion: string;
  onMigrated?: (run: MigrationRun) => void;
}

/** This build's migrations, read once per open (a few kB). */
export const migrate = (query: MigrationQuery, transaction: MigrationTransaction, migrating: Migrating) =>
  runMigrations({ query, transaction, migrations: readMigrations(migrationsFolder), ...migrating });

/**
 * Connection behaviour, mostly for when PostgreSQL is away (test/reliability/outage*.test.ts).
 * A request waiting for a connection must fail fast with DatabaseUnavailable,
 * and the pool must come back by itself, at once, when the database does.
 * - connect_timeout: postgres.js waits 30 s by default for a server that
 *   accepts the connection and never answers; a Keyhold request should not.
 * - backoff: postgres.js delays each reconnect by 3^failures/100 s, up to 20 s,
 *   counting socket-level failures (refused, reset: a stopped server) across
 *   the whole pool, reset only by a successful connect. Every query handed to a
 *   reconnecting connection waits out that delay: with the server stopped,
 *   requests hung through the whole outage and past it instead of failing. A
 *   reconnect only happens on behalf of a waiting query, so a short, capped
 *   delay cannot spin; it only spaces out a burst.
 * The driver itself needed repairs for outages too: scripts/patch-postgres-js.mjs
 * (checked at every open, ./postgres-repairs.ts).
 */
export const POSTGRES_CONNECTION_OPTIONS = {
  // Statements one connection sends before waiting for answers. postgres.js'
  // default (100) is less than one group-commit transaction can hold (64
  // appends of up to ~6 statements, ./event-store.ts); past it, the rest of a
  // transaction went one round trip per statement.
  max_pipeline: 1024,
  connect_timeout: 3, // seconds
  backoff: (failures: number) => Math.min(0.01 * 2 ** failures, 0.1) * (0.5 + Math.random() / 2), // seconds
} as const;

async function openPostgres(databaseUrl: string, poolSize: number, observer: StoreObserver, migrating: Migrating): Promise<Database> {
  // Before any connection: an unrepaired driver works until the first outage (./postgres-repairs.ts).
  assertPostgresRepaired();
  const rekey = await migratePostgresLocked(databaseUrl, migrating);
  const { url, host } = postgresTarget(databaseUrl);
  // Every wait on the serving pool is bounded (./wait-bounds.ts); the migration connection's are not.
  const client = postgres(url, { max: poolSize, onnotice: () => {}, ...POSTGRES_CONNECTION_OPTIONS, connection: SERVER_TIMEOUTS, ...(host ? { host } : {}) });
  const counted = newStatementCount();
  const db: Db = drizzlePostgres(preparingStatements(client, counted, DATABASE_WAIT_BOUNDS.waitMs), { schema });
  return {
    kind: 'postgres',
    db,
    sql: postgresSqlClient(client, DATABASE_WAIT_BOUNDS.waitMs, counted),
    counted,
    rekey,
    ping: () => ping(db, observer),
    storage: storageHealth({ probe: () => probePostgres(client) }),
    failed: new Promise(() => {}),
    async close() {
      await client.end({ timeout: 5 }); // idempotent in postgres.js
    },
  };
}

/**
 * drizzle hands postgres.js every query with `prepare: false` unless it was
 * built with `.prepare(name)`. postgres.js then sends an unnamed statement as
 * Parse+Describe, waits a round trip for the parameter types, and only then
 * binds and executes it — and it stops pipelining behind such a query. So each
 * statement of an append cost two round trips and the statements of one
 * transaction went one after the other. With `prepare: true` postgres.js keeps
 * a named statement per query text on each connection: after a connection's
 * first use, a statement is Bind+Execute, pipelined behind the others. Query
 * texts are a fixed set (drizzle builds them from code, values are parameters),
 * so the per-connection statement cache stays small.
 */
function preparingStatements(sql: postgres.Sql, counted: StatementCount, waitMs?: number): postgres.Sql {
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, params?: never[], options?: postgres.UnsafeQueryOptions) => {
          counted.statements++;
          const pending = target.unsafe(query, params, { ...options, prepare: true });
          return waitMs === undefined ? pending : boundedQuery(pending, waitMs);
        };
      }
      if (property === 'begin' || property === 'savepoint') {
        return (...args: unknown[]) => {
          const callback = args.pop() as (tx: postgres.Sql) => unknown;
          const open = Reflect.get(target, property) as (...a: unknown[]) => Promise<unknown>;
          // Inside a transaction (no waitMs) statements are bounded by the server alone (./wait-bounds.ts).
          const body = (tx: postgres.Sql) => callback(preparingStatements(tx, counted));
          if (property === 'begin') counted.transactions++;
          if (waitMs === undefined || property === 'savepoint') return open.call(target, ...args, body);
          return beginWithin((inner) => open.call(target, ...args, inner), body, waitMs);
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

/**
 * Run the migrator on one dedicated connection holding a session advisory lock,
 * so processes starting together migrate one after the other (the second finds
 * everything applied). Without it, two `CREATE SCHEMA IF NOT EXISTS` can still
 * collide on PostgreSQL's catalog unique index. The names stored before
 * migration 0001 are keyed under the same lock, before anything serves.
 */
async function migratePostgresLocked(databaseUrl: string, migrating: Migrating): Promise<RekeyReport> {
  const { url, host } = postgresTarget(databaseUrl);
  const client = postgres(url, { max: 1, onnotice: () => {}, ...POSTGRES_CONNECTION_OPTIONS, ...(host ? { host } : {}) });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
    try {
      const transaction: MigrationTransaction = (work) =>
        client.begin((tx) => work((text, params) => tx.unsafe(text, (params ?? []) as postgres.ParameterOrJSON<never>[]))) as Promise<never>;
      await migrate((text, params) => client.unsafe(text, (params ?? []) as postgres.ParameterOrJSON<never>[]), transaction, migrating);
      return await rekeyIdentifiers(transaction);
    } finally {
      await client`select pg_advisory_unlock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
    }
  } catch (err) {
    throw unavailable(err, 'migrating PostgreSQL');
  } finally {
    await client.end({ timeout: 5 });
  }
}

export async function ping(db: Db, observer: StoreObserver): Promise<void> {
  try {
    await db.execute(sql`select 1`);
  } catch (err) {
    observer.databaseError(databaseErrorKind(err));
    if (err instanceof StorageUnavailable) throw err;
    throw databaseUnavailable(err, 'ping failed: the database is unavailable');
  }
}

/** Storage probes (storage-health.ts): a small write that needs new space, undone at once. */
export const PROBE_BYTES = 1024 * 1024;

/**
 * PostgreSQL: a temporary table in a rolled-back transaction. Its new file is
 * extended on disk (in the database's tablespace) as rows arrive, which is
 * where a full disk answers 53100.
 */
async function probePostgres(client: postgres.Sql): Promise<void> {
  const rollback = new Error('storage probe: roll back');
  await client
    .begin(async (tx) => {
      await tx.unsafe('create temporary table keyhold_storage_probe (b text) on commit drop');
      await tx.unsafe(`insert into keyhold_storage_probe select repeat('x', 1000) from generate_series(1, ${Math.ceil(PROBE_BYTES / 8192) * 8})`);
      throw rollback;
    })
    .catch((err: unknown) => {
      if (err !== rollback) throw err;
    });
}
