// postgres.js needs Keyhold's repairs (scripts/patch-postgres-js.mjs: five
// defects a database outage exposes, and coarser socket writes). npm applies
// them at install (postinstall), but `npm install --ignore-scripts`, a copied
// node_modules or a reinstalled driver leaves an unrepaired one that works
// until the first outage — and then hangs requests or ends the process. So a
// start on PostgreSQL checks the driver first and refuses to connect with an
// unrepaired one, naming the fix. (patch-package would be a second
// dependency doing the same at the same moment, and skipped by the same flag;
// the check is what closes the gap.)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The first line the repair script writes into each file it repaired completely. */
export const REPAIR_MARKER = '/* keyhold: patched (scripts/patch-postgres-js.mjs) */';

/** The files of the ES-module build Keyhold loads (`import postgres from 'postgres'`) that the repairs change. */
const REPAIRED_FILES = ['src/connection.js', 'src/index.js', 'src/queue.js'];

/** The directory of the installed postgres package. */
export function postgresPackageRoot(): string {
  // The package's main (cjs/src/index.js) is two levels below its root.
  return join(dirname(createRequire(import.meta.url).resolve('postgres')), '..', '..');
}

export class PostgresDriverNotRepaired extends Error {
  override readonly name = 'PostgresDriverNotRepaired';
  constructor(readonly root: string, readonly files: readonly string[]) {
    super(
      `the PostgreSQL driver at ${root} lacks Keyhold's repairs (${files.join(', ')} unpatched; they are applied by ` +
        'scripts/patch-postgres-js.mjs at npm install, and skipped by --ignore-scripts or when the driver version differs): ' +
        'run `node scripts/patch-postgres-js.mjs` in Keyhold\'s directory, and start again',
    );
  }
}

/** Throws PostgresDriverNotRepaired unless every repaired file of the driver at `root` carries the marker. */
export function assertPostgresRepaired(root = postgresPackageRoot()): void {
  const unrepaired = REPAIRED_FILES.filter((file) => {
    try {
      return !readFileSync(join(root, file), 'utf8').startsWith(REPAIR_MARKER);
    } catch {
      return true;
    }
  });
  if (unrepaired.length > 0) throw new PostgresDriverNotRepaired(root, unrepaired);
}
