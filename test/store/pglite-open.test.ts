// How a PGlite data directory gets its database (src/store/pglite-open.ts):
// a copy of the build's template, or initdb in a child process; private
// modes either way, nothing half-made left behind; shared_buffers as configured;
// prepared statements planned once, and a plan kept from a small table still
// looks rows up by index once the table has grown.
// A template without its empty directories (a release package keeps files
// only) still gives a working database.
import { cpSync, existsSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { preparePgdata, usableTemplate } from '../../src/store/pglite-open.js';
import { securePgliteDir } from '../../src/store/private-data-dir.js';
import { tempDir } from '../support/databases.js';
import { repoRoot } from '../support/keyhold.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});
async function dir(): Promise<string> {
  const d = await tempDir();
  dirs.push(d);
  return d;
}

/** Paths below `root` whose mode lets the group or others in. */
function shared(root: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = statSync(p);
    if ((st.mode & 0o077) !== 0) out.push(p);
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
  };
  walk(root);
  return out;
}

const showSharedBuffers = async (db: Awaited<ReturnType<typeof openDatabase>>) =>
  ((await db.db.execute(sql`show shared_buffers`)) as unknown as { rows: { shared_buffers: string }[] }).rows[0].shared_buffers;

const showPlanCacheMode = async (db: Awaited<ReturnType<typeof openDatabase>>) =>
  ((await db.db.execute(sql`show plan_cache_mode`)) as unknown as { rows: { plan_cache_mode: string }[] }).rows[0].plan_cache_mode;

describe('PGlite plans', () => {
  it('a lookup by key planned on a vacuumed table of three rows still uses the index once it holds 20,000', { timeout: 120_000 }, async () => {
    const database = await openDatabase({ dataDir: await dir() });
    try {
      const q = (text: string) => database.sql.query<Record<string, string>>({ text, params: [] });
      await q(`insert into oidc_payloads (model, key, payload, expires_at)
        select 'AccessToken', 'small' || g, '{}'::jsonb, now() + interval '1 hour' from generate_series(1, 3) g`);
      // What the housekeeping does after a sweep: the table's recorded size is now a page.
      await q('vacuum oidc_payloads');
      await q(`prepare lookup(text[], text) as
        select payload from oidc_payloads where model = any($1) and key = $2 and (expires_at is null or expires_at > now())`);
      for (let i = 0; i < 8; i++) await q(`execute lookup('{AccessToken}', 'small1')`);
      await q(`insert into oidc_payloads (model, key, payload, expires_at)
        select 'AccessToken', 'grown' || g, '{}'::jsonb, now() + interval '1 hour' from generate_series(1, 20000) g`);
      const plan = (await q(`explain execute lookup('{AccessToken}', 'grown7')`)).map((row) => row['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Index (Only )?Scan using oidc_payloads_pkey/);
      expect(plan).not.toMatch(/Seq Scan/);
    } finally {
      await database.close();
    }
  });
});

describe('PGlite first start', () => {
  it('copies the build template: a working database, owner-only, no staging directory left, shared_buffers 16MB, plans kept', { timeout: 120_000 }, async () => {
    const dataDir = await dir();
    const database = await openDatabase({ dataDir });
    try {
      expect(await showSharedBuffers(database)).toBe('16MB');
      // A prepared statement is planned once, not at every call (pglite-open.ts, 5.).
      expect(await showPlanCacheMode(database)).toBe('force_generic_plan');
    } finally {
      await database.close();
    }
    expect(existsSync(join(dataDir, 'pgdata', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dataDir, 'pgdata.initdb'))).toBe(false);
    expect(shared(join(dataDir, 'pgdata'))).toEqual([]);
  });

  it("copies a template that lost its empty directories, as npm pack's tarball delivers it: they are made again", { timeout: 120_000 }, async () => {
    const built = join(repoRoot, 'dist/server/pgdata-template');
    const template = join(await dir(), 'pgdata-template');
    cpSync(built, template, { recursive: true });
    cpSync(`${built}.json`, `${template}.json`);
    const removeEmpty = (p: string): number => {
      let removed = 0;
      for (const e of readdirSync(p, { withFileTypes: true })) if (e.isDirectory()) removed += removeEmpty(join(p, e.name));
      if (p !== template && readdirSync(p).length === 0) {
        rmdirSync(p);
        removed++;
      }
      return removed;
    };
    expect(removeEmpty(template)).toBeGreaterThan(0);
    const dataDir = await dir();
    const pgdata = join(dataDir, 'pgdata');
    securePgliteDir(dataDir, pgdata);
    await preparePgdata(dataDir, pgdata, template);
    for (const d of ['pg_notify', 'pg_tblspc', 'pg_wal/archive_status']) expect(existsSync(join(pgdata, d)), d).toBe(true);
    const database = await openDatabase({ dataDir });
    try {
      expect(await showSharedBuffers(database)).toBe('16MB');
    } finally {
      await database.close();
    }
  });

  it("a template whose stamp names a directory outside the copy is not used", async () => {
    const built = join(repoRoot, 'dist/server/pgdata-template');
    const template = join(await dir(), 'pgdata-template');
    cpSync(built, template, { recursive: true });
    cpSync(`${built}.json`, `${template}.json`);
    expect(usableTemplate(template)).toBe(template);
    const stamp = JSON.parse(readFileSync(`${built}.json`, 'utf8')) as { directories: string[] };
    for (const outside of ['../escaped', '/tmp/escaped', 'pg_wal/../../escaped']) {
      writeFileSync(`${template}.json`, JSON.stringify({ ...stamp, directories: [...stamp.directories, outside] }));
      expect(usableTemplate(template), outside).toBeUndefined();
    }
  });

  it('without a template, initdb runs in a child process into the same private layout', { timeout: 180_000 }, async () => {
    const dataDir = await dir();
    const pgdata = join(dataDir, 'pgdata');
    securePgliteDir(dataDir, pgdata);
    await preparePgdata(dataDir, pgdata, undefined);
    expect(existsSync(join(pgdata, 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dataDir, 'pgdata.initdb'))).toBe(false);
    expect(shared(pgdata)).toEqual([]);
    // And it opens as a restart does.
    const database = await openDatabase({ dataDir, pgliteSharedBuffers: '32MB' });
    try {
      expect(await showSharedBuffers(database)).toBe('32MB');
    } finally {
      await database.close();
    }
  });
});
