#!/usr/bin/env node
// The `keyhold` command (also `npm start`): runs the build of src/main.ts with
// plain Node. `npm install` makes the build (scripts/build-server.mjs, the
// "prepare" script); after editing src/, `npm run build`, or `npm run dev` to
// run the sources through tsx.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/server/keyhold.mjs', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('keyhold: the server is not built (no dist/server/keyhold.mjs); run `npm run build` (npm install builds it too)\n');
  process.exit(1);
}
await import(entry.href);
