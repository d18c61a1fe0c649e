// Crash safety on PGlite: a Keyhold child under write load is SIGKILLed with
// requests in flight, twice; each restart on the same data dir takes over the
// dead process's lock file. Afterwards every acknowledged write is readable,
// and events and read models agree (no half-written app, no sequence gap).
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { startChildKeyhold, type ChildKeyhold } from '../support/child-keyhold.js';
import { pgliteDirFromTemplate } from '../support/databases.js';
import { auditOfDamagedCopy, auditStore, committedButUnanswered, crashRounds, describeRun } from './crash-load.js';

let child: ChildKeyhold | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  await child?.kill('SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const lockPid = (dir: string) => Number.parseInt(readFileSync(join(dir, 'keyhold.lock'), 'utf8'), 10);

it('SIGKILL under load loses no acknowledged write and leaves no half-written object (PGlite)', { timeout: 150_000 }, async () => {
  const dir = (dataDir = await pgliteDirFromTemplate());
  child = await startChildKeyhold({ dataDir: dir });
  expect(child.adminToken).toBeTruthy();

  const run = await crashRounds(child, 2, {
    // The dead process's lock is still there; the restart takes it over.
    afterKill: (killed) => expect(lockPid(dir)).toBe(killed),
    afterRestart: (restarted) => expect(lockPid(dir)).toBe(restarted.pid),
  });
  child = run.child;

  // SIGTERM drains and releases the directory; then the store is audited directly.
  expect(await child.kill('SIGTERM')).toEqual({ code: 0, signal: null });
  child = undefined;
  expect(existsSync(join(dir, 'keyhold.lock'))).toBe(false);
  const database = await openDatabase({ dataDir: dir });
  try {
    expect(await auditStore(database)).toEqual([]);
    const app = run.acknowledged.find((op) => op.kind === 'app')!;
    const project = run.acknowledged.find((op) => op.kind === 'project')!;
    const damaged = await auditOfDamagedCopy(database, app.id!, project.id!);
    expect(damaged).toEqual(expect.arrayContaining([`app ${app.id} has events but no apps row`, expect.stringMatching(`^sequence gap in project/${project.id}`)]));
    console.log(describeRun('PGlite', run, await committedButUnanswered(database, run.ops)));
  } finally {
    await database.close();
  }
});
