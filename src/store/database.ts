// Opens the one database Keyhold uses: PostgreSQL via postgres.js when a URL is
// given (several Keyhold processes may share it), else embedded PGlite in the
// data directory (one process owns it). Both get the same migrations at open
// and expose the same drizzle type, so nothing above this file knows which.
import { resolve, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import * as schema from './schema.js';
import { databaseUnavailable, isUnavailable } from './errors.js';
import { lockDataDir } from './lock-file.js';
import { postgresTarget } from './postgres-url.js';
import { pgliteSqlClient, postgresSqlClient, type SqlClient } from './sql.js';

export type Schema = typeof schema;
/** The drizzle handle both drivers share; a transaction (`tx`) is one too. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** Plain SQL on the same connections, for the hot paths (./sql.ts). */
  sql: SqlClient;
  /** Resolves when the database answers; rejects with DatabaseUnavailable otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** postgres://… — when set, PostgreSQL is used and `dataDir` only holds files. */
  databaseUrl?: string;
  dataDir: string;
  /** PostgreSQL pool size (default 20). */
  poolSize?: number;
}

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

// Arbitrary but fixed: every Keyhold process sharing a PostgreSQL serializes
// its migration run on this advisory lock ("KEYHOLD" in ASCII-ish digits).
const MIGRATION_LOCK_KEY = 4_859_728_279n;

function unavailable(err: unknown, what: string): unknown {
  return isUnavailable(err) ? databaseUnavailable(err, `${what}: the database is unavailable`) : err;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options.poolSize ?? 20) : openPglite(options.dataDir);
}

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
 * The driver itself needed repairs for outages too: scripts/patch-postgres-js.mjs.
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

async function openPostgres(databaseUrl: string, poolSize: number): Promise<Database> {
  await migratePostgresLocked(databaseUrl);
  const { url, host } = postgresTarget(databaseUrl);
  const client = postgres(url, { max: poolSize, onnotice: () => {}, ...POSTGRES_CONNECTION_OPTIONS, ...(host ? { host } : {}) });
  const db: Db = drizzlePostgres(preparingStatements(client), { schema });
  return {
    kind: 'postgres',
    db,
    sql: postgresSqlClient(client),
    ping: () => ping(db),
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
function preparingStatements(sql: postgres.Sql): postgres.Sql {
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, params?: never[], options?: postgres.UnsafeQueryOptions) =>
          target.unsafe(query, params, { ...options, prepare: true });
      }
      if (property === 'begin' || property === 'savepoint') {
        return (...args: unknown[]) => {
          const callback = args.pop() as (tx: postgres.Sql) => unknown;
          const open = Reflect.get(target, property) as (...a: unknown[]) => unknown;
          return open.call(target, ...args, (tx: postgres.Sql) => callback(preparingStatements(tx)));
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
 * collide on PostgreSQL's catalog unique index.
 */
async function migratePostgresLocked(databaseUrl: string): Promise<void> {
  const { url, host } = postgresTarget(databaseUrl);
  const client = postgres(url, { max: 1, onnotice: () => {}, ...POSTGRES_CONNECTION_OPTIONS, ...(host ? { host } : {}) });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
    try {
      await migratePostgres(drizzlePostgres(client), { migrationsFolder });
    } finally {
      await client`select pg_advisory_unlock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
    }
  } catch (err) {
    throw unavailable(err, 'migrating PostgreSQL');
  } finally {
    await client.end({ timeout: 5 });
  }
}

async function openPglite(dataDir: string): Promise<Database> {
  const dir = resolve(dataDir);
  const lock = lockDataDir(dir);
  let client: PGlite | undefined;
  try {
    client = await PGlite.create({ dataDir: join(dir, 'pgdata') });
    const pglite = drizzlePglite(client, { schema });
    await migratePglite(pglite, { migrationsFolder });
    const db: Db = pglite;
    const opened = client;
    let closing: Promise<void> | undefined;
    return {
      kind: 'pglite',
      db,
      sql: pgliteSqlClient(opened),
      ping: () => ping(db),
      close() {
        // Idempotent: a second close (e.g. shutdown racing a test cleanup) waits for the first.
        closing ??= opened.close().finally(() => lock.release());
        return closing;
      },
    };
  } catch (err) {
    // Never keep a lock on a directory we failed to open.
    await client?.close().catch(() => {});
    lock.release();
    throw err;
  }
}

async function ping(db: Db): Promise<void> {
  try {
    await db.execute(sql`select 1`);
  } catch (err) {
    throw databaseUnavailable(err, 'ping failed: the database is unavailable');
  }
}
