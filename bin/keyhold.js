#!/usr/bin/env node
// The `keyhold` command (also `npm start`): runs the build of src/main.ts with
// plain Node. `npm install` makes the build (scripts/build-server.mjs, the
// "prepare" script); after editing src/, `npm run build`, or `npm run dev` to
// run the sources through tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runtimeFlagsToAdd } from './runtime-flags.js';

// Node 22+ (V8 12+) optimises the embedded database's WebAssembly with TurboFan
// after start-up, and sizes the young generation from the heap limit: a first
// start on PGlite peaked at 839 MiB and idled at 368 MiB on Node 24, against
// 253 / 240 MiB on Node 20. The flags below bring it to ~246 / ~232 MiB (npm
// run bench, start-up block). V8 reads them only at process start, and
// NODE_OPTIONS may not carry them, so the process replaces itself once with
// them (same pid, same stdio and signals). Flags the operator set win.
const missing = runtimeFlagsToAdd(process.execArgv, process.version);
if (missing.length > 0 && typeof process.execve === 'function') {
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...missing, fileURLToPath(import.meta.url), ...process.argv.slice(2)], process.env);
}

const entry = new URL('../dist/server/keyhold.mjs', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('keyhold: the server is not built (no dist/server/keyhold.mjs); run `npm run build` (npm install builds it too)\n');
  process.exit(1);
}
await import(entry.href);
