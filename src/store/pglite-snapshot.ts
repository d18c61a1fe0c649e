// A consistent copy of a running PGlite's data directory (backups: server/backup.ts,
// asked for through server/control-socket.ts). PGlite is one process's: no second
// process may open the directory while it runs, and a copy of files that are being
// written is not a database. So the running process makes the copy itself:
//
// - under PGlite's transaction lock and query lock (as store/pglite-sql.ts holds them),
//   so no statement runs and no transaction is open while the files are read;
// - after a CHECKPOINT, so every committed change is in the data files and the
//   copy opens like a cleanly stopped directory, without replaying the log;
// - into a directory beside pgdata (same file system, owner-only like it), so the
//   database waits only for a local copy (39 MB and ~1,000 files for a new
//   instance: 0.4–0.9 s on a loaded 2-core machine), never for the backup's
//   reader; requests meanwhile wait for the locks, as behind a long statement.
//
// PGlite's own dumpDataDir() was not used: it takes the query lock alone (a copy
// could land between two statements of a drizzle transaction), does not
// checkpoint, and builds the whole archive in memory.
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { protocol, type PGlite } from '@electric-sql/pglite';
import { assertPgliteInternals } from './pglite-sql.js';

/** Files copied at once: enough to keep the disk busy, few enough to leave descriptors to the server. */
const COPIES_AT_ONCE = 8;

/** Copies the directory tree `from` into the new directory `to` (0700): directories and regular files only. */
export async function copyTree(from: string, to: string): Promise<void> {
  const files: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    await mkdir(join(to, relative), { mode: 0o700 });
    for (const entry of await readdir(join(from, relative), { withFileTypes: true })) {
      const name = join(relative, entry.name);
      if (entry.isDirectory()) await walk(name);
      else if (entry.isFile()) files.push(name);
      else throw new Error(`${join(from, name)} is neither a file nor a directory: a data directory holds none such, so it is not copied`);
    }
  };
  await walk('');
  let next = 0;
  await Promise.all(
    Array.from({ length: COPIES_AT_ONCE }, async () => {
      while (next < files.length) {
        const name = files[next++]!;
        await copyFile(join(from, name), join(to, name));
      }
    }),
  );
}

/** Checkpoints the running `client` and copies `pgdata` into `target` (a new directory) while nothing runs. */
export async function snapshotPglite(client: PGlite, pgdata: string, target: string): Promise<void> {
  assertPgliteInternals(client);
  await client._checkReady();
  await client._runExclusiveTransaction(() =>
    client._runExclusiveQuery(async () => {
      // Throws the engine's error (and the guard's StorageUnavailable after a PANIC).
      await client.execProtocol(protocol.serialize.query('CHECKPOINT'));
      await copyTree(pgdata, target);
    }),
  );
}
