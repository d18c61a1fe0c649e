// How Keyhold starts its embedded PostgreSQL (PGlite 0.5.16): the one place
// that decides PGlite's memory at start-up (figures from bench/startup.mjs and a
// bare PGlite.create on 2 shared cores).
//
// 1. initdb runs in a short-lived child process. On a new data directory,
//    PGlite.create runs initdb inside the calling process: a second PGlite
//    engine plus initdb's own WebAssembly instance. WebAssembly memory never
//    shrinks while its instance lives, and the freed instances wait for a full
//    GC that an idle server never triggers: Keyhold's first start peaked at
//    891 MiB (VmHWM) and idled at 812 MiB, a restart of the same directory at
//    373 MiB. In a child, initdb's memory goes back to the system when the
//    child exits; this process then opens the prepared directory as a restart
//    does. The child writes to a staging directory inside the (owner-only)
//    data directory, which is made private and renamed into place only once
//    initdb succeeded: a start that fails half way leaves no half-made pgdata.
//
// 2. shared_buffers = 16MB (PostgreSQL's default, initdb's choice here, is
//    128MB). In single-user PGlite the buffer pool is ordinary WebAssembly heap,
//    zeroed at start, so all of it is resident from the first moment: a bare
//    PGlite restart idled at 313 MiB with 128MB and 168 MiB with 16MB. Pages
//    that do not fit are read back through the OS page cache. Durability is
//    untouched: the same start parameters as PGlite's defaults otherwise, the
//    same WAL and the same commits. The price is speed on a database larger
//    than the pool: a bare PGlite writing and reading ~100 MB did 26–28 % fewer
//    inserts/s and 24–52 % fewer indexed reads/s with 16MB than with 128MB, so
//    KEYHOLD_PGLITE_SHARED_BUFFERS sets it (the command-line setting wins over
//    postgresql.conf, also in existing data directories).
//
// 3. A template made at install time. Even in a child, initdb peaked at
//    ~840 MiB (the child's VmHWM) and took most of a first start. `npm run
//    build` (also run by `npm install`) runs it once into
//    dist/server/pgdata-template, stamped with the PGlite version and initdb's
//    settings; a first start copies that directory (owner-only, see above)
//    instead, with nothing but a restart's memory. Each build makes its own (a
//    release package carries its build's), so data directories made from one
//    build share PostgreSQL's system identifier (pg_control), which nothing in
//    PGlite or Keyhold reads. Without a fitting template (a build without it,
//    another PGlite), initdb runs in the child. The stamp also lists the
//    template's directories, and a copy makes every one of them: a package
//    (npm pack's tarball) keeps files only, and PostgreSQL does not start
//    without its empty ones (pg_notify, pg_tblspc, pg_wal/archive_status…).
//
// 4. One WebAssembly compile task. V8 compiles PGlite's hot functions again
//    with its optimizing compiler (dynamic tier-up) on background threads,
//    as many at once as it has threads. Each compile job's working memory is
//    malloc'd on its thread; freed, it stays in that thread's malloc arena,
//    fragmented, for the life of the process. Start-up alone (migrations,
//    bootstrap) tiers up enough of PostgreSQL to leave 50–60 MiB there: idle
//    RSS after a first start 251–265 MiB with V8's default, 225–244 MiB with
//    one task (3 runs each; with no optimizing tier at all, 199–206 MiB, but
//    PGlite's queries then run on baseline code). One task compiles the same
//    functions one after the other: the same code, ready a little later, on a
//    2-core machine where the tasks competed with the event loop anyway.
//    V8 reads the flag when it schedules compile jobs, so it is set before
//    the first PGlite instance compiles; it concerns WebAssembly only.
//
// 5. Plans: plan_cache_mode = force_generic_plan and enable_seqscan = off.
//    A prepared statement whose parameter the planner sizes, as
//    `model = any($1::text[])` in the token lookup, looked cheaper planned for
//    each call's values than planned once, so it was planned at every call, on
//    the main thread, each planning asking for the size of every table and
//    index it weighs: a seek to the file's end, which the WebAssembly file
//    system answers with an fstat (9.4% of the main thread at userinfo).
//    Paired runs (c=64, before → after): userinfo 679 / 791 → 932 / 1,104/s,
//    introspection 611 / 765 → 802 / 1,070/s, refresh 261 / 288 / 345 →
//    295 / 301 / 356/s; client credentials, AddOIDCApp and logins within their
//    noise. The setting applies to drizzle's unnamed statements too (planned
//    at each call either way): a `limit $n` or `any($n)` is then sized by
//    default, as every other condition already is here, since PGlite runs no
//    ANALYZE and keeps no column statistics.
//    A kept plan is only as good as the table it was made on. The
//    housekeeping's vacuum (pglite-database.ts, reclaim) records a table's
//    true size, and on a table of a page or two a sequential scan is the
//    cheapest plan, also for a lookup by key: kept, with PostgreSQL's default
//    plan cache mode as well as with this one, it made each token lookup
//    11-15 ms once the table had grown to 100,000 rows, until the next
//    vacuum. Without sequential scans where an index serves, the same lookups
//    took 0.1-0.4 ms; statements that no index serves still scan the table.
//    Only for PGlite: PostgreSQL's autovacuum and autoanalyze keep its
//    figures current, and there plan_cache_mode took its CPU at userinfo from
//    36% to 24% of the machine but no rate rose (they are bound by Keyhold's
//    main thread), and refresh fell in both pairs (592 / 561 → 462 / 512/s).
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { dirname, isAbsolute, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PrivateNodeFS, securePgdata } from './private-data-dir.js';

/** The default of KEYHOLD_PGLITE_SHARED_BUFFERS. */
export const PGLITE_SHARED_BUFFERS = '16MB';

/** PGlite's own start parameters plus Keyhold's buffer pool (2. above) and plan settings (5.). */
export const pgliteStartParams = (sharedBuffers = PGLITE_SHARED_BUFFERS): string[] => [
  ...PGlite.defaultStartParams,
  ...['-c', `shared_buffers=${sharedBuffers}`],
  ...['-c', 'plan_cache_mode=force_generic_plan', '-c', 'enable_seqscan=off'], // 5. above
];
/** initdb's settings: the same buffer pool in postgresql.conf. */
const INITDB_PARAMS = ['--set', `shared_buffers=${PGLITE_SHARED_BUFFERS}`];

const require = createRequire(import.meta.url);

// The child's whole program: plain CommonJS (no TypeScript loader needed, in
// the build or under tsx/vitest), PGlite's files resolved by this process.
const CHILD = `
const [pglite, nodefs, dir, params, initdb] = process.argv.slice(1);
const { PGlite } = require(pglite);
const { NodeFS } = require(nodefs);
PGlite.create({ fs: new NodeFS(dir), startParams: JSON.parse(params), initDbStartParams: JSON.parse(initdb) })
  .then((pg) => pg.close())
  .then(() => process.exit(0), (err) => { process.stderr.write(String(err && err.stack || err)); process.exit(1); });
`;

/** Runs initdb into `target` (a new directory) in a child process (1. above). */
async function initdbInChild(target: string): Promise<void> {
  rmSync(target, { recursive: true, force: true });
  const args = ['-e', CHILD, require.resolve('@electric-sql/pglite'), require.resolve('@electric-sql/pglite/nodefs'), target, JSON.stringify(pgliteStartParams()), JSON.stringify(INITDB_PARAMS)];
  const stderr: Buffer[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    child.once('error', reject);
    child.once('exit', (c) => resolve(c));
  });
  if (code !== 0 || !existsSync(join(target, 'PG_VERSION'))) {
    rmSync(target, { recursive: true, force: true });
    throw new Error(`PGlite initdb (child process) failed with exit code ${code}: ${Buffer.concat(stderr).toString('utf8').slice(-2000)}`);
  }
}

/** What a template must have been made with to be used: this PGlite and these initdb settings. */
function templateStamp(): { pglite: string; initdb: readonly string[] } {
  const pkg = JSON.parse(readFileSync(join(dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json'), 'utf8')) as { version: string };
  return { pglite: pkg.version, initdb: INITDB_PARAMS };
}

// dist/server/ and src/store/ are both two levels below the package root.
const TEMPLATE_DIR = fileURLToPath(new URL('../../dist/server/pgdata-template', import.meta.url));
const templateStampFile = (template: string) => `${template}.json`;

/**
 * Makes the template (3. above) into `template`: `npm run build` calls this
 * (scripts/build-server.mjs, through dist/server/pglite-template.mjs).
 */
export async function writePgdataTemplate(template: string): Promise<void> {
  await initdbInChild(template);
  // PGlite wrote 0666 files (./private-data-dir.ts): nobody but the owner may change what every new database starts from.
  readOnlyForOthers(template);
  writeFileSync(templateStampFile(template), `${JSON.stringify({ ...templateStamp(), directories: directoriesBelow(template) })}\n`);
}

/** Every directory below `root`, relative to it, parents first. */
function directoriesBelow(root: string, below = ''): string[] {
  return readdirSync(join(root, below), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => [join(below, e.name), ...directoriesBelow(root, join(below, e.name))]);
}

/** Directories 0755, files 0644: the template holds no secret (no Keyhold data yet), only others' writes matter. */
function readOnlyForOthers(path: string): void {
  const stat = lstatSync(path);
  if (stat.isDirectory()) {
    chmodSync(path, 0o755);
    for (const name of readdirSync(path)) readOnlyForOthers(join(path, name));
  } else if (stat.isFile()) chmodSync(path, 0o644);
}

/** The template's directories when it fits this PGlite and these settings, else undefined. */
function templateDirectories(template: string): string[] | undefined {
  try {
    if (!existsSync(join(template, 'PG_VERSION'))) return undefined;
    const stamp = JSON.parse(readFileSync(templateStampFile(template), 'utf8')) as { pglite?: unknown; initdb?: unknown; directories?: unknown };
    const wanted = templateStamp();
    if (stamp.pglite !== wanted.pglite || JSON.stringify(stamp.initdb) !== JSON.stringify(wanted.initdb)) return undefined;
    const dirs = stamp.directories;
    // Only paths inside the copy: the list comes from a file.
    const inside = (d: unknown): d is string => typeof d === 'string' && d !== '' && !isAbsolute(d) && !normalize(d).startsWith('..');
    return Array.isArray(dirs) && dirs.every(inside) ? dirs : undefined;
  } catch {
    return undefined;
  }
}

/** `template` when a first start may copy it. Exported for tests. */
export function usableTemplate(template = TEMPLATE_DIR): string | undefined {
  return templateDirectories(template) ? template : undefined;
}

/**
 * Gives a data directory without a database one: a copy of the template, else
 * initdb in a child. Exported for tests (`template` undefined: no template).
 */
export async function preparePgdata(dataDir: string, pgdata: string, template = usableTemplate()): Promise<void> {
  if (existsSync(join(pgdata, 'PG_VERSION'))) return;
  // Anything else already in pgdata is left to PGlite's own handling, as before.
  if (existsSync(pgdata) && readdirSync(pgdata).length > 0) return;
  const staging = join(dataDir, 'pgdata.initdb');
  rmSync(staging, { recursive: true, force: true });
  let copied = false;
  if (template) {
    try {
      const directories = templateDirectories(template);
      if (directories) {
        cpSync(template, staging, { recursive: true });
        // The empty ones a package left out (3. above).
        for (const d of directories) mkdirSync(join(staging, d), { recursive: true });
        copied = true;
      }
    } catch {
      // Unreadable (another user's install?) or half copied: initdb instead, as without a template.
    }
  }
  if (!copied) await initdbInChild(staging);
  securePgdata(staging, dataDir);
  if (existsSync(pgdata)) rmdirSync(pgdata); // empty (checked above)
  renameSync(staging, pgdata);
}

/** 4. above: the V8 flag that bounds WebAssembly compile jobs running at once. */
const WASM_COMPILE_TASKS = '--wasm-num-compilation-tasks=1';

/** Opens PGlite on `pgdata` (made private by securePgliteDir before). */
export async function openPgliteEngine(dataDir: string, pgdata: string, sharedBuffers = PGLITE_SHARED_BUFFERS): Promise<PGlite> {
  await preparePgdata(dataDir, pgdata);
  setFlagsFromString(WASM_COMPILE_TASKS); // 4. above
  return PGlite.create({ fs: new PrivateNodeFS(pgdata), startParams: pgliteStartParams(sharedBuffers) });
}
