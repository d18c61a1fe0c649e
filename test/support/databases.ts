// Throwaway databases for tests: a PGlite data dir in a temp folder, or (when
// TEST_DATABASE_URL names a PostgreSQL admin connection) a freshly created
// PostgreSQL database, dropped again in cleanup. Real engines, no stand-ins.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import postgres from 'postgres';
import { openDatabase, type Database } from '../../src/store/database.js';

/** The admin connection PostgreSQL tests create their databases through. */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL;
export const postgresAvailable = Boolean(testDatabaseUrl);

/** KEYHOLD_MASTERKEY for Keyholds on a test PostgreSQL (required with DATABASE_URL; one for all of them). */
export const TEST_MASTER_KEY = 'keyhold-test-master-key-0123456789abcdef';

export interface FreshDatabase {
  database: Database;
  dataDir: string;
  /** Set for PostgreSQL: the URL of the fresh database. */
  databaseUrl?: string;
  cleanup(): Promise<void>;
}

export async function tempDir(prefix = 'keyhold-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

const migrationsDir = new URL('../../src/store/migrations/', import.meta.url);

/** Identifies a template: the migrations it holds and the PGlite build that wrote it. */
function templateKey(): string {
  const hash = createHash('sha256');
  // The package's exports hide package.json; its entry lives in <package>/dist/.
  const pgliteEntry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  hash.update(readFileSync(join(dirname(dirname(pgliteEntry)), 'package.json')));
  for (const name of readdirSync(migrationsDir, { recursive: true }).map(String).sort()) {
    const path = new URL(name, migrationsDir);
    if (name.endsWith('.sql') || name.endsWith('.json')) hash.update(name).update(readFileSync(path));
  }
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

/**
 * A migrated, cleanly closed PGlite data dir to copy from. A new PGlite dir
 * costs an initdb (5–15 s on a busy machine); copying a closed one and opening
 * it takes about a second. Shared across test files and runs through a path
 * keyed by the migrations, built aside and renamed into place (atomic), so a
 * half-built template is never used.
 */
function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = join(tmpdir(), `keyhold-pglite-template-${templateKey()}`);
    if (existsSync(join(dir, 'ready'))) return dir;
    const building = await tempDir('keyhold-pglite-build-');
    const database = await openDatabase({ dataDir: building });
    await database.close();
    await writeFile(join(building, 'ready'), '');
    try {
      await rename(building, dir);
    } catch {
      // Another worker won the race: its template is just as good.
      await rm(building, { recursive: true, force: true });
    }
    return dir;
  })();
  return template;
}

/** A new temp data dir holding a copy of the migrated template (not opened). */
export async function pgliteDirFromTemplate(): Promise<string> {
  const source = join(await pgliteTemplate(), 'pgdata');
  const dataDir = await tempDir();
  try {
    await cp(source, join(dataDir, 'pgdata'), { recursive: true });
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  return dataDir;
}

export async function freshPglite(): Promise<FreshDatabase> {
  const dataDir = await pgliteDirFromTemplate();
  // Opening still runs the migrator, which finds everything applied.
  const database = await openDatabase({ dataDir });
  return {
    database,
    dataDir,
    async cleanup() {
      await database.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface PostgresDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export interface CreatePostgresOptions {
  /**
   * LC_COLLATE and LC_CTYPE of the new database (e.g. 'C'), from template0 as
   * createdb -l does. Default: the server's (here C.UTF-8).
   */
  locale?: 'C' | 'C.UTF-8' | 'POSIX';
}

/** Create an empty, uniquely named PostgreSQL database (nothing migrated yet). */
export async function createPostgresDatabase(options: CreatePostgresOptions = {}): Promise<PostgresDatabase> {
  if (!testDatabaseUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `kh_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  const admin = postgres(testDatabaseUrl, { max: 1, onnotice: () => {} });
  try {
    const locale = options.locale ? ` template template0 encoding 'UTF8' lc_collate '${options.locale}' lc_ctype '${options.locale}'` : '';
    await admin.unsafe(`create database "${name}"${locale}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const dropper = postgres(testDatabaseUrl, { max: 1, onnotice: () => {} });
      try {
        // WITH (FORCE): a leaked connection must not keep test databases around.
        await dropper.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await dropper.end({ timeout: 5 });
      }
    },
  };
}

export async function freshPostgres(options: { poolSize?: number } = {}): Promise<FreshDatabase> {
  const created = await createPostgresDatabase();
  const dataDir = await tempDir();
  try {
    const database = await openDatabase({ databaseUrl: created.url, dataDir, poolSize: options.poolSize });
    return {
      database,
      dataDir,
      databaseUrl: created.url,
      async cleanup() {
        try {
          await database.close();
        } finally {
          await created.drop();
          await rm(dataDir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    await created.drop();
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** Say loudly that PostgreSQL tests did not run, instead of passing silently. */
export function announcePostgresSkip(suite: string): void {
  if (!postgresAvailable) {
    console.warn(`[skipped] ${suite}: PostgreSQL tests need TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)`);
  }
}

/**
 * Org rows for a test that appends projects or users of made-up orgs straight
 * to the event store: the read model refers each to its org (migration 0026).
 */
export async function knownOrgs(database: { sql: { query: (s: { text: string; params: unknown[] }) => Promise<unknown> } }, ...orgIds: string[]): Promise<void> {
  for (const id of orgIds) {
    await database.sql.query({ text: `insert into orgs (id, name, created_at, changed_at, sequence) values ($1, $1, now(), now(), 1) on conflict (id) do nothing`, params: [id] });
  }
}
