// grpc.health.v1.Health through @grpc/grpc-js (an independent gRPC stack):
// Check and Watch for the server ("") and each service, without a token, over
// h2c and TLS; unknown services as the protocol says; NOT_SERVING to watchers
// when shutdown begins. Then the poller itself: it asks readiness only while
// someone watches, and streams changes. The database outage (NOT_SERVING,
// then SERVING again) is test/reliability/outage-health.test.ts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { createClient, createRouterTransport } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Health, HealthCheckResponse_ServingStatus as Status } from '../../../gen/grpc/health/v1/health_pb.js';
import { AuthService } from '../../../gen/keyhold/auth/v1/auth_pb.js';
import { createHealthService } from '../../../src/server/rpc/health.js';
import { tempDir } from '../../support/databases.js';
import { grpcJsStatusDetails } from '../../support/grpc-js.js';
import { healthClient, until } from '../../support/grpc-js-health.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

const SERVICES = [
  '',
  'keyhold.auth.v1.AuthService',
  'keyhold.management.v1.ManagementService',
  'keyhold.org.v2.OrganizationService',
  'keyhold.user.v2.UserService',
  'grpc.health.v1.Health',
  'grpc.reflection.v1.ServerReflection',
  'grpc.reflection.v1alpha.ServerReflection',
];

/** Short idle timeouts, so that the tests see a quiet Watch outlive them. */
const SHORT_TIMEOUTS = { KEYHOLD_KEEP_ALIVE_TIMEOUT_MS: '1000', KEYHOLD_REQUEST_TIMEOUT_MS: '1000', KEYHOLD_HEADERS_TIMEOUT_MS: '1000' };

describe('grpc.health.v1 over h2c, from @grpc/grpc-js', () => {
  let kh: TestKeyhold;
  beforeAll(async () => {
    kh = await startTestKeyhold({ env: SHORT_TIMEOUTS });
  });
  afterAll(async () => kh?.close());

  it('Check: SERVING for the server and every service, without a token', async () => {
    const client = healthClient(`127.0.0.1:${kh.port}`);
    try {
      for (const service of SERVICES) expect(await client.check(service), service).toBe('SERVING');
    } finally {
      client.close();
    }
  });

  it('Check: an unknown service is NOT_FOUND with reason HEALTH_SERVICE_UNKNOWN', async () => {
    const client = healthClient(`127.0.0.1:${kh.port}`);
    try {
      const err = (await client.check('keyhold.nope.v1.NopeService').catch((e) => e)) as grpc.ServiceError;
      expect(err.code).toBe(grpc.status.NOT_FOUND);
      expect(grpcJsStatusDetails(err).errorInfo).toMatchObject({ reason: 'HEALTH_SERVICE_UNKNOWN', domain: 'keyhold' });
    } finally {
      client.close();
    }
  });

  it('Watch: SERVING at once and the stream stays open past the idle timeout; an unknown service gets SERVICE_UNKNOWN, also kept open', async () => {
    const client = healthClient(`127.0.0.1:${kh.port}`);
    try {
      const server = client.watch('');
      const unknown = client.watch('keyhold.nope.v1.NopeService');
      await until(() => server.seen.length > 0 && unknown.seen.length > 0, 5_000, 'the first Watch messages');
      // Nothing changes, so nothing more comes, and neither call ends.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(server.seen).toEqual(['SERVING']);
      expect(unknown.seen).toEqual(['SERVICE_UNKNOWN']);
      const settled = await Promise.race([server.ended, unknown.ended, new Promise((r) => setTimeout(() => r('open'), 10))]);
      expect(settled).toBe('open');
      server.cancel();
      unknown.cancel();
      expect((await server.ended).code).toBe(grpc.status.CANCELLED);
    } finally {
      client.close();
    }
  });

  it('only health and reflection became public: the API still wants a token', async () => {
    const err = await kh.client(AuthService, 'grpc', '').getMyUser({}).catch((e) => e);
    expect(err.code).toBe(16);
  });
});

describe('grpc.health.v1 over TLS', () => {
  let kh: TestKeyhold;
  let ca: Buffer;
  beforeAll(async () => {
    const dir = await tempDir('keyhold-health-tls-');
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
    ca = fs.readFileSync(cert);
    kh = await startTestKeyhold({ env: { KEYHOLD_TLS_CERT: cert, KEYHOLD_TLS_KEY: key, ...SHORT_TIMEOUTS } });
  });
  afterAll(async () => kh?.close());

  it('Check and Watch answer SERVING; a quiet Watch outlives the idle timeout', async () => {
    const client = healthClient(`localhost:${kh.port}`, grpc.credentials.createSsl(ca));
    try {
      expect(await client.check('')).toBe('SERVING');
      const watch = client.watch('keyhold.management.v1.ManagementService');
      await until(() => watch.seen.length > 0, 5_000, 'the first Watch message');
      // Past the idle timeout the session is closed gracefully: the open Watch goes on.
      const settled = await Promise.race([watch.ended, new Promise((r) => setTimeout(() => r('open'), 2_500))]);
      expect(settled).toBe('open');
      expect(watch.seen).toEqual(['SERVING']);
      watch.cancel();
    } finally {
      client.close();
    }
  });
});

describe('shutdown', () => {
  it('a watcher hears NOT_SERVING when shutdown begins, its call ends OK, and the stop is not held up by it', async () => {
    const kh = await startTestKeyhold();
    const client = healthClient(`127.0.0.1:${kh.port}`);
    try {
      const watch = client.watch('');
      await until(() => watch.seen.length > 0, 5_000, 'the first Watch message');
      const started = Date.now();
      await kh.close();
      // The stop forces open streams after a 3 s grace; a watch must not need it.
      expect(Date.now() - started).toBeLessThan(2_500);
      const end = await watch.ended;
      expect(watch.seen).toEqual(['SERVING', 'NOT_SERVING']);
      expect(end.code).toBe(grpc.status.OK);
    } finally {
      client.close();
    }
  });
});

describe('the Watch poller (health.ts, served by connect in memory)', () => {
  it('asks readiness only while someone watches, streams each change once, and shares one probe among concurrent checks', async () => {
    let up = true;
    let probes = 0;
    let slow: (() => void) | undefined;
    const ready = async () => {
      probes++;
      if (slow) await new Promise<void>((r) => (slow = r));
      if (!up) throw new Error('database down');
    };
    const health = createHealthService({ ready, needDatabase: [AuthService], pollIntervalMs: 40 });
    const client = createClient(Health, createRouterTransport(({ service }) => service(health.desc, health.impl as never)));

    // Nobody watches: no probes.
    await new Promise((r) => setTimeout(r, 300));
    expect(probes).toBe(0);

    // Concurrent checks while a probe is under way share it.
    slow = () => {};
    const checks = Promise.all([client.check({ service: '' }), client.check({ service: 'keyhold.auth.v1.AuthService' }), client.check({})]);
    await until(() => probes === 1, 1_000, 'the first probe');
    const release = slow;
    slow = undefined;
    release!();
    expect((await checks).map((r) => r.status)).toEqual([Status.SERVING, Status.SERVING, Status.SERVING]);
    expect(probes).toBe(1);

    const abort = new AbortController();
    const seen: Status[] = [];
    const watching = (async () => {
      for await (const res of client.watch({ service: 'keyhold.auth.v1.AuthService' }, { signal: abort.signal })) seen.push(res.status);
    })().catch(() => {});
    await until(() => seen.length === 1, 2_000, 'the first message');
    const polled = probes;
    await new Promise((r) => setTimeout(r, 300));
    expect(probes - polled).toBeGreaterThanOrEqual(3); // polled every 40 ms
    up = false;
    await until(() => seen.length === 2, 2_000, 'NOT_SERVING');
    await new Promise((r) => setTimeout(r, 200));
    up = true;
    await until(() => seen.length === 3, 2_000, 'SERVING again');
    await new Promise((r) => setTimeout(r, 200));
    // Unchanged statuses are not repeated.
    expect(seen).toEqual([Status.SERVING, Status.NOT_SERVING, Status.SERVING]);

    abort.abort();
    await watching;
    await new Promise((r) => setTimeout(r, 100));
    const afterCancel = probes;
    await new Promise((r) => setTimeout(r, 300));
    expect(probes).toBe(afterCancel);
  });
});
