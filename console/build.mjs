#!/usr/bin/env node
// Builds the Keyhold console into console/dist/: one esbuild bundle of
// console/src/main.ts (plain TypeScript + DOM, the generated Connect clients and
// @simplewebauthn/browser), the stylesheet, and index.html pointing at both by
// content-hashed names. src/server/console.ts serves the directory at /console/.
//
// Runs from `npm install` (the "prepare" script), so a fresh clone's
// `npm install && npm start` serves the console with no third command. After
// editing console/src, `npm run build:console` (the console test rebuilds by
// itself when dist is older than a source). The bundle is not committed.
//
//   node console/build.mjs            build
//   node console/build.mjs --if-stale build only when a source is newer than the last build
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const consoleDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(consoleDir, '..');
export const DIST_DIR = path.join(consoleDir, 'dist');
const STAMP = '.build-stamp';

/** Newest modification time (ms) of the files the bundle is made from. */
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
  walk(path.join(consoleDir, 'src'));
  walk(path.join(repoRoot, 'gen'));
  for (const f of ['index.html', 'styles.css', 'build.mjs']) newest = Math.max(newest, statSync(path.join(consoleDir, f)).mtimeMs);
  newest = Math.max(newest, statSync(path.join(repoRoot, 'package-lock.json'), { throwIfNoEntry: false })?.mtimeMs ?? 0);
  return newest;
}

export function isStale(outDir = DIST_DIR) {
  const stamp = statSync(path.join(outDir, STAMP), { throwIfNoEntry: false });
  return !stamp || stamp.mtimeMs < newestSource();
}

/**
 * Builds into a temporary directory and swaps it in, so a running server never
 * sees a half-written dist. Returns the output file names.
 */
export async function buildConsole({ outDir = DIST_DIR, minify = true } = {}) {
  const { build } = await import('esbuild');
  const tmp = `${outDir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(tmp, { recursive: true });
  try {
    const result = await build({
      absWorkingDir: repoRoot,
      entryPoints: { app: path.join(consoleDir, 'src/main.ts'), styles: path.join(consoleDir, 'styles.css') },
      outdir: tmp,
      entryNames: '[name]-[hash]',
      bundle: true,
      format: 'esm',
      platform: 'browser',
      // BigInt (protobuf-es int64) and optional chaining: every browser with WebAuthn L2.
      target: ['es2020', 'chrome109', 'firefox115', 'safari16'],
      minify,
      sourcemap: 'linked',
      legalComments: 'linked',
      metafile: true,
      logLevel: 'warning',
    });
    const outputs = Object.entries(result.metafile.outputs);
    const named = (entry, ext) => {
      const found = outputs.find(([file, o]) => o.entryPoint?.endsWith(entry) && file.endsWith(ext));
      if (!found) throw new Error(`console build: no output for ${entry}`);
      return path.basename(found[0]);
    };
    const appJs = named('src/main.ts', '.js');
    const stylesCss = named('styles.css', '.css');
    const html = readFileSync(path.join(consoleDir, 'index.html'), 'utf8')
      .replaceAll('{{app.js}}', appJs)
      .replaceAll('{{styles.css}}', stylesCss);
    writeFileSync(path.join(tmp, 'index.html'), html);
    writeFileSync(path.join(tmp, STAMP), `${new Date().toISOString()}\n`);

    const old = `${outDir}.old-${process.pid}-${Date.now()}`;
    if (existsSync(outDir)) renameSync(outDir, old);
    renameSync(tmp, outDir);
    rmSync(old, { recursive: true, force: true });
    return { outDir, files: readdirSync(outDir).filter((f) => !f.startsWith('.')), appJs, stylesCss };
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
    const { files } = await buildConsole();
    console.log(`console: built ${files.length} files into console/dist in ${Date.now() - started} ms`);
  } catch (e) {
    if (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('esbuild')) {
      // An install without devDependencies: Keyhold still runs; /console/ says how to build it.
      console.warn('console: esbuild is not installed (devDependencies omitted?); the console at /console/ is not built.');
      process.exit(0);
    }
    console.error(`console: build failed: ${e?.message ?? e}`);
    process.exit(1);
  }
}
