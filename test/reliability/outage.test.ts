// Database outage: a Keyhold child on PostgreSQL under load loses its database
// for 10 s — the database stops accepting connections and every backend it has
// is terminated (ALTER DATABASE … ALLOW_CONNECTIONS false + pg_terminate_backend);
// the shared server other tests use keeps running. While out, every request
// fails fast with 503 UNAVAILABLE / DATABASE_UNAVAILABLE (never a 500, never a
// hang) and /readyz says so; when the database returns, the same process
// recovers by itself and no acknowledged write is lost.
// outage-stopped.test.ts does the same with the server gone (refused, silent).
import { rm } from 'node:fs/promises';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/database.js';
import { startChildKeyhold, type ChildKeyhold } from '../support/child-keyhold.js';
import { announcePostgresSkip, createPostgresDatabase, postgresAvailable, tempDir, testDatabaseUrl, type PostgresDatabase } from '../support/databases.js';
import {
  debugDump,
  expectCleanLogs,
  expectFastFailures,
  expectNothingLost,
  expectOnlyOkOrUnavailable,
  expectRecovered,
  latencies,
  startOutageLoad,
  waitForRecovery,
} from './outage-load.js';

announcePostgresSkip('database outage on PostgreSQL');

/** How long the database stays away. */
const OUTAGE_MS = 10_000;
/** A request during the outage must be answered within this ("fail fast"). */
const FAIL_FAST_MS = 2_000;
/** After the database returns, Keyhold must serve writes again within this. */
const RECOVERY_MS = 10_000;

describe.skipIf(!postgresAvailable)('database outage (PostgreSQL)', () => {
  let pg: PostgresDatabase | undefined;
  let dataDir: string | undefined;
  let child: ChildKeyhold | undefined;
  let admin: postgres.Sql | undefined;
  let database: Database | undefined;

  beforeAll(async () => {
    pg = await createPostgresDatabase();
    dataDir = await tempDir('keyhold-outage-');
    admin = postgres(testDatabaseUrl!, { max: 1, onnotice: () => {} });
    child = await startChildKeyhold({ dataDir, databaseUrl: pg.url });
  }, 60_000);

  afterAll(async () => {
    await child?.kill('SIGKILL');
    await database?.close();
    if (pg) await admin?.unsafe(`alter database "${pg.name}" allow_connections true`).catch(() => {});
    await admin?.end({ timeout: 5 });
    await pg?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('fails fast with 503 DATABASE_UNAVAILABLE while out, reports it on /readyz, recovers by itself and loses no acknowledged write', async () => {
    const kh = child!;
    const db = pg!;
    const project = await kh.rest('POST', '/management/v1/projects', { name: 'outage' });
    expect(project.status).toBe(200);

    const load = startOutageLoad(kh, project.body.id, 'outage');
    await new Promise((r) => setTimeout(r, 2_000));
    const cutStarted = load.now();
    // Refuse new connections to the database, then end every existing one.
    await admin!.unsafe(`alter database "${db.name}" allow_connections false`);
    await admin!`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${db.name} and pid <> pg_backend_pid()`;
    const cutAt = load.now();
    await new Promise((r) => setTimeout(r, OUTAGE_MS - (load.now() - cutStarted)));
    await admin!.unsafe(`alter database "${db.name}" allow_connections true`);
    const restoredAt = load.now();
    const recoveredAt = await waitForRecovery(load, restoredAt, RECOVERY_MS);
    await load.stop();
    debugDump(kh, load, { cutStarted, cutAt, restoredAt, recoveredAt }, FAIL_FAST_MS);

    expectOnlyOkOrUnavailable(load);
    const during = expectFastFailures(load, cutAt, restoredAt, FAIL_FAST_MS);
    await expectRecovered(kh, load, recoveredAt, restoredAt, RECOVERY_MS);
    const logged = expectCleanLogs(kh, load);
    database = await openDatabase({ databaseUrl: db.url, dataDir: dataDir!, poolSize: 1 });
    const acknowledged = await expectNothingLost(kh, load, database);

    console.log(
      `[outage] database refusing connections (ALLOW_CONNECTIONS false + backends terminated) for ${((restoredAt - cutStarted) / 1000).toFixed(1)} s ` +
        `under load (8 writers, 2 readers, /readyz prober): ${during.length} requests answered 503 DATABASE_UNAVAILABLE while out ` +
        `(${latencies(during)}); first write succeeded ${((recoveredAt! - restoredAt) / 1000).toFixed(2)} s after the database returned, ` +
        `same process; writes acknowledged ${acknowledged}, found ${acknowledged}; store audit clean; ` +
        `${logged.failures} failed requests logged in ${logged.lines} error lines`,
    );
  }, 80_000);
});
