// Throwaway databases for tests: a PGlite data dir in a temp folder, or (when
// TEST_DATABASE_URL names a PostgreSQL admin connection) a freshly created
// PostgreSQL database, dropped again in cleanup. Real engines, no stand-ins.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openDatabase, type Database } from '../../src/store/database.js';

/** The admin connection PostgreSQL tests create their databases through. */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL;
export const postgresAvailable = Boolean(testDatabaseUrl);

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

export async function freshPglite(): Promise<FreshDatabase> {
  const dataDir = await tempDir();
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

/** Create an empty, uniquely named PostgreSQL database (nothing migrated yet). */
export async function createPostgresDatabase(): Promise<PostgresDatabase> {
  if (!testDatabaseUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `kh_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  const admin = postgres(testDatabaseUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
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
