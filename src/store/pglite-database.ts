// The embedded database: PGlite in the data directory, owned by this process.
// Loaded by ./database.ts only when no DATABASE_URL is given, so that a
// process on PostgreSQL does not carry PGlite, its drizzle driver or its
// adapter (docs/performance.md, "Optional modules loaded on first use").
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import * as schema from './schema.js';
import { migrate, ping, PROBE_BYTES, type Database, type Db, type Migrating } from './database.js';
import { guardEngine } from './pglite-guard.js';
import { lockDataDir } from './lock-file.js';
import type { MigrationTransaction } from './migrate.js';
import type { StoreObserver } from './observer.js';
import { securePgliteDir } from './private-data-dir.js';
import { openPgliteEngine } from './pglite-open.js';
import { snapshotPglite } from './pglite-snapshot.js';
import { pgliteSqlClient } from './pglite-sql.js';
import { rekeyIdentifiers } from './rekey-identifiers.js';
import { newStatementCount, type StatementCount } from './statement-count.js';
import { storageHealth } from './storage-health.js';

/** The tables `reclaim` vacuums: names are spliced into SQL, so only these. */
const RECLAIMABLE = new Set(['u2f_tokens', 'oidc_payloads', 'attempt_budgets', 'idempotent_answers', 'email_codes']);

export async function openPglite(dataDir: string, sharedBuffers: string | undefined, observer: StoreObserver, migrating: Migrating): Promise<Database> {
  const dir = resolve(dataDir);
  const pgdata = join(dir, 'pgdata');
  // Owner-only before anything is written in it, or refuse to start (private-data-dir.ts).
  securePgliteDir(dir, pgdata);
  const lock = lockDataDir(dir);
  let client: PGlite | undefined;
  try {
    client = await openPgliteEngine(dir, pgdata, sharedBuffers);
    const engine = guardEngine(client);
    const counted = newStatementCount();
    const pglite = drizzlePglite(countingPglite(client, counted), { schema });
    const opened = client;
    const transaction: MigrationTransaction = (work) =>
      opened.transaction((tx) => work(async (text, params) => (await tx.query<Record<string, unknown>>(text, params)).rows));
    await migrate(async (text, params) => (await opened.query<Record<string, unknown>>(text, params)).rows, transaction, migrating);
    const rekey = await rekeyIdentifiers(transaction);
    const db: Db = pglite;
    const storage = storageHealth({ probe: async () => probeDirectory(dir) });
    void engine.failed.then((err) => storage.stopped(err));
    let closing: Promise<void> | undefined;
    return {
      kind: 'pglite',
      db,
      sql: pgliteSqlClient(opened, counted),
      counted,
      rekey,
      ping: () => ping(db, observer),
      storage,
      failed: engine.failed,
      async snapshot(target) {
        if (engine.failure) throw engine.failure;
        await snapshotPglite(opened, pgdata, target);
      },
      async reclaim(tables) {
        for (const table of tables) {
          if (!RECLAIMABLE.has(table)) throw new Error(`not a table the sweep reclaims: ${table}`);
          await opened.exec(`vacuum ${table}`);
        }
      },
      close() {
        // Idempotent: a second close (e.g. shutdown racing a test cleanup) waits for the first.
        // A stopped engine is not entered again, not even to close it (pglite-guard.ts).
        closing ??= (engine.failure ? Promise.resolve() : opened.close()).finally(() => lock.release());
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

/**
 * The PGlite drizzle is given: the same engine, its query() calls counted, and
 * those of the transactions it opens (drizzle's PGlite session calls nothing else).
 */
function countingPglite(client: PGlite, counted: StatementCount): PGlite {
  const counting = <T extends object>(target: T, inTransaction: boolean): T =>
    new Proxy(target, {
      get(on, property) {
        const value = Reflect.get(on, property, on) as unknown;
        if (typeof value !== 'function') return value;
        if (property === 'query') {
          return (...args: unknown[]) => {
            counted.statements++;
            return (value as (...a: unknown[]) => unknown).apply(on, args);
          };
        }
        if (property === 'transaction' && !inTransaction) {
          return (callback: (tx: object) => unknown) => {
            counted.transactions++;
            return (value as (cb: (tx: object) => unknown) => unknown).call(on, (tx: object) => callback(counting(tx, true)));
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(on);
      },
    });
  return counting(client, false);
}

/** PGlite: its files are in `dir`; write and fsync 1 MiB beside them (ENOSPC, EROFS, EIO when they would fail). */
function probeDirectory(dir: string): void {
  const file = join(dir, '.storage-probe');
  try {
    const fd = openSync(file, 'w', 0o600);
    try {
      writeSync(fd, Buffer.alloc(PROBE_BYTES));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } finally {
    rmSync(file, { force: true });
  }
}

