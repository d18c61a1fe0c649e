// Messages between bench/run.ts and its children (worker.ts, floor.ts), and the
// result shapes that end up in bench/results/*.json.
import type { LatencySummary } from './stats.js';

export type ScenarioName =
  | 'healthz-grpc'
  | 'healthz-rest'
  | 'oidc-grpc'
  | 'oidc-rest'
  | 'u2f-grpc'
  // The login surface (lib/login-surface.ts).
  | 'cc-bearer'
  | 'cc-jwt'
  | 'refresh'
  | 'introspect'
  | 'userinfo'
  | 'login'
  | 'login-key'
  | 'login-passkey';

export interface PendingCredential {
  userId: string;
  u2fId: string;
  challenge: string;
  rpId: string;
  fmt: 'packed' | 'none';
  /** RegistrationResponseJSON from a software authenticator (fresh P-256 key). */
  credential: Record<string, unknown>;
}

export type WorkerRequest = { id: number } & (
  | { cmd: 'init'; baseUrl: string; token: string; serverPid: number; origin: string; tag: string }
  | { cmd: 'fixtures'; users: number }
  | { cmd: 'prepare-u2f'; count: number }
  | { cmd: 'pool-status' }
  | { cmd: 'dump-credentials'; file: string; max: number }
  | { cmd: 'run'; scenario: ScenarioName; concurrency: number; warmupMs: number; durationMs: number }
  | { cmd: 'surface-fixtures'; users: number; chains: number }
  /** `target`: a SurfaceTarget without key users (lib/login-surface.ts). */
  | { cmd: 'retarget'; serverPid: number; target: unknown }
  | { cmd: 'exit' }
);

export type WorkerReply = { id: number } & ({ ok: true; value: unknown } | { ok: false; error: string });

export interface ScenarioResult {
  scenario: ScenarioName;
  concurrency: number;
  /** Length of the measured window (warm-up excluded). */
  seconds: number;
  ops: number;
  opsPerSecond: number;
  latency: LatencySummary;
  errors: number;
  errorSamples: string[];
  /** Server process CPU time over the window, in % of one core (200% = both cores). */
  serverCpuPercent: number;
  /** The load generator's own CPU, same unit: it shares the two cores. */
  clientCpuPercent: number;
  serverCpuMsPerOp: number;
  /** PostgreSQL's processes over the window, same unit (0 for PGlite, which runs inside the server). */
  dbCpuPercent: number;
  /** Every other process on the machine over the window, same unit: interference. */
  otherCpuPercent: number;
  serverPeakRssMiB: number;
  /** 'window': VmHWM was reset at the window start; 'process': peak since the server started. */
  peakRssScope: 'window' | 'process';
  /** U2F only: the pool of prepared registrations ran out before the time was up. */
  poolExhausted: boolean;
  /**
   * SQL per operation, counted by Keyhold (keyhold_sql_statements_total and
   * keyhold_sql_transactions_total on /metrics) over operations made one at a
   * time before the load: the fewest of `runs`. Absent for the peer.
   */
  sql?: { statementsPerOp: number; transactionsPerOp: number; runs: number };
  completedTotal: number;
  windowMonotonicUs: [number, number];
}

export interface FloorResult {
  /** argon2: @node-rs/argon2 verify with Keyhold's parameters, one process (the login's floor). */
  floor: 'verify' | 'insert-oidc' | 'insert-u2f' | 'argon2';
  concurrency: number;
  seconds: number;
  ops: number;
  opsPerSecond: number;
  latency: LatencySummary;
  errors: number;
  errorSamples: string[];
  cpuPercent: number;
  dbCpuPercent: number;
  otherCpuPercent: number;
  exhausted: boolean;
}
