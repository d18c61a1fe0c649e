// Crash safety of the bootstrap: the admin token must survive a crash at any
// point. It is on disk before the commit that makes it valid; a process that
// dies (or loses the database) between the commit and the rename leaves it in
// a pending file, and the next start moves it into place. Real PGlite, real
// files; the "crash" is a dead process's pending file or a lost commit answer.
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, openSync, readFileSync, readSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/domain/identity/tokens.js';
import { bootstrap, pendingPatFile } from '../../src/server/bootstrap.js';
import { DatabaseUnavailable } from '../../src/store/errors.js';
import { createEventStore, type EventStore } from '../../src/store/event-store.js';
import { findPatByHash } from '../../src/store/queries/index.js';
import { createReadModel } from '../../src/store/read-model.js';
import { freshPglite, type FreshDatabase } from '../support/databases.js';

const log = pino({ level: 'silent' });
let fresh: FreshDatabase | undefined;
afterEach(async () => {
  await fresh?.cleanup();
  fresh = undefined;
});

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid!;
}

const pendingFiles = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.pending'));
const valid = async (db: FreshDatabase, token: string) => (await findPatByHash(db.database.db, hashToken(token))) !== undefined;

describe('bootstrap under crashes', () => {
  it('writes the token to disk before the commit, and renames it into place after', async () => {
    fresh = await freshPglite();
    const db = fresh;
    const patFile = join(db.dataDir, 'admin.pat');
    const store = createEventStore(db.database);
    let onDiskAtCommit: string | undefined;
    // A file of that name left open to everyone (by an earlier process with the same pid), and someone holding it open:
    // the token must not land in that file.
    writeFileSync(pendingPatFile(patFile), 'left over\n');
    chmodSync(pendingPatFile(patFile), 0o666);
    const heldOpen = openSync(pendingPatFile(patFile), 'r');
    const watched: EventStore = {
      ...store,
      append: async (events, expected) => {
        const pat = events.find((e) => e.type === 'user.pat.added')!.payload as { tokenHash: string };
        const pending = readFileSync(pendingPatFile(patFile), 'utf8').trim();
        expect(hashToken(pending)).toBe(pat.tokenHash);
        expect(statSync(pendingPatFile(patFile)).mode & 0o777).toBe(0o600);
        onDiskAtCommit = pending;
        return store.append(events, expected);
      },
    };
    const result = await bootstrap(createReadModel(db.database), watched, patFile, log);
    expect(result.created).toBe(true);
    expect(readFileSync(patFile, 'utf8').trim()).toBe(onDiskAtCommit);
    expect(statSync(patFile).mode & 0o777).toBe(0o600);
    const seenByHolder = Buffer.alloc(200);
    const read = readSync(heldOpen, seenByHolder, 0, 200, 0);
    closeSync(heldOpen);
    expect(seenByHolder.subarray(0, read).toString()).not.toContain(onDiskAtCommit);
    expect(pendingFiles(db.dataDir)).toEqual([]);
  });

  it('a commit whose answer was lost: the next start finds the valid token and moves it into place', async () => {
    fresh = await freshPglite();
    const db = fresh;
    const patFile = join(db.dataDir, 'admin.pat');
    const store = createEventStore(db.database);
    const answerLost: EventStore = {
      ...store,
      append: async (events, expected) => {
        await store.append(events, expected); // committed…
        throw new DatabaseUnavailable('connection lost before the answer'); // …but the caller never hears it
      },
    };
    await expect(bootstrap(createReadModel(db.database), answerLost, patFile, log)).rejects.toBeInstanceOf(DatabaseUnavailable);
    expect(existsSync(patFile)).toBe(false);
    expect(pendingFiles(db.dataDir)).toHaveLength(1);

    expect(await bootstrap(createReadModel(db.database), store, patFile, log)).toEqual({ created: false });
    const token = readFileSync(patFile, 'utf8').trim();
    expect(await valid(db, token)).toBe(true);
    expect(pendingFiles(db.dataDir)).toEqual([]);
  });

  it('a process killed between commit and rename: its pending token is recovered; dead attempts that never committed are removed', async () => {
    fresh = await freshPglite();
    const db = fresh;
    const patFile = join(db.dataDir, 'admin.pat');
    const store = createEventStore(db.database);
    await bootstrap(createReadModel(db.database), store, patFile, log);
    const token = readFileSync(patFile, 'utf8').trim();
    // The state a SIGKILL after the commit leaves: the token only in the dead process's pending file.
    renameSync(patFile, pendingPatFile(patFile, deadPid()));
    // And an attempt that died before committing (its token is valid nowhere).
    const stale = pendingPatFile(patFile, deadPid());
    writeFileSync(stale, 'kh_never-committed\n', { mode: 0o600 });
    // And a live process's attempt in progress: not ours to touch.
    const live = pendingPatFile(patFile, process.ppid);
    writeFileSync(live, 'kh_in-progress\n', { mode: 0o600 });

    expect(await bootstrap(createReadModel(db.database), store, patFile, log)).toEqual({ created: false });
    expect(readFileSync(patFile, 'utf8').trim()).toBe(token);
    expect(await valid(db, token)).toBe(true);
    expect(pendingFiles(db.dataDir)).toEqual([live.split('/').pop()]);
  });
});
