// Crash safety on PostgreSQL: as crash-pglite.test.ts, with the child on a
// fresh PostgreSQL database. SIGKILL drops its connections mid-transaction;
// PostgreSQL rolls back what was not committed, and the restarted child must
// serve every acknowledged write with events and read models in agreement.
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/database.js';
import { startChildKeyhold, type ChildKeyhold } from '../support/child-keyhold.js';
import { announcePostgresSkip, createPostgresDatabase, postgresAvailable, tempDir, type PostgresDatabase } from '../support/databases.js';
import { auditOfDamagedCopy, auditStore, committedButUnanswered, crashRounds, describeRun } from './crash-load.js';

announcePostgresSkip('crash safety on PostgreSQL');

describe.skipIf(!postgresAvailable)('crash safety (PostgreSQL)', () => {
  let child: ChildKeyhold | undefined;
  let pg: PostgresDatabase | undefined;
  let dataDir: string | undefined;
  let database: Database | undefined;

  afterAll(async () => {
    await child?.kill('SIGKILL');
    await database?.close();
    await pg?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('SIGKILL under load loses no acknowledged write and leaves no half-written object', { timeout: 120_000 }, async () => {
    pg = await createPostgresDatabase();
    dataDir = await tempDir('keyhold-crash-pg-');
    child = await startChildKeyhold({ dataDir, databaseUrl: pg.url });
    expect(child.adminToken).toBeTruthy();

    const run = await crashRounds(child, 2);
    child = run.child;

    database = await openDatabase({ databaseUrl: pg.url, dataDir, poolSize: 1 });
    expect(await auditStore(database)).toEqual([]);
    const app = run.acknowledged.find((op) => op.kind === 'app')!;
    const project = run.acknowledged.find((op) => op.kind === 'project')!;
    const damaged = await auditOfDamagedCopy(database, app.id!, project.id!);
    expect(damaged).toEqual(expect.arrayContaining([`app ${app.id} has events but no apps row`, expect.stringMatching(`^sequence gap in project/${project.id}`)]));
    console.log(describeRun('PostgreSQL', run, await committedButUnanswered(database, run.ops)));

    expect(await child.kill('SIGTERM')).toEqual({ code: 0, signal: null });
    child = undefined;
  });
});
