// Migration 0011 on a database written before it, on PGlite and PostgreSQL:
// every app starts without Keyhold's API (apps.api_access false), and every
// stored grant holding the API scope ends with its tokens — none of them
// passed a consent page — while other grants and their tokens stay.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/database.js';
import { announcePostgresSkip, createPostgresDatabase, postgresAvailable, tempDir, type PostgresDatabase } from '../support/databases.js';

announcePostgresSkip('migration 0011 on PostgreSQL');

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A migrations folder holding 0000 to 0010: the schema just before the API audience's setting. */
function migrationsBefore0011(): string {
  const source = fileURLToPath(new URL('../../src/store/migrations/', import.meta.url));
  const dir = join(tmpdir(), `keyhold-migrations-0010-${process.pid}`);
  dirs.push(dir);
  mkdirSync(join(dir, 'meta'), { recursive: true });
  const journal = JSON.parse(readFileSync(join(source, 'meta', '_journal.json'), 'utf8'));
  journal.entries = journal.entries.filter((e: { idx: number }) => e.idx <= 10);
  const tags = new Set(journal.entries.map((e: { tag: string }) => `${e.tag}.sql`));
  for (const file of readdirSync(source)) if (tags.has(file)) copyFileSync(join(source, file), join(dir, file));
  writeFileSync(join(dir, 'meta', '_journal.json'), JSON.stringify(journal));
  return dir;
}

const API = 'urn:keyhold:iam:api:aud';
const payload = (model: string, key: string, body: object, grantId: string | null) =>
  `insert into oidc_payloads (model, key, payload, grant_id, expires_at)
   values ('${model}', '${key}', '${JSON.stringify(body)}'::jsonb, ${grantId ? `'${grantId}'` : 'null'}, now() + interval '1 hour')`;
const BEFORE = [
  `insert into apps (id, project_id, org_id, name, name_key, client_id, created_at, changed_at, sequence)
   values ('a-1', 'p-1', 'org-1', 'Shop', 'shop', 'c-1', now(), now(), 2)`,
  // A grant made silently with the API scope, its tokens; a grant without it, its token.
  payload('Grant', 'g-api', { accountId: 'u-1', clientId: 'c-1', openid: { scope: `openid profile ${API}` } }, null),
  payload('AccessToken', 'hash-at-api', { accountId: 'u-1', clientId: 'c-1', grantId: 'g-api', scope: `openid ${API}` }, 'g-api'),
  payload('RefreshToken', 'hash-rt-api', { accountId: 'u-1', clientId: 'c-1', grantId: 'g-api', scope: `openid ${API}` }, 'g-api'),
  payload('Grant', 'g-own', { accountId: 'u-1', clientId: 'c-1', openid: { scope: 'openid profile' } }, null),
  payload('AccessToken', 'hash-at-own', { accountId: 'u-1', clientId: 'c-1', grantId: 'g-own', scope: 'openid' }, 'g-own'),
  // A scope that only begins like it is not it.
  payload('Grant', 'g-like', { accountId: 'u-1', clientId: 'c-1', openid: { scope: `openid ${API}ience` } }, null),
  payload('Session', 's-1', { accountId: 'u-1' }, null),
];

async function expectMigrated(database: Database): Promise<void> {
  const rows = await database.sql.query<{ model: string; key: string }>({ text: 'select model, key from oidc_payloads order by model, key', params: [] });
  expect(rows.map((r) => `${r.model}:${r.key}`)).toEqual(['AccessToken:hash-at-own', 'Grant:g-like', 'Grant:g-own', 'Session:s-1']);
  const apps = await database.sql.query<{ id: string; api_access: boolean }>({ text: 'select id, api_access from apps', params: [] });
  expect(apps).toEqual([{ id: 'a-1', api_access: false }]);
}

describe('migration 0011 (PGlite)', () => {
  it('ends every grant holding the API scope, with its tokens; apps start without the API', async () => {
    const dataDir = await tempDir();
    dirs.push(dataDir);
    const old = await PGlite.create({ dataDir: join(dataDir, 'pgdata') });
    await migratePglite(drizzlePglite(old), { migrationsFolder: migrationsBefore0011() });
    for (const statement of BEFORE) await old.query(statement);
    await old.close();
    const database = await openDatabase({ dataDir });
    try {
      await expectMigrated(database);
    } finally {
      await database.close();
    }
  }, 120_000);
});

describe.skipIf(!postgresAvailable)('migration 0011 (PostgreSQL)', () => {
  const created: PostgresDatabase[] = [];
  afterAll(async () => {
    await Promise.all(created.map((d) => d.drop()));
  });

  it('ends every grant holding the API scope, with its tokens; apps start without the API', async () => {
    const pg = await createPostgresDatabase();
    created.push(pg);
    const old = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      await migratePostgres(drizzlePostgres(old), { migrationsFolder: migrationsBefore0011() });
      for (const statement of BEFORE) await old.unsafe(statement);
    } finally {
      await old.end();
    }
    const dataDir = await tempDir();
    dirs.push(dataDir);
    const database = await openDatabase({ databaseUrl: pg.url, dataDir });
    try {
      await expectMigrated(database);
    } finally {
      await database.close();
    }
  }, 120_000);
});
