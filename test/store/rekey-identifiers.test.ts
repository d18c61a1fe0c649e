// Migration 0001 on a database written by the Keyhold before it: the names
// stored under lower() get Keyhold's keys at the next start (rekey-identifiers.ts),
// colliding ones are kept and reported, and the key columns end NOT NULL.
// Migration 0003 keys usernames once more as login names, unique
// across the instance: the oldest holder keeps the name, later ones stay.
// On PGlite, on PostgreSQL, and on a PostgreSQL database created with LC_CTYPE=C.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import pino from 'pino';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { createEventStore } from '../../src/store/event-store.js';
import { UniqueViolation } from '../../src/store/errors.js';
import { loginUser } from '../../src/queries/passwords.js';
import { findUserByUsername } from '../../src/store/queries/index.js';
import { createReadModel } from '../../src/store/read-model.js';
import { COLLISION_SEPARATOR } from '../../src/store/rekey-identifiers.js';
import { loadConfig } from '../../src/server/config.js';
import { loggerOptions } from '../../src/server/logger.js';
import { startKeyhold } from '../../src/server/start.js';
import { announcePostgresSkip, createPostgresDatabase, postgresAvailable, tempDir, type PostgresDatabase } from '../support/databases.js';

announcePostgresSkip('re-keying names on PostgreSQL');

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A migrations folder holding only 0000_init: the schema of the Keyhold before name keys. */
function migrationsBeforeKeys(): string {
  const source = fileURLToPath(new URL('../../src/store/migrations/', import.meta.url));
  const dir = join(tmpdir(), `keyhold-migrations-0000-${process.pid}`);
  dirs.push(dir);
  mkdirSync(join(dir, 'meta'), { recursive: true });
  copyFileSync(join(source, '0000_init.sql'), join(dir, '0000_init.sql'));
  const journal = JSON.parse(readFileSync(join(source, 'meta', '_journal.json'), 'utf8'));
  journal.entries = journal.entries.filter((e: { tag: string }) => e.tag === '0000_init');
  writeFileSync(join(dir, 'meta', '_journal.json'), JSON.stringify(journal));
  return dir;
}

// Rows as the old Keyhold stored them: its lower() index let these pairs in
// (NFC next to NFD; a zero-width space; on LC_CTYPE=C also different case).
// Inserted oldest first; ids sort like their creation.
const T0 = Date.parse('2026-01-01T00:00:00Z');
const at = (n: number) => new Date(T0 + n * 1000).toISOString();
function legacyStatements(caseTwins: boolean): string[] {
  const user = (id: string, org: string, username: string, n: number) =>
    `insert into users (id, org_id, kind, username, name, description, created_at, changed_at, sequence)
     values ('${id}', '${org}', 'machine', '${username}', 'n', '', '${at(n)}', '${at(n)}', 1)`;
  const app = (id: string, project: string, name: string, n: number) =>
    `insert into apps (id, project_id, org_id, name, created_at, changed_at, sequence)
     values ('${id}', '${project}', 'org-1', '${name}', '${at(n)}', '${at(n)}', 1)`;
  return [
    // Their orgs: the read model refers each user to its org.
    `insert into orgs (id, name, created_at, changed_at, sequence) values ('org-1', 'o', '${at(0)}', '${at(0)}', 1), ('org-2', 'o', '${at(0)}', '${at(0)}', 1) on conflict (id) do nothing`,
    user('u-1', 'org-1', 'Café', 1),
    user('u-2', 'org-1', 'Cafe\u0301', 2), // collides with u-1
    user('u-3', 'org-1', 'ro\u200Bot', 3),
    user('u-4', 'org-1', 'root', 4), // collides with u-3 (older); not 'admin': bootstrap's machine user takes that login name
    user('u-5', 'org-2', 'Café', 5), // another org: no collision
    user('u-6', 'org-1', 'ada', 6),
    app('a-1', 'p-1', 'Shop', 1),
    app('a-2', 'p-1', '\uFF33hop', 2), // full-width S: collides with a-1
    app('a-3', 'p-2', 'Shop', 3), // another project
    app('a-4', 'p-1', 'Web', 4),
    ...(caseTwins ? [user('u-7', 'org-1', 'CAFÉ', 7), app('a-5', 'p-1', 'über', 5), app('a-6', 'p-1', 'ÜBER', 6)] : []),
  ];
}

async function loginKeysOf(database: Database): Promise<Record<string, string>> {
  const users = await database.sql.query<{ id: string; key: string }>({ text: 'select id, login_name_key as key from users order by id', params: [] });
  return Object.fromEntries(users.map((r) => [r.id, r.key]));
}

async function keysOf(database: Database): Promise<Record<string, string>> {
  const users = await database.sql.query<{ id: string; key: string }>({ text: 'select id, username_key as key from users order by id', params: [] });
  const apps = await database.sql.query<{ id: string; key: string }>({ text: 'select id, name_key as key from apps order by id', params: [] });
  return Object.fromEntries([...users, ...apps].map((r) => [r.id, r.key]));
}

async function notNull(database: Database): Promise<string[]> {
  const rows = await database.sql.query<{ column_name: string; is_nullable: string }>({
    text: `select column_name, is_nullable from information_schema.columns where table_schema = current_schema() and column_name in ('username_key', 'name_key', 'login_name_key') order by column_name`,
    params: [],
  });
  return rows.map((r) => `${r.column_name} ${r.is_nullable}`);
}

/** What every backend must show after opening the old database with today's Keyhold. */
async function expectRekeyed(database: Database, caseTwins: boolean): Promise<void> {
  const sep = COLLISION_SEPARATOR;
  const expected: Record<string, string> = {
    'u-1': 'café',
    'u-2': `café${sep}u-2`,
    'u-3': 'root',
    'u-4': `root${sep}u-4`,
    'u-5': 'café',
    'u-6': 'ada',
    'a-1': 'shop',
    'a-2': `shop${sep}a-2`,
    'a-3': 'shop',
    'a-4': 'web',
    ...(caseTwins ? { 'u-7': `café${sep}u-7`, 'a-5': 'über', 'a-6': `über${sep}a-6` } : {}),
  };
  expect(await keysOf(database)).toEqual(expected);
  // Login names: u-5 ("Café" of org-2) now collides with u-1 across the instance.
  const login: Record<string, string> = {
    'u-1': 'café',
    'u-2': `café${sep}u-2`,
    'u-3': 'root',
    'u-4': `root${sep}u-4`,
    'u-5': `café${sep}u-5`,
    'u-6': 'ada',
    ...(caseTwins ? { 'u-7': `café${sep}u-7` } : {}),
  };
  expect(await loginKeysOf(database)).toEqual(login);
  expect(database.rekey.rekeyed).toBe(Object.keys(expected).length + Object.keys(login).length);
  expect(database.rekey.collisions).toEqual([
    { table: 'users', scopeId: 'org-1', keptId: 'u-1', rekeyedId: 'u-2' },
    { table: 'users', scopeId: 'org-1', keptId: 'u-3', rekeyedId: 'u-4' },
    ...(caseTwins ? [{ table: 'users', scopeId: 'org-1', keptId: 'u-1', rekeyedId: 'u-7' }] : []),
    { table: 'users', scopeId: 'instance', keptId: 'u-1', rekeyedId: 'u-2' },
    { table: 'users', scopeId: 'instance', keptId: 'u-3', rekeyedId: 'u-4' },
    { table: 'users', scopeId: 'instance', keptId: 'u-1', rekeyedId: 'u-5' },
    ...(caseTwins ? [{ table: 'users', scopeId: 'instance', keptId: 'u-1', rekeyedId: 'u-7' }] : []),
    { table: 'apps', scopeId: 'p-1', keptId: 'a-1', rekeyedId: 'a-2' },
    ...(caseTwins ? [{ table: 'apps', scopeId: 'p-1', keptId: 'a-5', rekeyedId: 'a-6' }] : []),
  ]);
  expect(await notNull(database)).toEqual(['login_name_key NO', 'name_key NO', 'username_key NO']);

  // Lookups by any spelling find the row that kept the name.
  expect((await findUserByUsername(database.db, 'org-1', 'CAFÉ'))?.id).toBe('u-1');
  expect((await findUserByUsername(database.db, 'org-1', 'ROOT'))?.id).toBe('u-3');
  // The login: a name several orgs' users held before is ambiguous without the org scope, and each org's with it.
  const read = createReadModel(database);
  expect(await loginUser(read, 'CAFÉ')).toEqual({ found: 'several' });
  expect(await loginUser(read, 'café', 'org-2')).toMatchObject({ found: 'one', user: { id: 'u-5' } });
  expect(await loginUser(read, 'Café', 'org-1')).toMatchObject({ found: 'one', user: { id: 'u-1' } });
  expect(await loginUser(read, 'ada')).toMatchObject({ found: 'one', user: { id: 'u-6' } });
  expect(await loginUser(read, 'nobody')).toEqual({ found: 'none' });
  // And the kept names are taken for new writes, in any spelling.
  const store = createEventStore(database);
  const err = await store
    .append(
      [{ type: 'app.added', aggregateType: 'app', aggregateId: 'a-new', payload: { projectId: 'p-1', name: 'SHOP' }, resourceOwner: 'org-1', creator: 'x' }],
      [{ aggregateType: 'app', aggregateId: 'a-new', sequence: 0 }],
    )
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UniqueViolation);
  expect((err as UniqueViolation).constraint).toBe('apps_project_name_key');
}

describe('re-keying names stored before migration 0001 (PGlite)', () => {
  it('keys every row, keeps the oldest of colliding names, reports the others, and is done for good', async () => {
    const dataDir = await tempDir();
    dirs.push(dataDir);
    const old = await PGlite.create({ dataDir: join(dataDir, 'pgdata') });
    await migratePglite(drizzlePglite(old), { migrationsFolder: migrationsBeforeKeys() });
    for (const statement of legacyStatements(false)) await old.query(statement);
    await old.close();

    const database = await openDatabase({ dataDir });
    try {
      await expectRekeyed(database, false);
    } finally {
      await database.close();
    }
    // The next start finds the columns NOT NULL and does nothing.
    const again = await openDatabase({ dataDir });
    try {
      expect(again.rekey).toEqual({ rekeyed: 0, collisions: [] });
    } finally {
      await again.close();
    }
  }, 120_000);

  it('a start on such a database logs each collision with both ids, and serves', async () => {
    const dataDir = await tempDir();
    dirs.push(dataDir);
    const old = await PGlite.create({ dataDir: join(dataDir, 'pgdata') });
    await migratePglite(drizzlePglite(old), { migrationsFolder: migrationsBeforeKeys() });
    for (const statement of legacyStatements(false)) await old.query(statement);
    await old.close();

    const config = loadConfig({ KEYHOLD_PORT: '0', KEYHOLD_DATA_DIR: dataDir, KEYHOLD_LOG_LEVEL: 'info' });
    const lines: string[] = [];
    const log = pino(loggerOptions(config), { write: (l: string) => void lines.push(l) });
    const running = await startKeyhold(config, log);
    try {
      const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
      expect(warnings.map((w) => [w.table, w.scopeId, w.keptId, w.rekeyedId])).toEqual([
        ['users', 'org-1', 'u-1', 'u-2'],
        ['users', 'org-1', 'u-3', 'u-4'],
        ['users', 'instance', 'u-1', 'u-2'],
        ['users', 'instance', 'u-3', 'u-4'],
        ['users', 'instance', 'u-1', 'u-5'],
        ['apps', 'p-1', 'a-1', 'a-2'],
      ]);
      expect(lines.some((l) => JSON.parse(l).rows === 16)).toBe(true);
      expect(running.bootstrap).toBeTruthy();
      const token = readFileSync(config.adminPatFile, 'utf8').trim();
      const { createClient } = await import('@connectrpc/connect');
      const { createGrpcTransport } = await import('@connectrpc/connect-node');
      const client = createClient(ManagementService, createGrpcTransport({ baseUrl: `http://localhost:${running.port}`, interceptors: [(next) => (req) => (req.header.set('authorization', `Bearer ${token}`), next(req))] }));
      expect((await client.addProject({ name: 'After the upgrade' })).id).toBeTruthy();
    } finally {
      await running.stop();
    }
  }, 120_000);
});

describe.skipIf(!postgresAvailable).each([
  { label: 'C.UTF-8', locale: undefined, caseTwins: false },
  // lower() of LC_CTYPE=C lowercases ASCII only: the old index let "CAFÉ" in beside "Café", "ÜBER" beside "über".
  { label: 'LC_COLLATE=C, LC_CTYPE=C', locale: 'C' as const, caseTwins: true },
])('re-keying names stored before migration 0001 (PostgreSQL $label)', ({ locale, caseTwins }) => {
  const created: PostgresDatabase[] = [];
  afterAll(async () => {
    await Promise.all(created.map((d) => d.drop()));
  });

  it('keys every row with Keyhold\'s keys, not the locale\'s, and is done for good', async () => {
    const pg = await createPostgresDatabase({ locale });
    created.push(pg);
    const old = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      await migratePostgres(drizzlePostgres(old), { migrationsFolder: migrationsBeforeKeys() });
      for (const statement of legacyStatements(caseTwins)) await old.unsafe(statement);
      if (caseTwins) {
        // The old index really took both spellings on this locale (what the keys prevent).
        const [{ n }] = await old`select count(*)::int as n from apps where project_id = 'p-1' and lower(name) in ('über', 'Über')`;
        expect(n).toBe(2);
      }
    } finally {
      await old.end();
    }
    const dataDir = await tempDir();
    dirs.push(dataDir);
    const database = await openDatabase({ databaseUrl: pg.url, dataDir });
    try {
      await expectRekeyed(database, caseTwins);
    } finally {
      await database.close();
    }
    const again = await openDatabase({ databaseUrl: pg.url, dataDir });
    try {
      expect(again.rekey).toEqual({ rekeyed: 0, collisions: [] });
    } finally {
      await again.close();
    }
  }, 120_000);
});
