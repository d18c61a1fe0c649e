// The load generator: a child process of bench/run.ts, so the client's work is
// not the server's. It talks to Keyhold only over the network (fixtures through
// the generated connect-es client; timed gRPC calls through node:http2 directly,
// see lib/grpc-h2.ts; REST through node:http), creates the fixtures,
// prepares the pool of pending U2F registrations with fresh credentials before
// any timing starts, and runs each scenario as a closed loop of `concurrency`
// virtual users for a fixed time. Server CPU and peak RSS are read from /proc
// at the edges of the measured window.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { JsonObject } from '@bufbuild/protobuf';
import { createClient, type Client, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import {
  OIDCAppType,
  OIDCAuthMethodType,
  OIDCGrantType,
  OIDCResponseType,
} from '../gen/keyhold/management/v1/app_pb.js';
import { ManagementService } from '../gen/keyhold/management/v1/management_pb.js';
import { UserService } from '../gen/keyhold/user/v2/user_pb.js';
import { createSoftAuthenticator } from '../test/support/soft-authenticator.js';
import { cpuDelta, cpuSeconds, cpuSecondsByName, machineBusySeconds, peakRssBytes, resetPeakRss } from './lib/proc.js';
import { Samples, summarize } from './lib/stats.js';
import { connectGrpcH2, type GrpcH2Client } from './lib/grpc-h2.js';
import type { PendingCredential, ScenarioName, ScenarioResult, WorkerReply, WorkerRequest } from './lib/protocol.js';
import { LOGIN_PASSWORD, prepareChains, REDIRECT_URI, SURFACE_SCENARIOS, surfaceOperation, type SurfaceScenario, type SurfaceTarget } from './lib/login-surface.js';

let baseUrl = '';
let token = '';
let serverPid = 0;
let origin = '';
let mgmt: Client<typeof ManagementService>;
let users: Client<typeof UserService>;
let agent: http.Agent;
let h2: GrpcH2Client;
let url: URL;
let projectId = '';
let userIds: string[] = [];
let runTag = '';
let nameCounter = 0;
const pool: PendingCredential[] = [];
/** When each of the pool's registrations was made (same index). */
const preparedAt: number[] = [];
/**
 * A registration older than this is not handed out: Keyhold expires a pending one after
 * KEYHOLD_WEBAUTHN_TIMEOUT_MS (300 s by default), and what one level left over waits through the
 * next levels' preparations and runs (at c=64 after c=16, minutes).
 */
const POOL_FRESH_MS = 200_000;
/** The login surface's fixtures: Keyhold's, or the peer's after `retarget`. */
let surface: SurfaceTarget | undefined;
let poolNext = 0;

function init(req: Extract<WorkerRequest, { cmd: 'init' }>): void {
  ({ baseUrl, token, serverPid, origin } = req);
  runTag = req.tag;
  url = new URL(baseUrl);
  const auth: Interceptor = (next) => (r) => {
    r.header.set('authorization', `Bearer ${token}`);
    return next(r);
  };
  const transport = createGrpcTransport({ baseUrl, interceptors: [auth] });
  mgmt = createClient(ManagementService, transport);
  users = createClient(UserService, transport);
  agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  h2 = connectGrpcH2(baseUrl, token);
}

function rest(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const r = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(payload);
  });
}

/** The app every AddOIDCApp call creates: a confidential web app (BASIC: a secret is generated and hashed). */
function oidcRequest(name: string) {
  return {
    projectId,
    name,
    redirectUris: ['https://app.example.com/auth/callback'],
    postLogoutRedirectUris: ['https://app.example.com/signed-out'],
    responseTypes: [OIDCResponseType.OIDC_RESPONSE_TYPE_CODE],
    grantTypes: [OIDCGrantType.OIDC_GRANT_TYPE_AUTHORIZATION_CODE, OIDCGrantType.OIDC_GRANT_TYPE_REFRESH_TOKEN],
    appType: OIDCAppType.OIDC_APP_TYPE_WEB,
    authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_BASIC,
  };
}

function oidcRestBody(name: string) {
  return {
    name,
    redirectUris: ['https://app.example.com/auth/callback'],
    postLogoutRedirectUris: ['https://app.example.com/signed-out'],
    responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
    grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
    appType: 'OIDC_APP_TYPE_WEB',
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
  };
}

const nextName = (scenario: string) => `bench ${runTag} ${scenario} ${++nameCounter}`;

async function fixtures(userCount: number): Promise<{ projectId: string; userIds: string[] }> {
  ({ id: projectId } = await mgmt.addProject({ name: `bench project ${runTag}` }));
  userIds = [];
  for (let i = 0; i < userCount; i++) {
    const { userId } = await users.addHumanUser({
      username: `bench-${runTag}-${i}`,
      profile: { givenName: 'Bench', familyName: `User ${i}` },
      email: { email: `bench-${i}@example.com` },
    });
    userIds.push(userId);
  }
  return { projectId, userIds };
}

/**
 * The login surface's fixtures on Keyhold, untimed: two machine users with
 * secrets (BEARER, JWT), a confidential web app (code + refresh, BASIC), human
 * users with a password, as many again with a registered security key (a
 * software authenticator that keeps its key for the assertions), and `chains`
 * refresh chains made by full logins through the login UI.
 */
async function surfaceFixtures(req: Extract<WorkerRequest, { cmd: 'surface-fixtures' }>): Promise<{ ms: number; chains: number }> {
  const started = performance.now();
  const ok = (what: string, res: { status: number; text: string }) => {
    if (res.status !== 200) throw new Error(`${what}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
    return JSON.parse(res.text) as Record<string, string>;
  };
  const machine = async (type: 'ACCESS_TOKEN_TYPE_BEARER' | 'ACCESS_TOKEN_TYPE_JWT') => {
    const name = `bench-${runTag}-${type.slice(18).toLowerCase()}`;
    const { userId } = ok('AddMachineUser', await rest('POST', '/management/v1/users/machine', { userName: name, name, accessTokenType: type }));
    const secret = ok('GenerateMachineSecret', await rest('PUT', `/management/v1/users/${userId}/secret`, {}));
    return { clientId: secret.clientId, clientSecret: secret.clientSecret };
  };
  const app = ok(
    'AddOIDCApp',
    await rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, {
      ...oidcRestBody(`bench ${runTag} login app`),
      redirectUris: [REDIRECT_URI],
    }),
  );
  const human = async (username: string) =>
    ok(
      'AddHumanUser',
      await rest('POST', '/v2/users/human', {
        username,
        profile: { givenName: 'Bench', familyName: 'Login' },
        email: { email: `${username}@example.com` },
        password: { password: LOGIN_PASSWORD, changeRequired: false },
      }),
    ).userId;
  const loginUsers = Array.from({ length: req.users }, (_, i) => `bench-${runTag}-login-${i}`);
  const keyNames = Array.from({ length: req.users }, (_, i) => `bench-${runTag}-key-${i}`);
  const keyUsers: NonNullable<SurfaceTarget['keyUsers']> = new Array(req.users);
  await inParallel(loginUsers.length, 8, async (i) => void (await human(loginUsers[i])));
  await inParallel(keyNames.length, 8, async (i) => {
    const userId = await human(keyNames[i]);
    const res = await users.registerU2F({ userId, domain: '' }, { timeoutMs: 30_000 });
    const options = res.publicKeyCredentialCreationOptions as { challenge: string; rp: { id: string } };
    const key = createSoftAuthenticator({ alg: -7 });
    const credential = key.makeRegistration({ challenge: options.challenge, origin, rpId: options.rp.id, fmt: 'none' });
    await users.verifyU2FRegistration({ userId, u2fId: res.u2fId, publicKeyCredential: credential as never, tokenName: 'bench key' }, { timeoutMs: 30_000 });
    keyUsers[i] = { username: keyNames[i], key };
  });
  // Passkey users: a resident, user-verified credential of a software authenticator (as test/support/soft-passkey.ts makes one), registered over REST.
  const passkeyNames = Array.from({ length: req.users }, (_, i) => `bench-${runTag}-passkey-${i}`);
  const passkeyUsers: NonNullable<SurfaceTarget['passkeyUsers']> = new Array(req.users);
  await inParallel(passkeyNames.length, 8, async (i) => {
    const userId = await human(passkeyNames[i]);
    const reg = JSON.parse((await rest('POST', `/v2/users/${userId}/passkeys`, {})).text) as { passkeyId: string; publicKeyCredentialCreationOptions: { challenge: string; rp: { id: string }; user: { id: string } } };
    const options = reg.publicKeyCredentialCreationOptions;
    const key = createSoftAuthenticator({ alg: -7 });
    const credential = key.makeRegistration({ challenge: options.challenge, origin, rpId: options.rp.id, fmt: 'none', flags: { uv: true, be: true, bs: true } });
    ok('VerifyPasskeyRegistration', await rest('POST', `/v2/users/${userId}/passkeys/${reg.passkeyId}`, { publicKeyCredential: credential, passkeyName: 'bench passkey' }));
    passkeyUsers[i] = { userHandle: options.user.id, key };
  });
  surface = {
    kind: 'keyhold',
    baseUrl: origin,
    ccBearer: await machine('ACCESS_TOKEN_TYPE_BEARER'),
    ccJwt: await machine('ACCESS_TOKEN_TYPE_JWT'),
    app: { clientId: app.clientId, clientSecret: app.clientSecret },
    chains: [],
    loginUsers,
    keyUsers,
    passkeyUsers,
    password: LOGIN_PASSWORD,
    origin,
  };
  surface.chains = await prepareChains(surface, req.chains);
  return { ms: Math.round(performance.now() - started), chains: surface.chains.length };
}

/** Runs `task(i)` for i in 0..count-1 with at most `parallel` in flight. */
async function inParallel(count: number, parallel: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/**
 * Grows the pool of pending registrations by `count`: RegisterU2F for users in
 * turn, then a fresh authenticator (own P-256 key, own credential id) answers
 * each challenge, alternating packed self-attestation and none. Untimed.
 */
async function prepareU2f(count: number): Promise<{ prepared: number; ms: number }> {
  const started = performance.now();
  const base = pool.length;
  const made: PendingCredential[] = new Array(count);
  const times: number[] = new Array(count);
  let done = 0;
  // Progress on stderr: a preparation of thousands of registrations takes a while.
  const progress = setInterval(() => console.error(`[worker] prepared ${done} of ${count} registrations`), 10_000);
  try {
    await inParallel(count, 32, async (i) => {
      const userId = userIds[(base + i) % userIds.length];
      // A deadline, so that a lost answer fails the run with a message instead of hanging it.
      const res = await users.registerU2F({ userId, domain: '' }, { timeoutMs: 30_000 });
      const options = res.publicKeyCredentialCreationOptions as { challenge: string; rp: { id: string } };
      const fmt = (base + i) % 2 === 0 ? 'packed' : 'none';
      const credential = createSoftAuthenticator({ alg: -7 }).makeRegistration({
        challenge: options.challenge,
        origin,
        rpId: options.rp.id,
        fmt,
      });
      made[i] = { userId, u2fId: res.u2fId, challenge: options.challenge, rpId: options.rp.id, fmt, credential: credential as never };
      times[i] = Date.now();
      done++;
    });
  } finally {
    clearInterval(progress);
  }
  pool.push(...made);
  preparedAt.push(...times);
  return { prepared: count, ms: Math.round(performance.now() - started) };
}

/** The operation of a scenario; resolves when the server answered as expected, throws otherwise. */
function operation(scenario: ScenarioName): ((vu: number) => Promise<void>) | undefined {
  if ((SURFACE_SCENARIOS as readonly string[]).includes(scenario)) {
    if (!surface) throw new Error(`${scenario}: no login-surface fixtures (surface-fixtures or retarget first)`);
    return surfaceOperation(surface, scenario as SurfaceScenario);
  }
  switch (scenario) {
    case 'healthz-grpc':
      return async () => {
        await h2.unary(ManagementService.method.healthz, {});
      };
    case 'healthz-rest':
      return async () => {
        const res = await rest('GET', '/management/v1/healthz');
        if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.text.slice(0, 200)}`);
      };
    case 'oidc-grpc':
      return async () => {
        const res = await h2.unary(ManagementService.method.addOIDCApp, oidcRequest(nextName('grpc')));
        if (res.clientSecret.length !== 64 || !res.appId) throw new Error('AddOIDCApp answered without app id or secret');
      };
    case 'oidc-rest': {
      const path = `/management/v1/projects/${projectId}/apps/oidc`;
      return async () => {
        const res = await rest('POST', path, oidcRestBody(nextName('rest')));
        if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.text.slice(0, 200)}`);
        const body = JSON.parse(res.text) as { appId?: string; clientSecret?: string };
        if (!body.appId || body.clientSecret?.length !== 64) throw new Error('AddOIDCApp answered without app id or secret');
      };
    }
    case 'u2f-grpc':
      return undefined; // needs the pool: see runScenario
    default:
      return undefined;
  }
}

async function runScenario(req: Extract<WorkerRequest, { cmd: 'run' }>): Promise<ScenarioResult> {
  const { scenario, concurrency, warmupMs, durationMs } = req;
  let op = operation(scenario);
  let limitReached = false;
  if (scenario === 'u2f-grpc') {
    op = async () => {
      if (poolNext >= pool.length) {
        limitReached = true;
        throw new PoolExhausted();
      }
      const p = pool[poolNext++];
      const res = await h2.unary(UserService.method.verifyU2FRegistration, {
        userId: p.userId,
        u2fId: p.u2fId,
        publicKeyCredential: p.credential as JsonObject,
        tokenName: `bench key ${p.fmt}`,
      });
      if (!res.details || res.details.sequence !== 2n) throw new Error('VerifyU2FRegistration answered without details');
    };
  }
  const call = op!;
  const sql = await countedPerOp(scenario, call);

  const latencies = new Samples();
  let errors = 0;
  const errorSamples: string[] = [];
  let completedInWindow = 0;
  let completedTotal = 0;
  const t0 = performance.now();
  const windowStartsAt = t0 + warmupMs;
  const windowEndsAt = windowStartsAt + durationMs;
  let windowStart: number | undefined;
  let windowEnd: number | undefined;
  let serverCpu0 = 0;
  let serverCpu1 = 0;
  let machine0 = 0;
  let machine1 = 0;
  let db0 = new Map<number, number>();
  let db1 = db0;
  let clientCpu0 = process.cpuUsage();
  let clientCpu1 = clientCpu0;
  let peakRss = NaN;
  let hwmReset = false;

  let monoStart = 0n;
  let monoEnd = 0n;
  const openWindow = (now: number) => {
    windowStart = now;
    monoStart = process.hrtime.bigint();
    serverCpu0 = cpuSeconds(serverPid);
    machine0 = machineBusySeconds();
    db0 = cpuSecondsByName('postgres');
    clientCpu0 = process.cpuUsage();
    hwmReset = resetPeakRss(serverPid);
  };
  const closeWindow = (now: number) => {
    windowEnd = now;
    monoEnd = process.hrtime.bigint();
    serverCpu1 = cpuSeconds(serverPid);
    machine1 = machineBusySeconds();
    db1 = cpuSecondsByName('postgres');
    clientCpu1 = process.cpuUsage();
    peakRss = peakRssBytes(serverPid);
  };
  if (warmupMs <= 0) openWindow(performance.now());
  // The window also opens and closes on time when no caller starts an operation then
  // (operations longer than the window: logins at c=64 on a loaded machine).
  const timers = [
    setTimeout(() => windowStart === undefined && openWindow(performance.now()), warmupMs),
    setTimeout(() => windowStart !== undefined && windowEnd === undefined && closeWindow(performance.now()), warmupMs + durationMs),
  ];

  await Promise.all(
    Array.from({ length: concurrency }, async (_, vu) => {
      // Logins take seconds at c=64: callers that all start at once share the CPU and finish together,
      // so a short window could see none finish. Their starts are spread over the first half of the warm-up.
      if (scenario === 'login' || scenario === 'login-key' || scenario === 'login-passkey') await new Promise((r) => setTimeout(r, (vu * warmupMs) / concurrency / 2));
      for (;;) {
        const before = performance.now();
        if (windowStart === undefined && before >= windowStartsAt) openWindow(before);
        if (before >= windowEndsAt) {
          if (windowEnd === undefined) closeWindow(before);
          return;
        }
        try {
          await call(vu);
        } catch (e) {
          if (e instanceof PoolExhausted) return;
          errors++;
          if (errorSamples.length < 5) errorSamples.push(String((e as Error)?.message ?? e).slice(0, 300));
          continue;
        }
        const after = performance.now();
        completedTotal++;
        // Every operation that completes inside the window counts (also one begun before it): with
        // operations of seconds (logins at c=64), counting only those begun inside would undercount.
        if (windowStart !== undefined && windowEnd === undefined && after > windowStart && after <= windowEndsAt) {
          completedInWindow++;
          latencies.push(after - before);
        }
      }
    }),
  );
  for (const timer of timers) clearTimeout(timer);
  const end = performance.now();
  if (windowStart === undefined) openWindow(end);
  if (windowEnd === undefined) closeWindow(end);
  // Ops count when they completed by the nominal end; CPU covers the sampled span.
  const sampledSeconds = (windowEnd! - windowStart!) / 1000;
  const seconds = limitReached ? sampledSeconds : (Math.min(windowEnd!, windowEndsAt) - windowStart!) / 1000;
  const clientCpu = (clientCpu1.user - clientCpu0.user + clientCpu1.system - clientCpu0.system) / 1e6;
  const serverCpu = serverCpu1 - serverCpu0;
  const dbCpu = cpuDelta(db0, db1);
  const perCent = (cpu: number) => (sampledSeconds > 0 ? Math.round((cpu / sampledSeconds) * 1000) / 10 : NaN);
  return {
    scenario,
    concurrency,
    seconds: Math.round(seconds * 1000) / 1000,
    ops: completedInWindow,
    opsPerSecond: seconds > 0 ? Math.round((completedInWindow / seconds) * 10) / 10 : 0,
    latency: summarize(latencies.values()),
    errors,
    errorSamples,
    serverCpuPercent: perCent(serverCpu),
    // Server CPU time per completed operation: robust to other load on the machine.
    serverCpuMsPerOp: completedTotal > 0 ? Math.round((serverCpu / Math.max(1, completedInWindow)) * 1e6) / 1e3 : NaN,
    clientCpuPercent: perCent(clientCpu),
    // Every process named "postgres" (the PostgreSQL server's backends; 0 on PGlite).
    dbCpuPercent: perCent(dbCpu),
    // Everything else the machine did meanwhile (other people's test runs…).
    otherCpuPercent: perCent(machine1 - machine0 - serverCpu - clientCpu - dbCpu),
    serverPeakRssMiB: Math.round((peakRss / 1024 / 1024) * 10) / 10,
    peakRssScope: hwmReset ? 'window' : 'process',
    poolExhausted: limitReached,
    ...(sql ? { sql } : {}),
    completedTotal,
    // CLOCK_MONOTONIC in µs, the clock of V8's profile timestamps: bench/profile.ts cuts a server profile to this window.
    windowMonotonicUs: [Number(monoStart / 1000n), Number(monoEnd / 1000n)],
  };
}

class PoolExhausted extends Error {}

/** Keyhold's statement and transaction totals (GET /metrics); undefined where there are none (the peer). */
async function sqlTotals(): Promise<{ statements: number; transactions: number } | undefined> {
  try {
    const res = await fetch(new URL('/metrics', baseUrl));
    if (!res.ok) return undefined;
    const text = await res.text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
    const totals = { statements: value('keyhold_sql_statements_total'), transactions: value('keyhold_sql_transactions_total') };
    return Number.isFinite(totals.statements) ? totals : undefined;
  } catch {
    return undefined;
  }
}

const SQL_RUNS = 5;
const sqlCounted = new Map<ScenarioName, ScenarioResult['sql']>();

/**
 * SQL statements and transactions of one operation, before the load: SQL_RUNS
 * operations one at a time, nothing else running, the fewest counted (a
 * housekeeping sweep may land in one). Counts, not times: the same on any
 * machine. Once per scenario (the count does not depend on the concurrency).
 */
async function countedPerOp(scenario: ScenarioName, call: (vu: number) => Promise<void>): Promise<ScenarioResult['sql']> {
  if (sqlCounted.has(scenario)) return sqlCounted.get(scenario);
  let best: ScenarioResult['sql'];
  if (await sqlTotals()) {
    for (let i = 0; i < SQL_RUNS; i++) {
      const before = await sqlTotals();
      await call(0);
      const after = await sqlTotals();
      if (!before || !after) break;
      const run = { statementsPerOp: after.statements - before.statements, transactionsPerOp: after.transactions - before.transactions, runs: SQL_RUNS };
      if (!best || run.statementsPerOp < best.statementsPerOp) best = run;
    }
  }
  sqlCounted.set(scenario, best);
  return best;
}

function reply(message: WorkerReply): void {
  process.send!(message);
}

process.on('message', (req: WorkerRequest) => {
  void (async () => {
    try {
      switch (req.cmd) {
        case 'init':
          init(req);
          return reply({ id: req.id, ok: true, value: null });
        case 'surface-fixtures':
          return reply({ id: req.id, ok: true, value: await surfaceFixtures(req) });
        case 'retarget':
          // The same scenarios against another server (the bare oidc-provider peer): its pid and fixtures.
          serverPid = req.serverPid;
          surface = req.target as SurfaceTarget;
          return reply({ id: req.id, ok: true, value: null });
        case 'fixtures':
          return reply({ id: req.id, ok: true, value: await fixtures(req.users) });
        case 'prepare-u2f':
          return reply({ id: req.id, ok: true, value: await prepareU2f(req.count) });
        case 'pool-status':
          // The stale ones are passed over (counted as used): the run asks for fresh ones instead.
          while (poolNext < pool.length && Date.now() - preparedAt[poolNext]! > POOL_FRESH_MS) poolNext++;
          return reply({ id: req.id, ok: true, value: { size: pool.length, used: poolNext } });
        case 'dump-credentials': {
          // The registrations handed out (verified by Keyhold, or passed over as stale), for the raw-verification floor.
          const sample = pool.slice(0, Math.min(poolNext, req.max));
          writeFileSync(req.file, JSON.stringify(sample));
          return reply({ id: req.id, ok: true, value: { written: sample.length } });
        }
        case 'run':
          return reply({ id: req.id, ok: true, value: await runScenario(req) });
        case 'exit':
          agent?.destroy();
          reply({ id: req.id, ok: true, value: null });
          return setImmediate(() => process.exit(0));
      }
    } catch (e) {
      reply({ id: req.id, ok: false, error: String((e as Error)?.stack ?? e) });
    }
  })();
});
