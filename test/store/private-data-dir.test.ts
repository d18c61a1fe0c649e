// The PGlite data directory is its owner's alone: 0700 directories and 0600
// files after every start, also for files PGlite makes later (relations, WAL
// segments, pg_internal.init), whatever the process umask — and a directory
// left open to others that Keyhold cannot change stops the start, naming it.
// Real Keyholds on real PGlite directories; real mounts and a real second user
// where the suite runs as root (as CI does), skipped by name elsewhere.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, cpSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { DataDirPermissions } from '../../src/store/errors.js';
import { isShared } from '../../src/store/private-data-dir.js';
import { repoRoot, startTestKeyhold } from '../support/keyhold.js';
import { pgliteDirFromTemplate, tempDir } from '../support/databases.js';

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** Every path under `dir` (itself included) whose mode is not 0700 (directory) or 0600 (file), with its mode. */
function notPrivate(dir: string): { paths: number; wrong: Record<string, string> } {
  const wrong: Record<string, string> = {};
  let paths = 0;
  const walk = (path: string) => {
    const st = lstatSync(path);
    paths++;
    const mode = st.mode & 0o777;
    if (mode !== (st.isDirectory() ? 0o700 : 0o600)) wrong[path.slice(dir.length) || '/'] = mode.toString(8);
    if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return { paths, wrong };
}

/** What an earlier Keyhold left under umask 0022: directories 0755, files 0666. */
function openUp(dir: string): void {
  const walk = (path: string) => {
    const st = lstatSync(path);
    chmodSync(path, st.isDirectory() ? 0o755 : 0o666);
    if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
}

describe('the PGlite data directory is private', () => {
  let umask: number;
  beforeEach(() => {
    umask = process.umask(0o022); // what most shells hand a service
  });
  afterEach(() => {
    process.umask(umask);
  });

  it('a first start under umask 0022: every directory 0700 and file 0600, also those made after the start and after the stop', async () => {
    const kh = await startTestKeyhold({ emptyDataDir: true }); // an empty directory: initdb runs
    cleanups.push(() => kh.close());
    const pgdata = join(kh.dataDir, 'pgdata');
    const afterStart = notPrivate(kh.dataDir);
    expect(afterStart.paths).toBeGreaterThan(900);
    expect(afterStart.wrong).toEqual({});

    // Writes through the API, then files PostgreSQL makes while running: a relation, a WAL segment, a checkpoint.
    expect((await kh.rest('POST', '/management/v1/projects', { name: 'private' })).status).toBe(200);
    const db = kh.database.db;
    const walBefore = readdirSync(join(pgdata, 'pg_wal'));
    await db.execute(sql`create table made_later (x int)`);
    await db.execute(sql`insert into made_later select generate_series(1, 1000)`);
    await db.execute(sql`select pg_switch_wal()`);
    await db.execute(sql`insert into made_later select generate_series(1, 10)`);
    await db.execute(sql`checkpoint`);
    const [relation] = await kh.database.sql.query<{ path: string }>({ text: `select pg_relation_filepath('made_later') as path`, params: [] });
    const [wal] = await kh.database.sql.query<{ name: string }>({ text: 'select pg_walfile_name(pg_current_wal_lsn()) as name', params: [] });
    expect(walBefore).not.toContain(wal.name); // a segment made after the start
    expect(lstatSync(join(pgdata, relation.path)).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(pgdata, 'pg_wal', wal.name)).mode & 0o777).toBe(0o600);
    const running = notPrivate(kh.dataDir);
    expect(running.paths).toBeGreaterThan(afterStart.paths);
    expect(running.wrong).toEqual({});

    await kh.stop();
    expect(notPrivate(kh.dataDir).wrong).toEqual({});
  }, 120_000);

  it('a directory an earlier version left open (0755 directories, 0666 files) is private again after the start', async () => {
    const dataDir = await pgliteDirFromTemplate();
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    openUp(dataDir);
    const before = notPrivate(dataDir);
    expect(Object.keys(before.wrong).length).toBe(before.paths);

    const database = await openDatabase({ dataDir });
    cleanups.push(() => database.close());
    expect(notPrivate(dataDir).wrong).toEqual({});
    await database.close();
  }, 60_000);

  it('only owner bits count as private', () => {
    expect([0o700, 0o600, 0o400, 0o500].map(isShared)).toEqual([false, false, false, false]);
    expect([0o755, 0o644, 0o666, 0o710, 0o701, 0o1777, 0o620].map(isShared)).toEqual([true, true, true, true, true, true, true]);
  });
});

describe.skipIf(!isRoot)('a shared data directory that cannot be fixed stops the start (needs root: a second user, a mount)', () => {
  it('npm start as another user (nobody) on a 0777 directory it does not own: exit 1, the message names the path', async () => {
    const dataDir = await tempDir('keyhold-shared-');
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    chmodSync(dataDir, 0o777); // owned by root: nobody may write in it but not chmod it
    // The checkout may sit below a directory nobody cannot enter (CI clones
    // into a 0700 temporary directory): nobody runs it through a bind mount
    // at a path it can reach, the same files.
    const reachable = await tempDir('keyhold-repo-');
    chmodSync(reachable, 0o755);
    const bound = spawnSync('mount', ['--bind', repoRoot, reachable]);
    if (bound.status !== 0) throw new Error(`mount --bind failed: ${bound.stderr}`);
    cleanups.push(() => rmdir(reachable)); // not recursive: never into the checkout if the unmount failed
    cleanups.push(() => spawnSync('umount', [reachable]));
    // Likewise the node binary (CI's second leg unpacks it into a 0700 directory).
    const binDir = await tempDir('keyhold-node-');
    chmodSync(binDir, 0o755);
    cleanups.push(() => rm(binDir, { recursive: true, force: true }));
    const node = join(binDir, 'node');
    cpSync(process.execPath, node);
    chmodSync(node, 0o755);
    const child = spawn(node, ['--import', 'tsx', 'src/main.ts'], {
      cwd: reachable,
      uid: NOBODY,
      gid: NOBODY,
      env: { PATH: process.env.PATH ?? '', HOME: dataDir, KEYHOLD_DATA_DIR: dataDir, KEYHOLD_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.stdout.resume();
    // A Keyhold that starts anyway would run until killed: give it 30 s to refuse.
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('exit', resolve);
      child.once('error', reject); // could not be spawned at all (cwd or node unreachable for nobody)
    });
    clearTimeout(killer);
    expect(code, `it started instead of refusing:\n${stderr.slice(-500)}`).toBe(1);
    expect(stderr).toContain(`keyhold: could not start: Keyhold data directory ${dataDir} has invalid permissions: ${dataDir} is mode 0777`);
    expect(stderr).toContain('could not be changed (EPERM)');
    expect(readdirSync(dataDir)).toEqual([]); // nothing written: no pgdata, no lock
  }, 60_000);

  it('a read-only mount holding a 0755/0666 directory: refused with DataDirPermissions naming the path, nothing opened', async () => {
    const mountPoint = await tempDir('keyhold-ro-');
    cleanups.push(() => rm(mountPoint, { recursive: true, force: true }));
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', mountPoint]);
    if (mounted.status !== 0) throw new Error(`mount failed: ${mounted.stderr}`);
    cleanups.push(() => spawnSync('umount', [mountPoint]));
    const source = await pgliteDirFromTemplate();
    cleanups.push(() => rm(source, { recursive: true, force: true }));
    const dataDir = join(mountPoint, 'data');
    mkdirSync(dataDir);
    cpSync(join(source, 'pgdata'), join(dataDir, 'pgdata'), { recursive: true });
    openUp(dataDir);
    chownSync(dataDir, 0, 0);
    expect(spawnSync('mount', ['-o', 'remount,ro', mountPoint]).status).toBe(0);

    const err = await openDatabase({ dataDir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirPermissions);
    expect((err as Error).message).toMatch(new RegExp(`^Keyhold data directory ${dataDir} has invalid permissions: ${dataDir} is mode 0755 .*\\(EROFS\\)`));
  }, 60_000);
});
