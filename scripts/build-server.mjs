#!/usr/bin/env node
// Builds the server to JavaScript in dist/server/, so `npm start` and the
// `keyhold` bin run plain `node` (tsx is for development and tests only).
// Runs from `npm install` (the "prepare" script) and `npm run build`.
//
// One esbuild bundle of Keyhold's own code (src/ and gen/); packages stay
// external and load from node_modules as they are (PGlite finds its wasm
// files, postgres.js keeps the repairs scripts/patch-postgres-js.mjs made).
// Why a bundle rather than tsc's file-per-file output: one file to read and
// compile instead of about 120 modules (start-up time).
//
//   dist/server/keyhold.mjs        src/main.ts: the command line, loading the server only when it starts
//   dist/server/chunk-*.mjs        the server (code split at main.ts's dynamic import)
//   dist/server/verify-worker.mjs  src/server/verify-worker.ts: the verification thread's body
//   dist/server/migrations/        src/store/migrations, copied
//   dist/server/pgdata-template/   an initdb'd PGlite data directory a first start copies
//                                  (src/store/pglite-open.ts: a first start without initdb's memory)
//   dist/server/build-info.json    the commit the build was made from (`keyhold --version`)
//
// Paths the code resolves from import.meta.url keep working because
// dist/server/ sits as deep below the package root as src/server/ and
// src/store/ do, and every output file is directly in it: the migrations
// (./migrations), the verification thread (./verify-worker.mjs), the console
// (../../console/dist) and package.json (../../package.json).
//
//   node scripts/build-server.mjs            build
//   node scripts/build-server.mjs --if-stale build only when a source is newer than the last build
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_DIST_DIR = path.join(repoRoot, 'dist/server');
const STAMP = '.build-stamp';

/** Newest modification time (ms) of what the build is made from. */
function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  walk(path.join(repoRoot, 'src'));
  walk(path.join(repoRoot, 'gen'));
  for (const f of ['scripts/build-server.mjs', 'package.json', 'package-lock.json']) {
    newest = Math.max(newest, statSync(path.join(repoRoot, f), { throwIfNoEntry: false })?.mtimeMs ?? 0);
  }
  return newest;
}

export function isStale(outDir = SERVER_DIST_DIR) {
  const stamp = statSync(path.join(outDir, STAMP), { throwIfNoEntry: false });
  return !stamp || stamp.mtimeMs < newestSource();
}

/**
 * The commit the sources are at, "-dirty" when tracked files differ from it, or "unknown"
 * outside a git checkout (a source archive). Read once per build: the build is what runs.
 */
function sourceCommit() {
  try {
    // --exclude='*': the abbreviated commit, never a tag name.
    return execFileSync('git', ['describe', '--always', '--dirty', '--abbrev=10', '--exclude=*'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Builds into a temporary directory and swaps it in, so a running server never sees a half-written build. */
export async function buildServer({ outDir = SERVER_DIST_DIR } = {}) {
  const { build } = await import('esbuild');
  const tmp = `${outDir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(tmp, { recursive: true });
  try {
    await build({
      absWorkingDir: repoRoot,
      entryPoints: {
        keyhold: path.join(repoRoot, 'src/main.ts'),
        'verify-worker': path.join(repoRoot, 'src/server/verify-worker.ts'),
        'pglite-template': path.join(repoRoot, 'src/store/pglite-template.ts'),
      },
      outdir: tmp,
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunk-[hash]',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20.11',
      packages: 'external',
      // Not minified: stack traces in logs keep Keyhold's function names.
      minify: false,
      sourcemap: 'linked',
      logLevel: 'warning',
    });
    cpSync(path.join(repoRoot, 'src/store/migrations'), path.join(tmp, 'migrations'), { recursive: true });
    // initdb once, in a child process of the built code (seconds; the first start of every data directory saves them).
    execFileSync(process.execPath, [path.join(tmp, 'pglite-template.mjs'), path.join(tmp, 'pgdata-template')], { stdio: 'inherit' });
    writeFileSync(path.join(tmp, 'build-info.json'), `${JSON.stringify({ commit: sourceCommit() })}\n`);
    writeFileSync(path.join(tmp, STAMP), `${new Date().toISOString()}\n`);

    const old = `${outDir}.old-${process.pid}-${Date.now()}`;
    if (existsSync(outDir)) renameSync(outDir, old);
    renameSync(tmp, outDir);
    rmSync(old, { recursive: true, force: true });
    return { outDir, files: readdirSync(outDir).filter((f) => !f.startsWith('.')) };
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const ifStale = process.argv.includes('--if-stale');
  try {
    if (ifStale && !isStale()) process.exit(0);
    const started = Date.now();
    const { files } = await buildServer();
    console.log(`server: built ${files.length} files into dist/server in ${Date.now() - started} ms`);
  } catch (e) {
    if (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('esbuild')) {
      // An install without devDependencies: it goes on; `keyhold` then says how to build.
      console.warn('server: esbuild is not installed (devDependencies omitted?); Keyhold is not built: run `npm install` with devDependencies, or `npm run build`.');
      process.exit(0);
    }
    console.error(`server: build failed: ${e?.message ?? e}`);
    process.exit(1);
  }
}
