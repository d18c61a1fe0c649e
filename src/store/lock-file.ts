// One process owns a PGlite data directory: two PGlite instances writing one
// directory corrupt it. The lock is a file holding the owner's pid, created
// exclusively; a lock left behind by a dead process is taken over.
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirLocked } from './errors.js';

// Lock files this process holds. A lock naming our own pid that is not in here
// was left by an earlier process that had the same pid — common after a
// container restart, where the server is often pid 1 again — so it is stale.
const heldHere = new Set<string>();

export interface DirLock {
  readonly path: string;
  release(): void;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else — still alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Create the lock atomically with its content: write a private temp file, then
 * hard-link it into place (link fails with EEXIST when the lock exists). Readers
 * thus never see an empty lock that they might mistake for a stale one.
 */
function tryCreate(path: string): boolean {
  const temp = `${path}.${process.pid}`;
  writeFileSync(temp, `${process.pid}\n`, { mode: 0o600 });
  try {
    linkSync(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(temp);
  }
}

/** Take `<dataDir>/keyhold.lock`, or throw DataDirLocked naming the dir and the owner's pid. */
export function lockDataDir(dataDir: string): DirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'keyhold.lock');
  // Two attempts: the second follows removing a stale lock. If another process
  // took the stale lock over in between, our exclusive create fails and we
  // report that process as the owner.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(path)) {
      heldHere.add(path);
      return {
        path,
        release() {
          if (!heldHere.delete(path)) return; // released already
          // Only remove the lock if it is still ours.
          if (readPid(path) === process.pid) unlinkSync(path);
        },
      };
    }
    const owner = readPid(path);
    const ownerIsUs = owner === process.pid;
    // A live owner wins — and so does this very process when it opens the dir twice.
    if (ownerIsUs ? heldHere.has(path) : owner !== undefined && processAlive(owner)) {
      throw new DataDirLocked(dataDir, owner!);
    }
    // Stale: its owner died without releasing it. Take it over.
    try {
      unlinkSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  throw new DataDirLocked(dataDir, readPid(path) ?? 0);
}
