// Database outage, as the server going away: Keyhold reaches PostgreSQL
// through a TCP relay in this test process, which can play a stopped server
// (every connection reset, new ones refused: ECONNREFUSED) and a silent one
// (connections accepted, never answered: a dead host behind a load balancer).
// The shared PostgreSQL server itself is never touched. In both, requests fail
// fast with 503 DATABASE_UNAVAILABLE — bounded by the connect timeout when the
// server is silent — and Keyhold recovers by itself when the server is back.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, POSTGRES_CONNECTION_OPTIONS, type Database } from '../../src/store/database.js';
import { startChildKeyhold, type ChildKeyhold } from '../support/child-keyhold.js';
import { announcePostgresSkip, createPostgresDatabase, postgresAvailable, tempDir, type PostgresDatabase } from '../support/databases.js';
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
  type OutageLoad,
} from './outage-load.js';
import { Relay } from './outage-relay.js';

announcePostgresSkip('database outage (server stopped or silent) on PostgreSQL');

/** How long the server is away: stopped, silent (longer: a failure takes a connect timeout there). */
const STOPPED_MS = 8_000;
const SILENT_MS = 12_000;
/** Stopped server: connections are refused at once. */
const FAIL_FAST_MS = 2_000;
/**
 * Silent server: each connect attempt gives up after connect_timeout. With
 * fewer concurrent requests than pool connections (11 < 20 here), each request
 * waits for one attempt of its own.
 */
const SILENT_LIMIT_MS = POSTGRES_CONNECTION_OPTIONS.connect_timeout * 1000 + 2_000;
const RECOVERY_MS = 10_000;

describe.skipIf(!postgresAvailable)('database outage: server stopped, server silent (PostgreSQL via a relay)', () => {
  let pg: PostgresDatabase | undefined;
  let relay: Relay | undefined;
  let dataDir: string | undefined;
  let child: ChildKeyhold | undefined;
  let database: Database | undefined;
  let projectId: string;

  beforeAll(async () => {
    pg = await createPostgresDatabase();
    const direct = new URL(pg.url);
    relay = new Relay({ host: direct.hostname, port: Number(direct.port || 5432) });
    await relay.listen();
    const viaRelay = new URL(pg.url);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(relay.port);
    dataDir = await tempDir('keyhold-outage-stopped-');
    child = await startChildKeyhold({ dataDir, databaseUrl: viaRelay.toString() });
    const project = await child.rest('POST', '/management/v1/projects', { name: 'outage-stopped' });
    expect(project.status).toBe(200);
    projectId = project.body.id;
  }, 60_000);

  afterAll(async () => {
    await child?.kill('SIGKILL');
    await database?.close();
    await relay?.close();
    await pg?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function outage(kind: 'stop' | 'silent', outageMs: number, limitMs: number, label: string, atLeast?: { requests: number; readyz: number }) {
    const kh = child!;
    const logFrom = kh.output.length;
    const load: OutageLoad = startOutageLoad(kh, projectId, label);
    await new Promise((r) => setTimeout(r, 1_500));
    const cutStarted = load.now();
    await relay![kind]();
    const cutAt = load.now();
    await new Promise((r) => setTimeout(r, outageMs - (load.now() - cutStarted)));
    await relay!.restore();
    const restoredAt = load.now();
    const recoveredAt = await waitForRecovery(load, restoredAt, RECOVERY_MS);
    await load.stop();
    debugDump(kh, load, { cutStarted, cutAt, restoredAt, recoveredAt }, limitMs);

    expectOnlyOkOrUnavailable(load);
    const during = expectFastFailures(load, cutAt, restoredAt, limitMs, atLeast);
    await expectRecovered(kh, load, recoveredAt, restoredAt, RECOVERY_MS);
    const logged = expectCleanLogs(kh, load, logFrom);
    database ??= await openDatabase({ databaseUrl: pg!.url, dataDir: dataDir!, poolSize: 1 });
    const acknowledged = await expectNothingLost(kh, load, database);
    return { during, acknowledged, logged, outageS: ((restoredAt - cutStarted) / 1000).toFixed(1), recoveryS: ((recoveredAt! - restoredAt) / 1000).toFixed(2) };
  }

  it('server stopped (connections reset, then refused): fails fast, recovers by itself, loses nothing', async () => {
    const r = await outage('stop', STOPPED_MS, FAIL_FAST_MS, 'stopped');
    console.log(
      `[outage] server stopped (connections reset, port refusing) for ${r.outageS} s under load: ${r.during.length} requests answered 503 ` +
        `DATABASE_UNAVAILABLE while out (${latencies(r.during)}); first write ${r.recoveryS} s after the server returned, same process; ` +
        `writes acknowledged ${r.acknowledged}, found ${r.acknowledged}; store audit clean; ${r.logged.failures} failed requests logged in ${r.logged.lines} error lines`,
    );
  }, 60_000);

  it('server silent (connections accepted, never answered): fails within the connect timeout, recovers by itself, loses nothing', async () => {
    const r = await outage('silent', SILENT_MS, SILENT_LIMIT_MS, 'silent', { requests: 15, readyz: 1 });
    console.log(
      `[outage] server silent (accepts, never answers) for ${r.outageS} s under load: ${r.during.length} requests answered 503 ` +
        `DATABASE_UNAVAILABLE while out (${latencies(r.during)}; connect timeout ${POSTGRES_CONNECTION_OPTIONS.connect_timeout} s); ` +
        `first write ${r.recoveryS} s after the server returned, same process; writes acknowledged ${r.acknowledged} in total, found all; store audit clean; ` +
        `${r.logged.failures} failed requests logged in ${r.logged.lines} error lines`,
    );
  }, 60_000);
});
