// Operating Keyhold: Prometheus metrics at GET /metrics and one
// request log line per request, checked as an operator would — calls over all
// four protocols (gRPC through connect-node, on the fast path and the general
// one; gRPC-Web; Connect; REST over plain HTTP), an answer and an error each,
// then a scrape and the log: the right labels and codes, in-flight requests,
// appends, group-commit transactions and database errors moving, every line
// naming its request without any token, secret or raw URL, and the request id
// coming back in a header and in ErrorInfo.metadata.
import net from 'node:net';
import { Code, createClient } from '@connectrpc/connect';
import { register as globalRegistry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Health, HealthCheckResponse_ServingStatus } from '../../gen/grpc/health/v1/health_pb.js';
import { ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { rpcError } from '../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { addApp } from '../support/oidc-login.js';

const MANAGEMENT = 'keyhold.management.v1.ManagementService';
const RPC_PROTOCOLS = ['grpc', 'grpcWeb', 'connect'] as const;
/** The protocol label each client speaks. */
const LABEL = { grpc: 'grpc', grpcWeb: 'grpc_web', connect: 'connect' } as const;

let kh: TestKeyhold;
let projectId: string;
let adminUserId: string;
const secrets: string[] = [];
let n = 0;
const appName = () => `observed-${++n}-${Date.now()}`;

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** GET /metrics, as Prometheus scrapes it: the text format, parsed into samples. */
async function scrape(): Promise<{ contentType: string | null; samples: Sample[]; text: string }> {
  const res = await fetch(`${kh.url}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(m, `a sample line: ${line}`).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m![2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
    samples.push({ name: m![1]!, labels, value: Number(m![3]) });
  }
  return { contentType: res.headers.get('content-type'), samples, text };
}

/** The value of the one sample with this name and (at least) these labels; 0 when there is none. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  expect(found.length, `${name} ${JSON.stringify(labels)}: at most one series`).toBeLessThanOrEqual(1);
  return found[0]?.value ?? 0;
}

const requestsOf = (samples: Sample[], method: string, protocol: string, code: string) =>
  value(samples, 'keyhold_requests_total', { service: MANAGEMENT, method, protocol, code });

/** The request log lines (JSON) Keyhold wrote so far. */
const requestLines = () =>
  kh.logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
const lineOf = (requestId: string) => {
  const lines = requestLines().filter((l) => l.requestId === requestId);
  expect(lines, `one request line for ${requestId}`).toHaveLength(1);
  return lines[0]!;
};

/** What every line of a finished RPC carries. */
function expectRequestLine(line: Record<string, unknown>, expected: Record<string, unknown>) {
  expect(line).toMatchObject({ level: 30, ...expected });
  expect(typeof line.durationMs).toBe('number');
  expect(line.durationMs as number).toBeGreaterThanOrEqual(0);
  expect(line.durationMs as number).toBeLessThan(60_000);
}

beforeAll(async () => {
  kh = await startTestKeyhold();
  if (!kh.bootstrap.created) throw new Error('expected a fresh instance');
  adminUserId = kh.bootstrap.adminUserId;
  projectId = (await kh.client(ManagementService).addProject({ name: 'Observed' })).id;
});
afterAll(async () => kh?.close());

describe('calls over all four protocols, then a scrape and the log', () => {
  const answered: Record<string, { ok: string; error: string }> = {};
  let before: Sample[];

  beforeAll(async () => {
    before = (await scrape()).samples;
    for (const protocol of RPC_PROTOCOLS) {
      const ok = `ok-${protocol}-${Date.now()}`;
      const error = `error-${protocol}-${Date.now()}`;
      const client = kh.client(ManagementService, protocol, undefined, { 'x-request-id': ok });
      let echoed: string | null = null;
      const added = await client.addOIDCApp(
        { projectId, name: appName(), redirectUris: ['https://app.example/cb'] },
        { onHeader: (h) => (echoed = h.get('x-request-id')) },
      );
      expect(added.clientSecret, 'BASIC: a secret, shown once').not.toBe('');
      secrets.push(added.clientSecret);
      expect(echoed, `${protocol}: x-request-id echoed on an answer`).toBe(ok);
      // The error over gRPC goes the general way (a deadline takes it off the fast path).
      const failing = kh.client(ManagementService, protocol, undefined, { 'x-request-id': error });
      const err = await rpcError(failing.addOIDCApp({ projectId, name: '', redirectUris: ['https://app.example/cb'] }, { timeoutMs: 30_000 }));
      expect(err.code).toBe(Code.InvalidArgument);
      expect(err.errorInfo?.metadata.requestId, `${protocol}: the request id in ErrorInfo.metadata`).toBe(error);
      answered[protocol] = { ok, error };
    }
  });

  it('gRPC, gRPC-Web and Connect: counted by service, method, protocol and code', async () => {
    const { samples, contentType } = await scrape();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const protocol of RPC_PROTOCOLS) {
      const label = LABEL[protocol];
      const delta = (code: string) => requestsOf(samples, 'AddOIDCApp', label, code) - requestsOf(before, 'AddOIDCApp', label, code);
      expect(delta('OK'), `${label} OK`).toBe(1);
      expect(delta('INVALID_ARGUMENT'), `${label} INVALID_ARGUMENT`).toBe(1);
      const latency = { service: MANAGEMENT, method: 'AddOIDCApp', protocol: label };
      expect(value(samples, 'keyhold_request_duration_seconds_count', latency) - value(before, 'keyhold_request_duration_seconds_count', latency)).toBe(2);
      expect(value(samples, 'keyhold_request_duration_seconds_bucket', { ...latency, le: '+Inf' })).toBe(value(samples, 'keyhold_request_duration_seconds_count', latency));
    }
  });

  it('their log lines: protocol, RPC, HTTP status, code, reason, duration, caller and request id', () => {
    for (const protocol of RPC_PROTOCOLS) {
      const { ok, error } = answered[protocol]!;
      const rpc = `/${MANAGEMENT}/AddOIDCApp`;
      expectRequestLine(lineOf(ok), { protocol: LABEL[protocol], rpc, httpStatus: 200, code: 'OK', userId: adminUserId });
      expect(lineOf(ok).reason).toBeUndefined();
      expectRequestLine(lineOf(error), {
        protocol: LABEL[protocol],
        rpc,
        httpStatus: protocol === 'connect' ? 400 : 200,
        code: 'INVALID_ARGUMENT',
        reason: 'INVALID_REQUEST',
        userId: adminUserId,
      });
    }
  });

  it('REST: the route template, never the URL or its query; the Status code of the answer', async () => {
    const route = 'POST /management/v1/projects/{project_id}/apps/oidc';
    const res = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: appName(), redirectUris: ['https://app.example/cb'] }, { 'x-request-id': 'rest-ok' });
    expect(res.status).toBe(200);
    secrets.push(res.body.clientSecret);
    expect(res.headers.get('x-request-id')).toBe('rest-ok');
    // A query a user should never have sent: a login hint and a token-like value.
    const hint = 'alice.secret-hint@example.com';
    const bad = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc?login_hint=${encodeURIComponent(hint)}`, { name: appName() }, { 'x-request-id': 'rest-error' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-request-id')).toBe('rest-error');
    const info = bad.body.details.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
    expect(info.metadata.requestId).toBe('rest-error');

    expectRequestLine(lineOf('rest-ok'), { protocol: 'rest', route, rpc: `/${MANAGEMENT}/AddOIDCApp`, httpStatus: 200, code: 'OK', userId: adminUserId });
    expectRequestLine(lineOf('rest-error'), { protocol: 'rest', route, httpStatus: 400, code: 'INVALID_ARGUMENT', reason: 'MALFORMED_BODY' });
    const log = kh.logLines.join('\n');
    expect(log).not.toContain(projectId + '/apps');
    expect(log).not.toContain('login_hint');
    expect(log).not.toContain('secret-hint');

    const { samples } = await scrape();
    expect(requestsOf(samples, 'AddOIDCApp', 'rest', 'OK') - requestsOf(before, 'AddOIDCApp', 'rest', 'OK')).toBe(1);
    expect(requestsOf(samples, 'AddOIDCApp', 'rest', 'INVALID_ARGUMENT') - requestsOf(before, 'AddOIDCApp', 'rest', 'INVALID_ARGUMENT')).toBe(1);
  });

  it('an unknown token: UNAUTHENTICATED on every protocol, no caller, the token in no line', async () => {
    const wrong = 'kh_' + 'x'.repeat(43);
    for (const protocol of RPC_PROTOCOLS) {
      const id = `unauth-${protocol}`;
      const err = await rpcError(kh.client(ManagementService, protocol, wrong, { 'x-request-id': id }).getProjectByID({ id: projectId }));
      expect(err.code).toBe(Code.Unauthenticated);
      expect(err.errorInfo?.metadata.requestId).toBe(id);
      const line = lineOf(id);
      expectRequestLine(line, { protocol: LABEL[protocol], code: 'UNAUTHENTICATED', reason: 'UNAUTHENTICATED' });
      expect(line.userId).toBeUndefined();
    }
    const res = await kh.rest('GET', `/management/v1/projects/${projectId}`, undefined, { authorization: `Bearer ${wrong}`, 'x-request-id': 'unauth-rest' });
    expect(res.status).toBe(401);
    expectRequestLine(lineOf('unauth-rest'), { protocol: 'rest', route: 'GET /management/v1/projects/{id}', httpStatus: 401, code: 'UNAUTHENTICATED' });
    expect(kh.logLines.join('\n')).not.toContain(wrong);
    const { samples } = await scrape();
    for (const protocol of ['grpc', 'grpc_web', 'connect', 'rest']) {
      expect(requestsOf(samples, 'GetProjectByID', protocol, 'UNAUTHENTICATED'), protocol).toBe(1);
    }
  });

  it('no line holds a token, a client secret or an Authorization value', () => {
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    const log = kh.logLines.join('\n');
    expect(log).not.toContain(kh.adminToken);
    expect(log).not.toMatch(/bearer/i);
    expect(log).not.toMatch(/authorization/i);
    for (const secret of secrets) expect(log).not.toContain(secret);
    // One line per request: every answered call above has exactly one.
    const ids = requestLines().map((l) => l.requestId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('request ids', () => {
  it('one is made when the client sends none, and when what it sends is not plausible or looks like a token', async () => {
    const cases: (string | undefined)[] = [undefined, 'x'.repeat(129), 'with space', 'kh_someTokenPastedHere', 'tab\there'];
    const made = new Set<string>();
    for (const sent of cases) {
      const res = await kh.rest('GET', `/management/v1/projects/${projectId}`, undefined, sent === undefined ? {} : { 'x-request-id': sent });
      expect(res.status).toBe(200);
      const id = res.headers.get('x-request-id')!;
      expect(id, String(sent)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      made.add(id);
      expectRequestLine(lineOf(id), { protocol: 'rest', code: 'OK' });
    }
    expect(made.size).toBe(cases.length);
    expect(kh.logLines.join('\n')).not.toContain('kh_someTokenPastedHere');
    // A plausible one of the maximum length is kept.
    const long = 'a'.repeat(128);
    expect((await kh.rest('GET', `/management/v1/projects/${projectId}`, undefined, { 'x-request-id': long })).headers.get('x-request-id')).toBe(long);
  });

  it('errors outside any RPC carry it too: an unknown route (logged without its path)', async () => {
    const res = await kh.rest('GET', '/no/such/kh_pastedToken?id_token_hint=eyJhbGciOi', undefined, { 'x-request-id': 'unrouted' });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe('unrouted');
    expect(res.body.details[0].metadata.requestId).toBe('unrouted');
    const line = lineOf('unrouted');
    expect(line).toMatchObject({ httpStatus: 404, code: 'NOT_FOUND', reason: 'ROUTE_NOT_FOUND' });
    expect(line.route).toBeUndefined();
    expect(line.rpc).toBeUndefined();
    const log = kh.logLines.join('\n');
    expect(log).not.toContain('pastedToken');
    expect(log).not.toContain('eyJhbGciOi');
  });
});

/** One HTTP/1.1 request written as is (what fetch would refuse to send); the status, head and body of the answer. */
function rawHttp1(head: string[], body = ''): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: kh.port }, () => socket.write(`${head.join('\r\n')}\r\nConnection: close\r\n\r\n${body}`));
    let data = '';
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const split = data.indexOf('\r\n\r\n');
      resolve({ status: Number(data.slice(9, 12)), head: data.slice(0, split), body: data.slice(split + 4) });
    });
  });
}

describe('a request refused before routing (its head)', () => {
  it('Authorization sent twice: 400 REPEATED_HEADER with the request id, one line, neither token in it', async () => {
    const body = JSON.stringify({ name: 'never' });
    const res = await rawHttp1(
      [
        'POST /management/v1/projects HTTP/1.1',
        'Host: localhost',
        `Authorization: Bearer ${kh.adminToken}`,
        'Authorization: Bearer kh_secondTokenNeverLogged',
        'x-request-id: refused-head',
        'Content-Type: application/json',
        `Content-Length: ${body.length}`,
      ],
      body,
    );
    expect(res.status).toBe(400);
    expect(res.head).toMatch(/^x-request-id: refused-head$/im);
    expect(JSON.parse(res.body).details[0].metadata).toEqual({ header: 'authorization', requestId: 'refused-head' });
    expect(lineOf('refused-head')).toMatchObject({ level: 30, httpStatus: 400, code: 'INVALID_ARGUMENT', reason: 'REPEATED_HEADER', clientAddress: '127.0.0.1' });
    const log = kh.logLines.join('\n');
    expect(log).not.toContain(kh.adminToken);
    expect(log).not.toContain('secondTokenNeverLogged');
  });
});

describe('the other instruments', () => {
  it('appends, group-commit transactions and a database error (a taken app name) move', async () => {
    const before = (await scrape()).samples;
    const name = appName();
    const client = kh.client(ManagementService, 'connect');
    secrets.push((await client.addOIDCApp({ projectId, name, redirectUris: ['https://app.example/cb'] })).clientSecret);
    const taken = await rpcError(client.addOIDCApp({ projectId, name, redirectUris: ['https://app.example/cb'] }));
    expect(taken.code).toBe(Code.AlreadyExists);
    expect(taken.reason).toBe('APP_NAME_TAKEN');
    const after = (await scrape()).samples;
    const moved = (metric: string, labels?: Record<string, string>) => value(after, metric, labels) - value(before, metric, labels);
    expect(moved('keyhold_event_appends_total')).toBe(1);
    expect(moved('keyhold_events_appended_total')).toBeGreaterThanOrEqual(1);
    expect(moved('keyhold_group_commit_batch_size_count'), 'one transaction per append here, the refused one included').toBe(2);
    expect(moved('keyhold_group_commit_batch_size_bucket', { le: '1' })).toBe(2);
    expect(moved('keyhold_database_errors_total', { kind: 'unique_violation' })).toBe(1);
    for (const kind of ['unavailable', 'storage_full', 'storage_unavailable', 'conflict', 'other']) {
      expect(after.some((s) => s.name === 'keyhold_database_errors_total' && s.labels.kind === kind), `${kind} shown at 0`).toBe(true);
    }
    expect(requestsOf(after, 'AddOIDCApp', 'connect', 'ALREADY_EXISTS')).toBe(1);
  });

  it('group commit: the batch sizes of concurrent appends add up to the appends, in fewer transactions when they share', async () => {
    const before = (await scrape()).samples;
    const client = kh.client(ManagementService, 'grpc');
    const added = await Promise.all(Array.from({ length: 12 }, () => client.addOIDCApp({ projectId, name: appName(), redirectUris: ['https://app.example/cb'] })));
    secrets.push(...added.map((a) => a.clientSecret));
    const after = (await scrape()).samples;
    const moved = (metric: string) => value(after, metric) - value(before, metric);
    expect(moved('keyhold_event_appends_total')).toBe(12);
    expect(moved('keyhold_group_commit_batch_size_sum'), 'each append in exactly one transaction').toBe(12);
    const transactions = moved('keyhold_group_commit_batch_size_count');
    expect(transactions).toBeGreaterThanOrEqual(1);
    expect(transactions).toBeLessThanOrEqual(12);
    console.log(`[observability] 12 concurrent appends in ${transactions} transaction(s)`);
  });

  it('in-flight requests: an open health Watch counts until it ends', async () => {
    const inFlight = async () => value((await scrape()).samples, 'keyhold_requests_in_flight');
    expect(await inFlight(), 'the scrape itself').toBe(1);
    const abort = new AbortController();
    const watch = createClient(Health, kh.transports().connect).watch({ service: '' }, { signal: abort.signal });
    const first = await watch[Symbol.asyncIterator]().next();
    expect(first.value?.status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect(await inFlight(), 'the scrape and the watch').toBe(2);
    abort.abort();
    const deadline = Date.now() + 5_000;
    let now = await inFlight();
    while (now !== 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      now = await inFlight();
    }
    expect(now, 'the watch ended').toBe(1);
    // Probes log at debug, not info: the watch, the scrapes and /healthz leave no info line.
    await fetch(`${kh.url}/healthz`);
    expect(requestLines().filter((l) => l.rpc === '/grpc.health.v1.Health/Watch' || l.route === 'GET /metrics' || l.route === 'GET /healthz')).toEqual([]);
  });

  it('the verification queue depth, and Node’s process metrics, on a registry of this Keyhold’s own', async () => {
    const { samples } = await scrape();
    expect(value(samples, 'keyhold_verification_queue_depth')).toBe(0);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(samples.some((s) => s.name === name), name).toBe(true);
    }
    expect(globalRegistry.getSingleMetric('keyhold_requests_total'), 'nothing on prom-client’s global registry').toBeUndefined();
    expect(kh.metrics.registry).not.toBe(globalRegistry);
  });

  it('labels name only the schema’s services and methods, never an id', async () => {
    const { samples } = await scrape();
    const keyhold = samples.filter((s) => s.name.startsWith('keyhold_'));
    for (const s of keyhold) {
      for (const v of Object.values(s.labels)) {
        expect(v).not.toContain(projectId);
        expect(v).not.toContain(adminUserId);
      }
      if (s.labels.protocol !== undefined) expect(['grpc', 'grpc_web', 'connect', 'rest']).toContain(s.labels.protocol);
      if (s.labels.code !== undefined) expect(s.labels.code).toMatch(/^[A-Z_]+$/);
    }
  });
});

describe('KEYHOLD_METRICS', () => {
  it('is on unless set to off; anything else stops the start naming the variable', () => {
    expect(loadConfig({}).metrics).toBe(true);
    expect(loadConfig({ KEYHOLD_METRICS: 'off' }).metrics).toBe(false);
    expect(loadConfig({ KEYHOLD_METRICS: 'on' }).metrics).toBe(true);
    expect(() => loadConfig({ KEYHOLD_METRICS: 'maybe' })).toThrow(ConfigError);
    expect(() => loadConfig({ KEYHOLD_METRICS: 'maybe' })).toThrow(/KEYHOLD_METRICS/);
  });
});

describe('the whole log, after every call above', () => {
  it('holds no client secret issued here, no token, no Authorization value', () => {
    expect(secrets.length).toBe(17);
    const log = kh.logLines.join('\n');
    for (const secret of secrets) expect(log).not.toContain(secret);
    expect(log).not.toContain(kh.adminToken);
    expect(log).not.toMatch(/bearer|authorization/i);
  });
});

describe('browsers (KEYHOLD_CORS_ORIGINS)', () => {
  it('may send x-request-id and read it back', async () => {
    const { default: Fastify } = await import('fastify');
    const { registerCors } = await import('../../src/server/http/cors.js');
    const app = Fastify();
    registerCors(app, ['https://console.example']);
    app.post('/x', async (_req, reply) => reply.header('x-request-id', 'abc').send({}));
    const origin = 'https://console.example';
    const preflight = await app.inject({ method: 'OPTIONS', url: '/x', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-request-id' } });
    expect(preflight.statusCode).toBe(204);
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase().split(', ')).toContain('x-request-id');
    const res = await app.inject({ method: 'POST', url: '/x', headers: { origin } });
    expect(String(res.headers['access-control-expose-headers']).toLowerCase().split(', ')).toContain('x-request-id');
    await app.close();
  });
});

describe("the OpenID Provider's requests (hijacked before the API's hooks)", () => {
  it('are logged by route with their id, never with the query or an unknown path', async () => {
    const hint = 'someone-to-hide@example.com';
    const authorize = await fetch(`${kh.url}/oauth/v2/authorize?client_id=nosuchclient&login_hint=${hint}&response_type=code`, {
      redirect: 'manual',
      headers: { 'x-request-id': 'oidc-authorize-1' },
    });
    expect(authorize.headers.get('x-request-id')).toBe('oidc-authorize-1');
    const odd = await fetch(`${kh.url}/oauth/v2/kh_pastedTokenInAPath`, { headers: { 'x-request-id': 'oidc-odd-1' } });
    expect(odd.headers.get('x-request-id')).toBe('oidc-odd-1');
    const discovery = await fetch(`${kh.url}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    const discoveryId = discovery.headers.get('x-request-id');
    expect(discoveryId).toBeTruthy();
    await Promise.all([authorize.text(), odd.text(), discovery.text()]);
    await new Promise((r) => setTimeout(r, 50)); // the line is written when the response closes

    expectRequestLine(lineOf('oidc-authorize-1'), { route: 'GET /oauth/v2/authorize', httpStatus: authorize.status });
    expectRequestLine(lineOf('oidc-odd-1'), { route: 'GET /oauth/v2/…', httpStatus: odd.status });
    expectRequestLine(lineOf(discoveryId!), { route: 'GET /.well-known/openid-configuration', httpStatus: 200 });
    const log = kh.logLines.join('\n');
    expect(log).not.toContain(hint);
    expect(log).not.toContain('kh_pastedTokenInAPath');
  });

  it('a refusal is logged by its OAuth error, description and client, coded as its HTTP status means — never with what was sent', async () => {
    const app = await addApp(kh, projectId, { redirectUris: ['https://app.example/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC' });
    const sentCode = 'a-code-nobody-issued-7f3a';
    const token = await fetch(`${kh.url}/oauth/v2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        'x-request-id': 'oauth-refused-1',
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: sentCode, redirect_uri: 'https://app.example/cb', scope: 'openid sent-scope-9c1e' }),
    });
    expect(token.status).toBe(400);
    const sentToken = 'an-opaque-token-nobody-issued-5d2b';
    const userinfo = await fetch(`${kh.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${sentToken}`, 'x-request-id': 'oauth-refused-2' } });
    expect(userinfo.status).toBe(401);
    await Promise.all([token.text(), userinfo.text()]);
    await new Promise((r) => setTimeout(r, 50));

    expectRequestLine(lineOf('oauth-refused-1'), {
      route: 'POST /oauth/v2/token',
      httpStatus: 400,
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_grant',
      description: 'grant request is invalid',
      clientId: app.clientId,
    });
    expectRequestLine(lineOf('oauth-refused-2'), { route: 'GET /oidc/v1/userinfo', httpStatus: 401, code: 'UNAUTHENTICATED', reason: 'invalid_token', description: 'invalid token provided' });
    const log = kh.logLines.join('\n');
    for (const sent of [sentCode, 'sent-scope-9c1e', sentToken]) expect(log).not.toContain(sent);
  });
});
