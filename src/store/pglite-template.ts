// `node dist/server/pglite-template.mjs <dir>`: makes the PGlite data directory
// template a first start copies (./pglite-open.ts, 3.). scripts/build-server.mjs runs it.
import { writePgdataTemplate } from './pglite-open.js';

const target = process.argv[2];
if (!target) {
  process.stderr.write('usage: pglite-template <directory>\n');
  process.exit(2);
}
await writePgdataTemplate(target);
