// `npm run bench`: Keyhold's throughput and latency against the floors of the
// same machine. For each backend (PGlite in a temp dir, PostgreSQL on
// a fresh database) it starts Keyhold as its own child process (`node bin/keyhold.js`, the build),
// drives load from a second child (bench/worker.ts), then stops the server and
// measures the floors in a third (bench/floor.ts). Results: bench/results/*.json
// and bench/results/latest.md.
//
// Environment (all optional):
//   BENCH_DURATION_MS   measured time per scenario (default 8000)
//   BENCH_WARMUP_MS     unmeasured warm-up before each (default 1000)
//   BENCH_FLOOR_MS      measured time per floor (default 5000)
//   BENCH_CONCURRENCY   comma list (default 1,16,64)
//   BENCH_BACKENDS      comma list of pglite, postgres (default both)
//   BENCH_SCENARIOS     comma list of healthz-grpc, healthz-rest, oidc-grpc, oidc-rest, u2f-grpc and the
//                       login surface: cc-bearer, cc-jwt, refresh, introspect, userinfo, login,
//                       login-key, login-passkey (default all)
//   BENCH_FLOORS        0 to skip the floors (default 1): raw verify, raw append, argon2id verify, and
//                       the bare oidc-provider peer (bench/peer.mjs) for the token requests and the
//                       password login
//   BENCH_LOGIN_WARMUP_MS  warm-up of the two login scenarios (default 5000, at least BENCH_WARMUP_MS):
//                       their callers all start at once and, sharing the CPU, finish their first
//                       logins together seconds later; the window must start after that
//   BENCH_README        1 to write the login-surface table into docs/performance.md (default: on for a run
//                       without BENCH_RESULTS_DIR)
//   BENCH_PG_ADMIN_URL  where fresh databases are created (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_PG_SOCKET     a Unix-socket directory: Keyhold and the insert floor connect through it
//                       (DATABASE_URL …?host=<dir>); default /var/run/postgresql when PostgreSQL's
//                       socket is there, else TCP; "tcp" forces TCP
//   BENCH_LOG_LEVEL     the server's KEYHOLD_LOG_LEVEL (default info, as deployed: one line per request)
//   BENCH_NODE_FLAGS    Node/V8 flags for the server, space-separated; they win over the ones
//                       bin/keyhold.js adds on Node 22+ (bin/runtime-flags.js), e.g. "--no-liftoff-only"
//   BENCH_CPU_PROF      a directory: the server runs with --cpu-prof and writes its profile there
//   BENCH_LABEL         name of this run in the output (default "run")
//   BENCH_U2F_POOL_MAX  cap on prepared registrations per concurrency level (default 40000)
//   BENCH_RESULTS_DIR   where the JSON goes (default bench/results; latest.md/json only there)
//   BENCH_SERVER        build (default): the server runs as users run it (`node bin/keyhold.js`, the
//                       build of src/, made fresh before the run); sources: through tsx (`npm run dev`),
//                       whose transpiled sources cost ~120 MiB more RSS under load
//   BENCH_STARTUP       1: also measure start-up and memory of the build (bench/startup.mjs; default);
//                       0: skip it; only: measure only that (no scenarios, no floors)
//   BENCH_STARTUP_RUNS  runs per backend and start (first start, restart; default 3)
//   BENCH_STARTUP_NODES Node executables to start the build with, separated by ':' (default: this
//                       one); e.g. Node 20 and 24 (docs/performance.md says where to get Node 24)
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import type { FloorJob } from './floor.js';
import type { FloorResult, ScenarioName, ScenarioResult, WorkerReply, WorkerRequest } from './lib/protocol.js';
import { LOGIN_PASSWORD, PEER_SCENARIOS, SURFACE_SCENARIOS, type SurfaceScenario } from './lib/login-surface.js';
import { ARGON2_OPTIONS } from '../src/domain/identity/passwords.js';
import { runtimeFlagsToAdd } from '../bin/runtime-flags.js';
import { surfaceReadme, toMarkdown, type BackendResult, type BenchResult } from './lib/report.js';
import { measureStartup } from './startup.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const list = (v: string | undefined, fallback: string) => (v || fallback).split(',').map((s) => s.trim()).filter(Boolean);
const num = (v: string | undefined, fallback: number) => (v === undefined || v === '' ? fallback : Number(v));

/** Where Keyhold should reach PostgreSQL: a socket directory, or undefined for TCP. */
function pgSocketDir(setting: string | undefined): string | undefined {
  if (setting === 'tcp') return undefined;
  if (setting) return setting;
  const port = new URL(env.BENCH_PG_ADMIN_URL || 'postgres://127.0.0.1:5432').port || '5432';
  return existsSync(`/var/run/postgresql/.s.PGSQL.${port}`) ? '/var/run/postgresql' : undefined;
}

const config = {
  durationMs: num(env.BENCH_DURATION_MS, 8000),
  warmupMs: num(env.BENCH_WARMUP_MS, 1000),
  floorMs: num(env.BENCH_FLOOR_MS, 5000),
  concurrency: list(env.BENCH_CONCURRENCY, '1,16,64').map(Number),
  backends: list(env.BENCH_BACKENDS, 'pglite,postgres') as ('pglite' | 'postgres')[],
  scenarios: list(env.BENCH_SCENARIOS, `healthz-grpc,healthz-rest,oidc-grpc,oidc-rest,u2f-grpc,${SURFACE_SCENARIOS.join(',')}`) as ScenarioName[],
  floors: env.BENCH_FLOORS !== '0',
  pgAdminUrl: env.BENCH_PG_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  pgSocket: pgSocketDir(env.BENCH_PG_SOCKET),
  cpuProfDir: env.BENCH_CPU_PROF ? path.resolve(env.BENCH_CPU_PROF) : undefined,
  label: env.BENCH_LABEL || 'run',
  server: (env.BENCH_SERVER === 'sources' ? 'sources' : 'build') as 'build' | 'sources',
  u2fPoolMax: num(env.BENCH_U2F_POOL_MAX, 40000),
  users: 64,
  resultsDir: env.BENCH_RESULTS_DIR ? path.resolve(env.BENCH_RESULTS_DIR) : undefined,
  loginWarmupMs: Math.max(num(env.BENCH_LOGIN_WARMUP_MS, 5000), num(env.BENCH_WARMUP_MS, 1000)),
  readme: env.BENCH_README ? env.BENCH_README === '1' : !env.BENCH_RESULTS_DIR,
  startup: (env.BENCH_STARTUP || '1') as '0' | '1' | 'only',
  startupRuns: num(env.BENCH_STARTUP_RUNS, 3),
  startupNodes: env.BENCH_STARTUP_NODES ? env.BENCH_STARTUP_NODES.split(':').filter(Boolean) : [process.execPath],
};
const surfaceSelected = () => config.scenarios.filter((s): s is SurfaceScenario => (SURFACE_SCENARIOS as readonly string[]).includes(s));
const peerSelected = () => config.scenarios.filter((s): s is SurfaceScenario => PEER_SCENARIOS.includes(s as SurfaceScenario));
/** Each virtual user rotates its own refresh chain: as many as the highest concurrency. */
const chainCount = () => Math.max(...config.concurrency);

const log = (...args: unknown[]) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
  });
}

interface Server {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  origin: string;
  token: string;
  logFile: string;
}

async function startServer(backend: 'pglite' | 'postgres', dataDir: string, databaseUrl: string | undefined, tag: string): Promise<Server> {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const logFile = path.join(dataDir, 'server.log');
  const out = openSync(logFile, 'a');
  // One profile per thread (tsx's loader runs in a worker thread): a directory per server.
  const profArgs = config.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', path.join(config.cpuProfDir, `${tag}-${backend}`)] : [];
  // The V8 flags `keyhold` (bin/keyhold.js) starts with on this Node, so that the figures are the ones users get.
  const runtimeFlags = runtimeFlagsToAdd([...profArgs, ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)], process.version);
  const nodeArgs = [...profArgs, ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), ...runtimeFlags];
  const entry = config.server === 'sources' ? ['--import', 'tsx', 'src/main.ts'] : ['bin/keyhold.js'];
  const child = spawn(process.execPath, [...nodeArgs, ...entry], {
    cwd: root,
    env: {
      ...process.env,
      KEYHOLD_PORT: String(port),
      KEYHOLD_HOST: '127.0.0.1',
      KEYHOLD_DATA_DIR: dataDir,
      KEYHOLD_ADMIN_PAT_FILE: path.join(dataDir, 'admin.pat'),
      KEYHOLD_WEBAUTHN_RP_IDS: 'localhost',
      KEYHOLD_WEBAUTHN_ORIGINS: origin,
      // The fixtures keep thousands of registrations pending for 64 users (the
      // VerifyU2F pool); the cap per user (5) only shapes RegisterU2F, which is untimed.
      KEYHOLD_WEBAUTHN_MAX_PENDING: '1000000',
      KEYHOLD_LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'info',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl, KEYHOLD_MASTERKEY: process.env.KEYHOLD_MASTERKEY || 'keyhold-bench-master-key-0123456789abcdef' } : { DATABASE_URL: '' }),
    },
    stdio: ['ignore', out, out],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Keyhold exited with ${child.exitCode} while starting; see ${logFile}:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      if (res.ok && existsSync(path.join(dataDir, 'admin.pat'))) break;
    } catch {
      /* not yet listening */
    }
    if (Date.now() > deadline) throw new Error(`Keyhold did not become healthy in 180 s; see ${logFile}`);
    await sleep(200);
  }
  const token = readFileSync(path.join(dataDir, 'admin.pat'), 'utf8').trim();
  return { child, port, baseUrl, origin, token, logFile };
}

async function stopServer(server: Server): Promise<void> {
  server.child.kill('SIGTERM');
  // Unref'd: a pending 60 s timer would otherwise keep the whole run alive for a minute after it is done.
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 60_000).unref());
  const done = await Promise.race([exited(server.child), timeout]);
  if (done === 'timeout') {
    log('server did not stop in 60 s; killing it');
    server.child.kill('SIGKILL');
    await exited(server.child);
  }
}

/** The load generator child and a request/reply channel to it. */
/**
 * The load process runs as plain JavaScript, bundled here with esbuild, not
 * under tsx's loader: twice in about twenty runs a worker started with
 * `--import tsx` stopped for good in the middle of a run — its main thread
 * blocked in futex_wait (not in epoll: not waiting for I/O), no output, the
 * inspector unreachable — consistent with a wait on the off-thread module
 * hooks of Node 20. Packages stay external and resolve from node_modules.
 */
async function bundleWorker(): Promise<string> {
  const outfile = path.join(root, 'bench/.build/worker.mjs');
  const { build } = await import('esbuild');
  await build({ entryPoints: [path.join(root, 'bench/worker.ts')], outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'error' });
  return outfile;
}

async function startWorker() {
  const child = fork(await bundleWorker(), [], { cwd: root, stdio: 'inherit' });
  let nextId = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (m: WorkerReply) => {
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.ok) w.resolve(m.value);
    else w.reject(new Error(`worker: ${m.error}`));
  });
  child.on('exit', (code) => {
    for (const w of waiting.values()) w.reject(new Error(`worker exited with ${code}`));
    waiting.clear();
  });
  type Req = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;
  const call = <T>(req: Req): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ ...req, id });
    });
  return { child, call };
}

function runFloor(job: FloorJob): Promise<FloorResult[]> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(root, 'bench/floor.ts'), [JSON.stringify(job)], { cwd: root, execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    let answered = false;
    child.on('message', (m: { ok: boolean; results?: FloorResult[]; error?: string }) => {
      answered = true;
      if (m.ok) resolve(m.results!);
      else reject(new Error(`floor: ${m.error}`));
    });
    child.on('exit', (code) => {
      if (!answered) reject(new Error(`floor exited with ${code} without a result`));
    });
  });
}

async function createDatabase(): Promise<{ url: string; drop(): Promise<void> } | string> {
  const name = `kh_bench_${Date.now().toString(36)}_${process.pid}`;
  const admin = postgres(config.pgAdminUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await admin.unsafe(`create database ${name}`);
  } catch (e) {
    await admin.end({ timeout: 1 }).catch(() => {});
    return `PostgreSQL at ${config.pgAdminUrl.replace(/\/\/[^@]*@/, '//…@')} is not reachable: ${(e as Error).message}`;
  }
  await admin.end({ timeout: 5 });
  const url = new URL(config.pgAdminUrl);
  url.pathname = `/${name}`;
  if (config.pgSocket) url.search = `?host=${encodeURIComponent(config.pgSocket)}`;
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(config.pgAdminUrl, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await a.end({ timeout: 5 });
      }
    },
  };
}

function fmtResult(s: ScenarioResult): string {
  return `${s.scenario} c=${s.concurrency}: ${s.opsPerSecond}/s p50 ${s.latency.p50Ms} p95 ${s.latency.p95Ms} p99 ${s.latency.p99Ms} ms, server CPU ${s.serverCpuPercent}% (${s.serverCpuMsPerOp} ms/op), client ${s.clientCpuPercent}%, db ${s.dbCpuPercent}%, other ${s.otherCpuPercent}%, RSS ${s.serverPeakRssMiB} MiB, errors ${s.errors}${s.poolExhausted ? ' (pool exhausted)' : ''}`;
}

async function benchBackend(backend: 'pglite' | 'postgres', tag: string): Promise<BackendResult> {
  const result: BackendResult = { backend, setup: {}, scenarios: [], floors: [] };
  let database: { url: string; drop(): Promise<void> } | undefined;
  if (backend === 'postgres') {
    const created = await createDatabase();
    if (typeof created === 'string') {
      log(`skipping PostgreSQL: ${created}`);
      return { ...result, skipped: created };
    }
    database = created;
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `keyhold-bench-${backend}-`));
  try {
    let t = Date.now();
    const server = await startServer(backend, dataDir, database?.url, tag);
    result.setup.serverStartMs = Date.now() - t;
    result.setup.serverPid = server.child.pid;
    log(`${backend}: Keyhold pid ${server.child.pid} on ${server.baseUrl} (${result.setup.serverStartMs} ms to healthy)`);
    const worker = await startWorker();
    try {
      await worker.call({ cmd: 'init', baseUrl: server.baseUrl, token: server.token, serverPid: server.child.pid!, origin: server.origin, tag: `${tag}-${backend}` });
      t = Date.now();
      const fx = await worker.call<{ projectId: string; userIds: string[] }>({ cmd: 'fixtures', users: config.users });
      result.setup.fixtures = { projectId: fx.projectId, users: fx.userIds.length, ms: Date.now() - t };
      if (surfaceSelected().length) {
        // Machines, the login app, users with passwords and keys, and the refresh chains (full logins), untimed.
        const sf = await worker.call<{ ms: number; chains: number }>({ cmd: 'surface-fixtures', users: config.users, chains: chainCount() });
        result.setup.surfaceFixtures = sf;
        log(`${backend}: login-surface fixtures (${sf.chains} refresh chains by full logins) in ${sf.ms} ms`);
      }

      const preparations: unknown[] = [];
      for (const scenario of config.scenarios) {
        for (const concurrency of config.concurrency) {
          if (scenario === 'u2f-grpc') {
            // Enough pending registrations for this level, made before timing starts.
            const oidc = result.scenarios.find((s) => s.scenario === 'oidc-grpc' && s.concurrency === concurrency)?.opsPerSecond;
            const u2fBefore = Math.max(0, ...result.scenarios.filter((s) => s.scenario === 'u2f-grpc').map((s) => s.opsPerSecond));
            // A pool that runs out spoils the run, so guess high: VerifyU2F can outrun AddOIDCApp
            // (it writes less and, deciding on the server's copy of the registration, reads nothing),
            // so twice AddOIDCApp's rate at this level; without one, 1,500/s (the target).
            const estimate = Math.max(oidc ? oidc * 2 : 1500, u2fBefore * 1.5, 300);
            const want = Math.min(config.u2fPoolMax, Math.ceil((estimate * 1.3 * (config.warmupMs + config.durationMs)) / 1000) + 100);
            const status = await worker.call<{ size: number; used: number }>({ cmd: 'pool-status' });
            const missing = want - (status.size - status.used);
            if (missing > 0) {
              const prep = await worker.call<{ prepared: number; ms: number }>({ cmd: 'prepare-u2f', count: missing });
              preparations.push({ concurrency, ...prep });
              log(`${backend}: prepared ${prep.prepared} pending registrations with fresh credentials in ${prep.ms} ms`);
            }
          }
          const warmupMs = scenario === 'login' || scenario === 'login-key' || scenario === 'login-passkey' ? config.loginWarmupMs : config.warmupMs;
          const r = await worker.call<ScenarioResult>({ cmd: 'run', scenario, concurrency, warmupMs, durationMs: config.durationMs });
          result.scenarios.push(r);
          log(`${backend}: ${fmtResult(r)}`);
          if (r.errors) log(`${backend}:   errors, e.g. ${r.errorSamples.join(' | ')}`);
        }
      }
      result.setup.u2fPreparations = preparations;
      const credentialsFile = path.join(dataDir, 'credentials.json');
      let haveCredentials = false;
      if (config.scenarios.includes('u2f-grpc')) {
        const dumped = await worker.call<{ written: number }>({ cmd: 'dump-credentials', file: credentialsFile, max: 4000 });
        haveCredentials = dumped.written > 0;
      }
      await worker.call({ cmd: 'exit' }).catch(() => {});
      await exited(worker.child);
      await stopServer(server);

      if (config.floors) {
        // The server is stopped: the floors have the machine (and for PGlite, the data dir) to themselves.
        if (haveCredentials) {
          const verify = await runFloor({ mode: 'verify', file: credentialsFile, origins: [server.origin], concurrencies: [1, 64], warmupMs: config.warmupMs, durationMs: config.floorMs });
          result.floors.push(...verify);
          for (const f of verify) log(`${backend}: floor verify c=${f.concurrency}: ${f.opsPerSecond}/s p50 ${f.latency.p50Ms} p99 ${f.latency.p99Ms} ms, CPU ${f.cpuPercent}%, db ${f.dbCpuPercent}%, other ${f.otherCpuPercent}%, errors ${f.errors}`);
        }
        if (config.scenarios.includes('login') || config.scenarios.includes('login-key')) {
          const argon2 = await runFloor({ mode: 'argon2', concurrencies: config.concurrency, warmupMs: config.warmupMs, durationMs: config.floorMs });
          result.floors.push(...argon2);
          for (const f of argon2) log(`${backend}: floor argon2id verify c=${f.concurrency}: ${f.opsPerSecond}/s p50 ${f.latency.p50Ms} p99 ${f.latency.p99Ms} ms, CPU ${f.cpuPercent}%, other ${f.otherCpuPercent}%, errors ${f.errors}`);
        }
        if (config.scenarios.includes('oidc-grpc') || config.scenarios.includes('oidc-rest')) {
          if (config.scenarios.includes('u2f-grpc')) {
            const inserts = await runFloor({ mode: 'insert', databaseUrl: database?.url, dataDir, concurrencies: config.concurrency, warmupMs: config.warmupMs, durationMs: config.floorMs });
            result.floors.push(...inserts);
            for (const f of inserts) log(`${backend}: floor ${f.floor} c=${f.concurrency}: ${f.opsPerSecond}/s p50 ${f.latency.p50Ms} p99 ${f.latency.p99Ms} ms, CPU ${f.cpuPercent}%, db ${f.dbCpuPercent}%, other ${f.otherCpuPercent}%, errors ${f.errors}${f.exhausted ? ' (exhausted)' : ''}`);
          }
        }
      }
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      if (server.child.exitCode === null && server.child.signalCode === null) await stopServer(server);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await database?.drop().catch((e) => log(`could not drop the bench database: ${(e as Error).message}`));
  }
  return result;
}

/**
 * The bare oidc-provider (bench/peer.mjs) in its own process, loaded by a fresh
 * worker with the same scenarios and concurrencies: the library's ceiling.
 */
async function benchPeer(): Promise<BenchResult['peer']> {
  const port = await freePort();
  const t = Date.now();
  // Its login verifies the same password with Keyhold's argon2id parameters (one place: passwords.ts).
  const args = { port, chains: chainCount(), argon2: ARGON2_OPTIONS, password: LOGIN_PASSWORD };
  const child = fork(path.join(root, 'bench/peer.mjs'), [JSON.stringify(args)], { cwd: root, stdio: 'inherit' });
  const ready = await new Promise<{ port: number; target: unknown }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { port: number; target: unknown }));
    child.once('exit', (code) => reject(new Error(`the peer exited with ${code} while starting`)));
  });
  const peer: NonNullable<BenchResult['peer']> = { setup: { startMs: Date.now() - t, pid: child.pid }, scenarios: [] };
  log(`peer: bare oidc-provider pid ${child.pid} on port ${ready.port}`);
  const worker = await startWorker();
  try {
    await worker.call({ cmd: 'init', baseUrl: `http://127.0.0.1:${port}`, token: '', serverPid: child.pid!, origin: `http://localhost:${port}`, tag: 'peer' });
    await worker.call({ cmd: 'retarget', serverPid: child.pid!, target: ready.target });
    for (const scenario of peerSelected()) {
      for (const concurrency of config.concurrency) {
        const r = await worker.call<ScenarioResult>({ cmd: 'run', scenario, concurrency, warmupMs: config.warmupMs, durationMs: config.durationMs });
        peer.scenarios.push(r);
        log(`peer: ${fmtResult(r)}`);
        if (r.errors) log(`peer:   errors, e.g. ${r.errorSamples.join(' | ')}`);
      }
    }
    await worker.call({ cmd: 'exit' }).catch(() => {});
    await exited(worker.child);
  } finally {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    child.kill('SIGTERM');
    await exited(child);
  }
  return peer;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

async function pgVersion(): Promise<string | undefined> {
  const admin = postgres(config.pgAdminUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    const [row] = await admin`select current_setting('server_version') as v, current_setting('synchronous_commit') as s, current_setting('fsync') as f`;
    return `PostgreSQL ${row.v} (synchronous_commit=${row.s}, fsync=${row.f}; Keyhold connects over ${config.pgSocket ? `the Unix socket in ${config.pgSocket}` : "TCP"})`;
  } catch {
    return undefined;
  } finally {
    await admin.end({ timeout: 1 }).catch(() => {});
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  // The build of the sources as they are now: the figures are those of what `npm start` runs.
  if (config.server === 'build') execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: root, stdio: 'inherit' });
  const tag = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  const result: BenchResult = {
    meta: {
      date: new Date().toISOString(),
      label: config.label,
      commit: git(['rev-parse', 'HEAD']),
      dirty: git(['status', '--porcelain', '--', 'src']) !== '',
      node: process.versions.node,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      loadAverageAtStart: os.loadavg(),
      postgres: config.backends.includes('postgres') ? await pgVersion() : undefined,
      config: { ...config },
    },
    backends: [],
  };
  log(`Keyhold bench "${config.label}": ${config.backends.join(', ')}; ${config.scenarios.join(', ')} at c=${config.concurrency.join('/')}; ${config.warmupMs}+${config.durationMs} ms each`);
  if (config.cpuProfDir) mkdirSync(config.cpuProfDir, { recursive: true });
  if (config.startup !== '0') {
    // The build, as users run it (`npm start`): made first when a source is newer.
    const { buildServer, isStale } = await import('../scripts/build-server.mjs');
    if (isStale()) await buildServer();
    log(`start-up and memory: ${config.startupRuns} first starts and restarts per backend (bench/startup.mjs)`);
    result.startup = await measureStartup({ nodes: config.startupNodes, backends: config.backends, runs: config.startupRuns, pgAdminUrl: config.pgAdminUrl, pgSocket: config.pgSocket, log: (line) => log(line) });
  }
  if (config.startup !== 'only') {
    for (const backend of config.backends) result.backends.push(await benchBackend(backend, tag));
    if (config.floors && peerSelected().length) result.peer = await benchPeer();
  }
  result.meta.totalSeconds = Math.round((Date.now() - started) / 1000);

  const dir = config.resultsDir ?? path.join(root, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const name = `${tag}-${config.label.replace(/[^a-z0-9_-]+/gi, '_')}`;
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  const markdown = toMarkdown(result);
  if (config.resultsDir) {
    writeFileSync(path.join(dir, `${name}.md`), markdown);
  } else {
    writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(path.join(dir, 'latest.md'), markdown);
  }
  if (config.readme) {
    const readme = path.join(root, 'docs', 'performance.md');
    const updated = surfaceReadme(readFileSync(readme, 'utf8'), result, path.relative(root, file));
    if (updated) {
      writeFileSync(readme, updated);
      log('wrote the login-surface table into docs/performance.md');
    }
  }
  console.log(`\n${markdown}`);
  log(`wrote ${path.relative(root, file)}${config.resultsDir ? '' : ' and bench/results/latest.md'} in ${result.meta.totalSeconds} s`);
}

// `node --import tsx bench/run.ts --readme <result.json>`: write a stored run's block into docs/performance.md again.
if (process.argv[2] === '--readme') {
  const file = path.resolve(process.argv[3]!);
  const readme = path.join(root, 'docs', 'performance.md');
  const updated = surfaceReadme(readFileSync(readme, 'utf8'), JSON.parse(readFileSync(file, 'utf8')) as BenchResult, path.relative(root, file));
  if (!updated) throw new Error('docs/performance.md has no bench block, or the run has no login-surface figures');
  writeFileSync(readme, updated);
  process.exit(0);
}

// `node --import tsx bench/run.ts --render <result.json>`: print the Markdown of a stored result.
if (process.argv[2] === '--render') {
  process.stdout.write(toMarkdown(JSON.parse(readFileSync(process.argv[3], 'utf8')) as BenchResult));
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
