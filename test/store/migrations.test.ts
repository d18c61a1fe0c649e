// Guarded upgrades (src/store/migrate.ts) on both engines: each migration is
// reported as it commits (number, name, ms); keyhold_schema records the
// Keyhold version that last migrated the database; a database with a migration
// this Keyhold does not know (a newer Keyhold migrated it) is refused, naming
// both versions, and left as it was; a database migrated by drizzle's own
// migrator (earlier releases) takes only the migrations it lacks.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/database.js';
import { openPgliteEngine } from '../../src/store/pglite-open.js';
import { readMigrations, SchemaTooNew, type MigrationRun } from '../../src/store/migrate.js';
import { KEYHOLD_VERSION } from '../../src/server/version.js';
import { announcePostgresSkip, createPostgresDatabase, pgliteDirFromTemplate, postgresAvailable, tempDir, TEST_MASTER_KEY } from '../support/databases.js';
import { repoRoot } from '../support/keyhold.js';

const folder = fileURLToPath(new URL('../../src/store/migrations/', import.meta.url));
const migrations = readMigrations(folder);
const newest = migrations.at(-1)!;
const latest = `${newest.number}_${newest.name}`;

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const rows = (db: Database, text: string, params: unknown[] = []) => db.sql.query<Record<string, unknown>>({ text, params });

async function recorded(db: Database) {
  const [row] = await rows(db, 'select keyhold_version, migration from keyhold_schema');
  const [{ n }] = (await rows(db, 'select count(*)::int as n from drizzle.__drizzle_migrations')) as [{ n: number }];
  return { version: row?.keyhold_version, migration: row?.migration, records: n };
}

/** Statements on a closed PGlite data directory, outside Keyhold. */
async function onEngine(dataDir: string, statements: string[]): Promise<void> {
  const engine = await openPgliteEngine(dataDir, join(dataDir, 'pgdata'));
  try {
    for (const statement of statements) await engine.query(statement);
  } finally {
    await engine.close();
  }
}

/** What a newer Keyhold leaves: one more migration record, and its version in keyhold_schema. */
async function migrateAsNewer(db: Database): Promise<void> {
  await rows(db, 'insert into drizzle.__drizzle_migrations (hash, created_at) values ($1, $2)', ['f'.repeat(64), newest.when + 1]);
  await rows(db, `update keyhold_schema set keyhold_version = '9.1.0', migration = '0099_from_the_future'`);
}

async function expectRefused(open: () => Promise<Database>): Promise<void> {
  const err = await open().then(
    async (db) => {
      await db.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SchemaTooNew);
  const message = (err as Error).message;
  expect(message).toContain('migrated by Keyhold 9.1.0');
  expect(message).toContain('1 migration this Keyhold 0.5.0 does not know');
  expect(message).toMatch(/Run Keyhold 9\.1\.0 or later .* restore the backup taken before the upgrade/);
}

it('the journal numbers its migrations in order, each file once, keyhold_schema among them', () => {
  expect(migrations.map((m) => Number(m.number))).toEqual(migrations.map((_m, i) => i));
  expect(migrations.every((m, i) => i === 0 || m.when > migrations[i - 1]!.when)).toBe(true);
  expect(migrations[15] && `${migrations[15].number}_${migrations[15].name}`).toBe('0015_schema_version');
});

describe('PGlite', () => {
  it('runs a missing migration, reports it with its time, records the version; an older Keyhold is then refused', async () => {
    const dataDir = await pgliteDirFromTemplate();
    dirs.push(dataDir);
    // The template holds every migration: take the newest back out, as before an upgrade.
    await onEngine(dataDir, [`delete from drizzle.__drizzle_migrations where created_at = ${newest.when}`]);

    const runs: MigrationRun[] = [];
    let db = await openDatabase({ dataDir, keyholdVersion: '0.5.0', onMigrated: (r) => runs.push(r) });
    expect(runs).toEqual([{ number: newest.number, name: newest.name, ms: expect.any(Number) }]);
    expect(await recorded(db)).toEqual({ version: '0.5.0', migration: latest, records: migrations.length });
    await migrateAsNewer(db);
    await db.close();

    await expectRefused(() => openDatabase({ dataDir, keyholdVersion: '0.5.0' }));
    // The refusal changed nothing and released the directory: without the unknown record it opens as the newer
    // Keyhold left it, with nothing to run (a start that migrates nothing records no version).
    await onEngine(dataDir, [`delete from drizzle.__drizzle_migrations where created_at > ${newest.when}`]);
    db = await openDatabase({ dataDir, keyholdVersion: '0.5.0', onMigrated: (r) => runs.push(r) });
    expect(await recorded(db)).toEqual({ version: '9.1.0', migration: '0099_from_the_future', records: migrations.length });
    expect(runs).toHaveLength(1);
    await db.close();
  }, 30_000);
});

/** A migrations folder holding the journal's first `count` entries: an earlier release's. */
function earlierMigrations(count: number): string {
  const dir = join(tmpdir(), `keyhold-migrations-${count}-${process.pid}`);
  dirs.push(dir);
  mkdirSync(join(dir, 'meta'), { recursive: true });
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8'));
  journal.entries = journal.entries.slice(0, count);
  const tags = new Set(journal.entries.map((e: { tag: string }) => `${e.tag}.sql`));
  for (const file of readdirSync(folder)) if (tags.has(file)) copyFileSync(join(folder, file), join(dir, file));
  writeFileSync(join(dir, 'meta', '_journal.json'), JSON.stringify(journal));
  return dir;
}

announcePostgresSkip('guarded migrations on PostgreSQL');
describe.skipIf(!postgresAvailable)('PostgreSQL', () => {
  it('migrates an empty database one migration after the other, each reported in order', async () => {
    const created = await createPostgresDatabase();
    const dataDir = await tempDir();
    dirs.push(dataDir);
    try {
      const runs: MigrationRun[] = [];
      const db = await openDatabase({ databaseUrl: created.url, dataDir, keyholdVersion: '0.5.0', onMigrated: (r) => runs.push(r) });
      try {
        expect(runs.map((r) => `${r.number}_${r.name}`)).toEqual(readMigrations(folder).map((m) => `${m.number}_${m.name}`));
        expect(runs.every((r) => Number.isInteger(r.ms) && r.ms >= 0)).toBe(true);
        expect(await recorded(db)).toEqual({ version: '0.5.0', migration: latest, records: migrations.length });
      } finally {
        await db.close();
      }
    } finally {
      await created.drop();
    }
  });

  it("continues a database drizzle's migrator made (an earlier release), then refuses an older Keyhold once a newer one migrated it", async () => {
    const created = await createPostgresDatabase();
    const dataDir = await tempDir();
    dirs.push(dataDir);
    try {
      const old = postgres(created.url, { max: 1, onnotice: () => {} });
      await migratePostgres(drizzlePostgres(old), { migrationsFolder: earlierMigrations(15) });
      await old.end();

      const runs: MigrationRun[] = [];
      let db = await openDatabase({ databaseUrl: created.url, dataDir, keyholdVersion: '0.5.0', onMigrated: (r) => runs.push(r) });
      expect(runs.map((r) => r.number)).toEqual(migrations.slice(15).map((m) => m.number));
      expect(await recorded(db)).toEqual({ version: '0.5.0', migration: latest, records: migrations.length });
      await migrateAsNewer(db);
      await db.close();

      await expectRefused(() => openDatabase({ databaseUrl: created.url, dataDir, keyholdVersion: '0.5.0' }));
      // The built keyhold (package.json's version) refuses to start, saying so, with a non-zero exit.
      const started = spawnSync(process.execPath, ['bin/keyhold.js'], {
        cwd: repoRoot,
        env: { PATH: process.env.PATH, DATABASE_URL: created.url, KEYHOLD_MASTERKEY: TEST_MASTER_KEY, KEYHOLD_PORT: '0', KEYHOLD_DATA_DIR: dataDir, KEYHOLD_LOG_LEVEL: 'silent' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(started.status).toBe(1);
      expect(started.stderr).toContain(`keyhold: could not start: the database was migrated by Keyhold 9.1.0: it has 1 migration this Keyhold ${KEYHOLD_VERSION} does not know.`);
      // Refused under the migration lock, which it released; nothing changed.
      const raw = postgres(created.url, { max: 1, onnotice: () => {} });
      await raw`delete from drizzle.__drizzle_migrations where created_at > ${newest.when}`;
      await raw.end();
      db = await openDatabase({ databaseUrl: created.url, dataDir, keyholdVersion: '0.5.0', onMigrated: (r) => runs.push(r) });
      expect(await recorded(db)).toEqual({ version: '9.1.0', migration: '0099_from_the_future', records: migrations.length });
      // Nothing more ran than the first start's migrations.
      expect(runs).toHaveLength(migrations.length - 15);
      await db.close();
    } finally {
      await created.drop();
    }
  });
});
