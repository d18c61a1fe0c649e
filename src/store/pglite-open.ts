// How Keyhold starts its embedded PostgreSQL (PGlite 0.5.16): the one place
// that decides PGlite's memory at start-up (issue 21, "Memory and start-up";
// figures from bench/startup.mjs and a bare PGlite.create on 2 shared cores).
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
//    same WAL and the same commits.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, rmdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrivateNodeFS, securePgdata } from './private-data-dir.js';

export const PGLITE_SHARED_BUFFERS = '16MB';

/** PGlite's own start parameters plus Keyhold's memory settings (2. above). */
export const pgliteStartParams = (): string[] => [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`];

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

/** Runs initdb for `pgdata` in a child process (1. above), when it has no database yet. */
async function initdbInChild(dataDir: string, pgdata: string): Promise<void> {
  if (existsSync(join(pgdata, 'PG_VERSION'))) return;
  // Anything else already in pgdata is left to PGlite's own handling, as before.
  if (existsSync(pgdata) && readdirSync(pgdata).length > 0) return;
  const staging = join(dataDir, 'pgdata.initdb');
  rmSync(staging, { recursive: true, force: true });
  const args = ['-e', CHILD, require.resolve('@electric-sql/pglite'), require.resolve('@electric-sql/pglite/nodefs'), staging, JSON.stringify(pgliteStartParams()), JSON.stringify(['--set', `shared_buffers=${PGLITE_SHARED_BUFFERS}`])];
  const stderr: Buffer[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    child.once('error', reject);
    child.once('exit', (c) => resolve(c));
  });
  if (code !== 0 || !existsSync(join(staging, 'PG_VERSION'))) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`PGlite initdb (child process) failed with exit code ${code}: ${Buffer.concat(stderr).toString('utf8').slice(-2000)}`);
  }
  securePgdata(staging, dataDir);
  if (existsSync(pgdata)) rmdirSync(pgdata); // empty (checked above)
  renameSync(staging, pgdata);
}

/** Opens PGlite on `pgdata` (made private by securePgliteDir before). */
export async function openPgliteEngine(dataDir: string, pgdata: string): Promise<PGlite> {
  await initdbInChild(dataDir, pgdata);
  return PGlite.create({ fs: new PrivateNodeFS(pgdata), startParams: pgliteStartParams() });
}
