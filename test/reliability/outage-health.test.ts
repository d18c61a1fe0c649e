// gRPC health follows the database, as a balancer or a Kubernetes gRPC probe
// sees it through @grpc/grpc-js: a Keyhold child on PostgreSQL (through the
// relay of outage-relay.ts, so the shared server is never touched) is SERVING;
// the server stops (connections reset, port refusing), then goes silent
// (connections accepted, never answered): Check says NOT_SERVING and a Watch
// opened before the outage hears NOT_SERVING, in step with /readyz; when the
// server is back both say SERVING again, on the same process and the same
// Watch call.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_CONNECTION_OPTIONS } from '../../src/store/database.js';
import { startChildKeyhold, type ChildKeyhold } from '../support/child-keyhold.js';
import { announcePostgresSkip, createPostgresDatabase, postgresAvailable, tempDir, type PostgresDatabase } from '../support/databases.js';
import { healthClient, until, type HealthClient } from '../support/grpc-js-health.js';
import { Relay } from './outage-relay.js';

announcePostgresSkip('gRPC health during a database outage on PostgreSQL');

/** Watch polls every second; a silent server costs a connect timeout on top. */
const NOTICE_MS = POSTGRES_CONNECTION_OPTIONS.connect_timeout * 1000 + 3_000;
const RECOVERY_MS = 10_000;

describe.skipIf(!postgresAvailable)('gRPC health during a database outage (PostgreSQL via a relay)', () => {
  let pg: PostgresDatabase | undefined;
  let relay: Relay | undefined;
  let dataDir: string | undefined;
  let child: ChildKeyhold | undefined;
  let client: HealthClient | undefined;

  beforeAll(async () => {
    pg = await createPostgresDatabase();
    const direct = new URL(pg.url);
    relay = new Relay({ host: direct.hostname, port: Number(direct.port || 5432) });
    await relay.listen();
    const viaRelay = new URL(pg.url);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(relay.port);
    dataDir = await tempDir('keyhold-outage-health-');
    child = await startChildKeyhold({ dataDir, databaseUrl: viaRelay.toString() });
    client = healthClient(new URL(child.url).host);
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await child?.kill('SIGKILL');
    await relay?.close();
    await pg?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const readyz = async () => (await child!.rest('GET', '/readyz', undefined, { timeoutMs: 10_000 })).status;

  it.each([
    ['stopped', 'stop'],
    ['silent', 'silent'],
  ] as const)('server %s: SERVING, NOT_SERVING while out (Check, Watch, /readyz), SERVING again when back', async (_label, kind) => {
    const health = client!;
    expect(await health.check('')).toBe('SERVING');
    expect(await health.check('keyhold.management.v1.ManagementService')).toBe('SERVING');
    expect(await readyz()).toBe(200);
    const watch = health.watch('');
    const service = health.watch('keyhold.user.v2.UserService');
    await until(() => watch.seen.length === 1 && service.seen.length === 1, 5_000, 'the first Watch messages');
    expect(watch.seen).toEqual(['SERVING']);

    const cutAt = Date.now();
    await relay![kind]();
    await until(() => watch.seen.length === 2 && service.seen.length === 2, NOTICE_MS, 'NOT_SERVING on the watches');
    const noticedMs = Date.now() - cutAt;
    expect(watch.seen).toEqual(['SERVING', 'NOT_SERVING']);
    expect(service.seen).toEqual(['SERVING', 'NOT_SERVING']);
    expect(await health.check('', NOTICE_MS)).toBe('NOT_SERVING');
    expect(await health.check('keyhold.org.v2.OrganizationService', NOTICE_MS)).toBe('NOT_SERVING');
    // Reflection needs no database.
    expect(await health.check('grpc.reflection.v1.ServerReflection')).toBe('SERVING');
    expect(await readyz()).toBe(503);

    const restoredAt = Date.now();
    await relay!.restore();
    await until(() => watch.seen.length === 3 && service.seen.length === 3, RECOVERY_MS, 'SERVING on the watches again');
    const recoveredMs = Date.now() - restoredAt;
    expect(watch.seen).toEqual(['SERVING', 'NOT_SERVING', 'SERVING']);
    expect(await health.check('')).toBe('SERVING');
    expect(await readyz()).toBe(200);
    // A write works again on the same process.
    expect((await child!.rest('POST', '/management/v1/projects', { name: `after ${kind}` })).status).toBe(200);
    watch.cancel();
    service.cancel();
    console.log(`[outage-health] server ${kind}: watches heard NOT_SERVING ${noticedMs} ms after the cut, SERVING ${recoveredMs} ms after the return`);
  }, 60_000);
});
