// The Markdown view of a bench result: one table per backend, the floors, and
// Keyhold's performance targets, each marked met or missed from the numbers
// of this run; and the login-surface block of docs/performance.md.
import type { FloorResult, ScenarioName, ScenarioResult } from './protocol.js';
import { startupMarkdown, type StartupMeasurement } from '../startup.mjs';

export interface BackendResult {
  backend: 'pglite' | 'postgres';
  skipped?: string;
  setup: Record<string, unknown>;
  scenarios: ScenarioResult[];
  floors: FloorResult[];
}

export interface BenchResult {
  meta: {
    date: string;
    label: string;
    commit: string;
    dirty: boolean;
    node: string;
    cpus: number;
    cpuModel: string;
    memoryGiB: number;
    loadAverageAtStart: number[];
    postgres?: string;
    config: Record<string, unknown>;
    totalSeconds?: number;
  };
  backends: BackendResult[];
  /** The bare oidc-provider with its in-memory adapter (bench/peer.mjs), same scenarios and concurrencies. */
  peer?: { setup: Record<string, unknown>; scenarios: ScenarioResult[] };
  /** Start-up time and memory of the build (bench/startup.mjs), when measured. */
  startup?: StartupMeasurement;
}

const LABELS: Record<ScenarioName, string> = {
  'oidc-grpc': 'AddOIDCApp gRPC',
  'oidc-rest': 'AddOIDCApp REST',
  'u2f-grpc': 'VerifyU2FRegistration gRPC',
  'healthz-grpc': 'Healthz (no-op) gRPC',
  'healthz-rest': 'Healthz (no-op) REST',
  'cc-bearer': 'client_credentials, opaque (BEARER)',
  'cc-jwt': 'client_credentials, JWT',
  refresh: 'refresh_token (rotation)',
  introspect: 'introspection',
  userinfo: 'userinfo',
  login: 'login: code + PKCE, password',
  'login-key': 'login: code + PKCE, password + key',
  'login-passkey': 'login: code + PKCE, passkey',
};
/** The login surface, in table order. */
const SURFACE: ScenarioName[] = ['cc-bearer', 'cc-jwt', 'refresh', 'introspect', 'userinfo', 'login', 'login-key', 'login-passkey'];
const LOGINS: ScenarioName[] = ['login', 'login-key', 'login-passkey'];

// null: a figure the run could not measure (JSON turns NaN into null).
const fmt = (v: number | null | undefined, digits = 0) =>
  v === undefined || v === null || Number.isNaN(v) ? '–' : v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
/** CPU shares derived by subtraction can dip a little below 0 (tick granularity): shown as 0. */
const share = (v: number | null | undefined) => fmt(v === undefined || v === null || Number.isNaN(v) ? v : Math.max(0, v));
const pct = (a: number | null | undefined, b: number | null | undefined) =>
  a === undefined || a === null || Number.isNaN(a) || !b ? '–' : `${Math.round((a / b) * 100)}%`;

export function scenario(b: BackendResult, name: ScenarioName, c: number): ScenarioResult | undefined {
  return b.scenarios.find((s) => s.scenario === name && s.concurrency === c);
}

export function floor(b: BackendResult, name: FloorResult['floor'], c?: number): FloorResult | undefined {
  const all = b.floors.filter((f) => f.floor === name && (c === undefined || f.concurrency === c));
  return all.sort((x, y) => y.opsPerSecond - x.opsPerSecond)[0];
}

/** The ratios to the floors of the same run, for one scenario row. */
function ratios(b: BackendResult, s: ScenarioResult, peer?: BenchResult['peer']): string {
  const parts: string[] = [];
  // Also server CPU per operation against the reference's: the figure other load on the machine moves least.
  const times = (a: number, ref: number | undefined) => (ref && ref > 0 && Number.isFinite(a) && a > 0 ? `CPU/op ${fmt(a / ref, 1)}×` : '');
  if (LOGINS.includes(s.scenario)) {
    const f = floor(b, 'argon2', s.concurrency);
    const floorCpuMs = f && f.opsPerSecond > 0 ? (f.cpuPercent * 10) / f.opsPerSecond : undefined;
    parts.push(`${pct(s.opsPerSecond, f?.opsPerSecond)} of argon2id`);
    if (s.ops > 0) parts.push(times(s.serverCpuMsPerOp, floorCpuMs));
    // The peer's password login: what the library itself leaves of the floor (bench/peer.mjs).
    const p = s.scenario === 'login' ? peerOf(peer, 'login', s.concurrency) : undefined;
    if (p) parts.push(`${pct(s.opsPerSecond, p.opsPerSecond)} of peer login`);
  } else if (SURFACE.includes(s.scenario)) {
    const p = peerOf(peer, s.scenario, s.concurrency);
    parts.push(`${pct(s.opsPerSecond, p?.opsPerSecond)} of peer`);
    if (s.ops > 0 && p && p.ops > 0) parts.push(times(s.serverCpuMsPerOp, p.serverCpuMsPerOp));
  }
  const noop = scenario(b, s.scenario.endsWith('rest') ? 'healthz-rest' : 'healthz-grpc', s.concurrency);
  if (s.scenario.startsWith('oidc')) {
    parts.push(`${pct(s.opsPerSecond, composedFloor(noop?.opsPerSecond, floor(b, 'insert-oidc', s.concurrency)?.opsPerSecond))} of composed`);
    parts.push(`${pct(s.opsPerSecond, floor(b, 'insert-oidc', s.concurrency)?.opsPerSecond)} of insert`);
    parts.push(`${pct(s.opsPerSecond, noop?.opsPerSecond)} of no-op`);
  } else if (s.scenario === 'u2f-grpc') {
    parts.push(`${pct(s.opsPerSecond, composedFloor(noop?.opsPerSecond, floor(b, 'verify')?.opsPerSecond))} of composed`);
    parts.push(`${pct(s.opsPerSecond, floor(b, 'verify')?.opsPerSecond)} of verify`);
    parts.push(`${pct(s.opsPerSecond, floor(b, 'insert-u2f', s.concurrency)?.opsPerSecond)} of insert`);
    parts.push(`${pct(s.opsPerSecond, noop?.opsPerSecond)} of no-op`);
  }
  return parts.filter(Boolean).join(' · ') || '(floor)';
}

const peerOf = (peer: BenchResult['peer'], name: ScenarioName, c: number) => peer?.scenarios.find((x) => x.scenario === name && x.concurrency === c);

function backendTable(b: BackendResult, peer?: BenchResult['peer']): string[] {
  const lines = [
    '| operation | conc. | ops/s | p50 ms | p95 ms | p99 ms | server CPU | CPU ms/op | server peak RSS | vs. floors (same concurrency) | db CPU | other CPU | errors |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|',
  ];
  const order: ScenarioName[] = ['oidc-grpc', 'oidc-rest', 'u2f-grpc', 'healthz-grpc', 'healthz-rest', ...SURFACE];
  for (const name of order) {
    for (const s of b.scenarios.filter((x) => x.scenario === name).sort((x, y) => x.concurrency - y.concurrency)) {
      lines.push(
        `| ${LABELS[name]} | ${s.concurrency} | ${fmt(s.opsPerSecond)} | ${fmt(s.latency.p50Ms, 2)} | ${fmt(s.latency.p95Ms, 2)} | ${fmt(s.latency.p99Ms, 2)} | ${fmt(s.serverCpuPercent)}% | ${fmt(s.serverCpuMsPerOp, 2)} | ${fmt(s.serverPeakRssMiB)} MiB | ${ratios(b, s, peer)} | ${share(s.dbCpuPercent)}% | ${share(s.otherCpuPercent)}% | ${s.errors}${s.poolExhausted ? ' (pool ran out)' : ''} |`,
      );
    }
  }
  return lines;
}

const FLOOR_LABELS: Record<FloorResult['floor'], string> = {
  verify: 'raw verifyRegistration, one process',
  'insert-oidc': 'raw append: AddOIDCApp rows',
  'insert-u2f': 'raw append: VerifyU2F rows',
  argon2: 'argon2id verify (Keyhold’s parameters), one process',
};

function floorTable(b: BackendResult): string[] {
  const names = FLOOR_LABELS;
  const lines = ['| floor | conc. | ops/s | p50 ms | p99 ms | CPU | db CPU | other CPU |', '|---|--:|--:|--:|--:|--:|--:|--:|'];
  for (const f of b.floors) {
    lines.push(
      `| ${names[f.floor]} | ${f.concurrency} | ${fmt(f.opsPerSecond)} | ${fmt(f.latency.p50Ms, 2)} | ${fmt(f.latency.p99Ms, 2)} | ${fmt(f.cpuPercent)}% | ${share(f.dbCpuPercent)}% | ${share(f.otherCpuPercent)}% |`,
    );
  }
  return lines;
}

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean | undefined;
}

export function targets(result: BenchResult): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const pg = result.backends.find((b) => b.backend === 'postgres' && !b.skipped);
  const lite = result.backends.find((b) => b.backend === 'pglite' && !b.skipped);
  const unknown = (target: string) => checks.push({ target, measured: 'not measured', met: undefined });
  if (pg) {
    const g = scenario(pg, 'oidc-grpc', 64);
    const r = scenario(pg, 'oidc-rest', 64);
    const u = scenario(pg, 'u2f-grpc', 64);
    const v = floor(pg, 'verify');
    if (g) {
      checks.push({ target: 'PostgreSQL: AddOIDCApp gRPC ≥ 3000/s at c=64', measured: `${fmt(g.opsPerSecond)}/s`, met: g.opsPerSecond >= 3000 });
      checks.push({ target: 'PostgreSQL: AddOIDCApp gRPC p99 ≤ 50 ms at c=64', measured: `${fmt(g.latency.p99Ms, 1)} ms`, met: g.latency.p99Ms <= 50 });
    } else unknown('PostgreSQL: AddOIDCApp gRPC at c=64');
    if (g && r) {
      // "Within 20%": REST may not be more than 20% slower than gRPC (being faster is fine).
      checks.push({ target: 'PostgreSQL: AddOIDCApp REST within 20% of gRPC at c=64 (REST ≥ 80% of gRPC)', measured: `REST ${pct(r.opsPerSecond, g.opsPerSecond)} of gRPC`, met: r.opsPerSecond >= 0.8 * g.opsPerSecond });
    } else unknown('PostgreSQL: AddOIDCApp REST vs gRPC');
    if (u) {
      checks.push({ target: 'PostgreSQL: VerifyU2FRegistration ≥ 1500/s at c=64', measured: `${fmt(u.opsPerSecond)}/s`, met: u.opsPerSecond >= 1500 });
      checks.push({ target: 'PostgreSQL: VerifyU2FRegistration p99 ≤ 50 ms at c=64', measured: `${fmt(u.latency.p99Ms, 1)} ms`, met: u.latency.p99Ms <= 50 });
      if (v) {
        checks.push({
          target: 'PostgreSQL: VerifyU2FRegistration ≥ 50% of the raw verification floor',
          measured: `${pct(u.opsPerSecond, v.opsPerSecond)} (${fmt(u.opsPerSecond)} vs ${fmt(v.opsPerSecond)}/s)`,
          met: u.opsPerSecond >= 0.5 * v.opsPerSecond,
        });
      }
    } else unknown('PostgreSQL: VerifyU2FRegistration at c=64');
    // The seed operations against their composed floors: each call passes the listener (the same
    // run's no-op RPC) and then does its one piece of work (the raw append, the raw verify).
    const noop = scenario(pg, 'healthz-grpc', 64);
    checks.push(...composedTargets('PostgreSQL', [
      [g, 'AddOIDCApp gRPC', noop, floor(pg, 'insert-oidc', 64), 'the raw append', 0.75],
      [u, 'VerifyU2FRegistration', noop, v, 'the raw verify', 0.65],
    ]));
  } else unknown('PostgreSQL targets');
  if (lite) {
    const g = scenario(lite, 'oidc-grpc', 64);
    const u = scenario(lite, 'u2f-grpc', 64);
    if (g) checks.push({ target: 'PGlite: AddOIDCApp ≥ 1000/s at c=64', measured: `${fmt(g.opsPerSecond)}/s`, met: g.opsPerSecond >= 1000 });
    if (u) checks.push({ target: 'PGlite: VerifyU2FRegistration ≥ 1000/s at c=64', measured: `${fmt(u.opsPerSecond)}/s`, met: u.opsPerSecond >= 1000 });
    checks.push(...ratioTargets('PGlite', [
      [g, 'AddOIDCApp gRPC', 'its own append floor', floor(lite, 'insert-oidc', 64), 0.5],
      [u, 'VerifyU2FRegistration', 'its own append floor', floor(lite, 'insert-u2f', 64), 0.5],
    ]));
  } else unknown('PGlite targets');
  checks.push(...startupTargets(result.startup));
  return checks;
}

/**
 * A composed floor: the rate of calls that each cost one no-op call plus one floor operation,
 * the per-call times added (1 / (1/a + 1/b)); undefined without both figures.
 */
export function composedFloor(noopPerSecond: number | undefined, workPerSecond: number | undefined): number | undefined {
  if (!noopPerSecond || !workPerSecond || noopPerSecond <= 0 || workPerSecond <= 0) return undefined;
  return 1 / (1 / noopPerSecond + 1 / workPerSecond);
}

/** The seed operations against their composed floors at c=64: [scenario, name, no-op, floor, floor's name, share]. */
function composedTargets(backend: string, rows: [ScenarioResult | undefined, string, ScenarioResult | undefined, FloorResult | undefined, string, number][]): TargetCheck[] {
  return rows.flatMap(([s, name, noop, f, floorName, share]) => {
    const composed = composedFloor(noop?.opsPerSecond, f?.opsPerSecond);
    if (!s || composed === undefined) return [{ target: `${backend}: ${name} ≥ ${Math.round(share * 100)}% of its composed floor at c=64`, measured: 'not measured', met: undefined }];
    return [{
      target: `${backend}: ${name} ≥ ${Math.round(share * 100)}% of its composed floor (no-op gRPC + ${floorName}) at c=64`,
      measured: `${pct(s.opsPerSecond, composed)} (${fmt(s.opsPerSecond)} vs ${fmt(composed)}/s, from ${fmt(noop!.opsPerSecond)} and ${fmt(f!.opsPerSecond)}/s)`,
      met: atLeast(s.opsPerSecond, composed, share),
    }];
  });
}

/** The ratio targets of the seed operations at c=64: [scenario, its name, the floor's name, the floor, share]. */
function ratioTargets(backend: string, rows: [ScenarioResult | undefined, string, string, FloorResult | undefined, number][]): TargetCheck[] {
  return rows.flatMap(([s, name, floorName, f, share]) =>
    s && f
      ? [{
          target: `${backend}: ${name} ≥ ${Math.round(share * 100)}% of ${floorName} at c=64`,
          measured: `${pct(s.opsPerSecond, f.opsPerSecond)} (${fmt(s.opsPerSecond)} vs ${fmt(f.opsPerSecond)}/s)`,
          met: atLeast(s.opsPerSecond, f.opsPerSecond, share),
        }]
      : [],
  );
}

/** The memory and start-up targets, on the medians. */
function startupTargets(startup: StartupMeasurement | undefined): TargetCheck[] {
  if (!startup) return [];
  const checks: TargetCheck[] = [];
  const get = (backend: string, phase: string) => startup.results.find((r) => r.backend === backend && r.phase === phase)?.summary;
  const names = { pglite: 'PGlite', postgres: 'PostgreSQL' } as const;
  for (const backend of ['pglite', 'postgres'] as const) {
    const first = get(backend, 'first');
    const restart = get(backend, 'restart');
    if (!first || !restart) continue;
    const idleLimit = backend === 'pglite' ? 250 : 150;
    const peak = Math.max(first.peakRssMiB.median, first.treePeakMiB.median);
    checks.push({ target: `${names[backend]}: idle RSS after the first start ≤ ${idleLimit} MiB`, measured: `${fmt(first.idleRssMiB.median)} MiB`, met: first.idleRssMiB.median <= idleLimit });
    checks.push({ target: `${names[backend]}: peak RSS of a first start ≤ 400 MiB (with child processes)`, measured: `${fmt(peak)} MiB`, met: peak <= 400 });
    checks.push({ target: `${names[backend]}: restart to ready ≤ 2 s`, measured: `${fmt(restart.readyMs.median / 1000, 2)} s`, met: restart.readyMs.median <= 2000 });
    checks.push({ target: `${names[backend]}: first start to ready ≤ 6 s`, measured: `${fmt(first.readyMs.median / 1000, 2)} s`, met: first.readyMs.median <= 6000 });
  }
  return checks;
}

/** a ≥ share × b; undefined (not measurable) when this run has no positive reference figure. */
const atLeast = (a: number, b: number | undefined, share: number): boolean | undefined => (b !== undefined && b > 0 ? a >= share * b : undefined);

/** The login surface's targets, at c=64; each met or missed from this run. */
export function surfaceTargets(result: BenchResult): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const pg = result.backends.find((b) => b.backend === 'postgres' && !b.skipped);
  const lite = result.backends.find((b) => b.backend === 'pglite' && !b.skipped);
  const C = 64;
  const rate = (v: ScenarioResult) => `${fmt(v.opsPerSecond)}/s`;
  if (pg) {
    for (const name of ['cc-bearer', 'cc-jwt'] as const) {
      const s = scenario(pg, name, C);
      if (!s) continue;
      checks.push({ target: `PostgreSQL: ${LABELS[name]} ≥ 1,500/s`, measured: rate(s), met: s.opsPerSecond >= 1500 });
      checks.push({ target: `PostgreSQL: ${LABELS[name]} p99 ≤ 50 ms`, measured: `${fmt(s.latency.p99Ms, 1)} ms`, met: s.latency.count > 0 ? s.latency.p99Ms <= 50 : undefined });
    }
    const minimum: Partial<Record<ScenarioName, number>> = { refresh: 1000, introspect: 3000, userinfo: 3000 };
    for (const [name, min] of Object.entries(minimum) as [ScenarioName, number][]) {
      const s = scenario(pg, name, C);
      if (s) checks.push({ target: `PostgreSQL: ${LABELS[name]} ≥ ${fmt(min)}/s`, measured: rate(s), met: s.opsPerSecond >= min });
    }
    for (const name of LOGINS) {
      const s = scenario(pg, name, C);
      const f = floor(pg, 'argon2', C);
      // With the bare library's own login beside it: the part of the floor no login over oidc-provider gets past.
      const p = peerOf(result.peer, 'login', C);
      const library = p ? `; the bare oidc-provider's login ${pct(p.opsPerSecond, f?.opsPerSecond)}` : '';
      const share = LOGIN_FLOOR_SHARE[name];
      const measured = s && f ? `${pct(s.opsPerSecond, f.opsPerSecond)} (${fmt(s.opsPerSecond)} vs ${fmt(f.opsPerSecond)}/s${library})` : undefined;
      if (measured && share !== undefined) checks.push({ target: `PostgreSQL: ${LABELS[name]} ≥ ${Math.round(share * 100)}% of the argon2id floor`, measured, met: atLeast(s!.opsPerSecond, f!.opsPerSecond, share) });
      else if (measured) checks.push({ target: `PostgreSQL: ${LABELS[name]} against the argon2id floor (reported)`, measured, met: undefined });
    }
    for (const name of SURFACE.filter((n) => !LOGINS.includes(n))) {
      const s = scenario(pg, name, C);
      const p = peerOf(result.peer, name, C);
      if (s && p) checks.push({ target: `PostgreSQL: ${LABELS[name]} ≥ 60% of the bare oidc-provider`, measured: `${pct(s.opsPerSecond, p.opsPerSecond)} (${fmt(s.opsPerSecond)} vs ${fmt(p.opsPerSecond)}/s)`, met: atLeast(s.opsPerSecond, p.opsPerSecond, 0.6) });
    }
  }
  for (const b of [pg, lite]) {
    const counted = b && b.scenarios.find((s) => s.scenario === 'login' && s.sql)?.sql;
    if (b && counted) {
      checks.push({ target: `${b.backend === 'pglite' ? 'PGlite' : 'PostgreSQL'}: SQL statements per password login ≤ ${LOGIN_STATEMENTS_TARGET}`, measured: `${counted.statementsPerOp} (${counted.transactionsPerOp} transactions)`, met: counted.statementsPerOp <= LOGIN_STATEMENTS_TARGET });
    }
  }
  // Memory under load: the server's peak RSS in every scenario's window, each backend its own bound.
  for (const b of [pg, lite]) {
    if (!b) continue;
    const limit = PEAK_RSS_TARGET_MIB[b.backend];
    const measured = b.scenarios.filter((s) => s.ops > 0 && Number.isFinite(s.serverPeakRssMiB));
    if (measured.length === 0) continue;
    const worst = measured.reduce((a, s) => (s.serverPeakRssMiB > a.serverPeakRssMiB ? s : a));
    checks.push({ target: `${b.backend === 'pglite' ? 'PGlite' : 'PostgreSQL'}: peak RSS under every scenario ≤ ${limit} MiB`, measured: `${fmt(worst.serverPeakRssMiB)} MiB at most (${LABELS[worst.scenario]}, c=${worst.concurrency})`, met: worst.serverPeakRssMiB <= limit });
  }
  if (pg && lite) {
    for (const name of SURFACE) {
      const l = scenario(lite, name, C);
      const s = scenario(pg, name, C);
      if (l && s) checks.push({ target: `PGlite: ${LABELS[name]} ≥ 40% of PostgreSQL`, measured: `${pct(l.opsPerSecond, s.opsPerSecond)} (${fmt(l.opsPerSecond)} vs ${fmt(s.opsPerSecond)}/s)`, met: atLeast(l.opsPerSecond, s.opsPerSecond, 0.4) });
    }
  }
  if (checks.length === 0) checks.push({ target: 'login surface at c=64', measured: 'not measured', met: undefined });
  return checks;
}

const targetRows = (checks: TargetCheck[]) => checks.map((t) => `| ${t.target} | ${t.measured} | ${t.met === undefined ? '–' : t.met ? 'met' : '**missed**'} |`);

/** The login surface at c=64, one row per scenario and backend, with the peer and argon2id columns. */
function surfaceTable(result: BenchResult): string[] {
  const lines = ['| backend | operation (c=64) | ops/s | p50 / p99 ms | server CPU (ms/op) | peak RSS | vs. floor (same run) |', '|---|---|--:|--:|--:|--:|---|'];
  for (const b of result.backends.filter((x) => !x.skipped)) {
    for (const name of SURFACE) {
      const s = scenario(b, name, 64);
      if (!s) continue;
      lines.push(`| ${b.backend === 'pglite' ? 'PGlite' : 'PostgreSQL'} | ${LABELS[name]} | ${fmt(s.opsPerSecond)} | ${fmt(s.latency.p50Ms, 1)} / ${fmt(s.latency.p99Ms, 1)} | ${fmt(s.serverCpuPercent)}% (${fmt(s.serverCpuMsPerOp, 2)}) | ${fmt(s.serverPeakRssMiB)} MiB | ${ratios(b, s, result.peer)}${s.errors ? ` · ${s.errors} errors` : ''} |`);
    }
  }
  for (const s of (result.peer?.scenarios ?? []).filter((x) => x.concurrency === 64)) {
    lines.push(`| bare oidc-provider (memory) | ${LABELS[s.scenario]} | ${fmt(s.opsPerSecond)} | ${fmt(s.latency.p50Ms, 1)} / ${fmt(s.latency.p99Ms, 1)} | ${fmt(s.serverCpuPercent)}% (${fmt(s.serverCpuMsPerOp, 2)}) | ${fmt(s.serverPeakRssMiB)} MiB | (peer)${peerLoginShare(result, s)} |`);
  }
  for (const b of result.backends.filter((x) => !x.skipped)) {
    const f = floor(b, 'argon2', 64);
    if (f) lines.push(`| ${b.backend === 'pglite' ? 'PGlite' : 'PostgreSQL'} run | argon2id verify, one process | ${fmt(f.opsPerSecond)} | ${fmt(f.latency.p50Ms, 1)} / ${fmt(f.latency.p99Ms, 1)} | ${fmt(f.cpuPercent)}% | | (floor) |`);
  }
  return lines;
}

/** The peer's login against the argon2id floor of the PostgreSQL run (the one the login targets are judged on). */
function peerLoginShare(result: BenchResult, s: ScenarioResult): string {
  if (s.scenario !== 'login') return '';
  const pg = result.backends.find((b) => b.backend === 'postgres' && !b.skipped) ?? result.backends.find((b) => !b.skipped);
  const f = pg && floor(pg, 'argon2', s.concurrency);
  return f ? ` · ${pct(s.opsPerSecond, f.opsPerSecond)} of argon2id` : '';
}

/** The logins' share of the argon2id floor; a login without a share is reported, not judged. */
const LOGIN_FLOOR_SHARE: Partial<Record<ScenarioName, number>> = { login: 0.65, 'login-key': 0.55 };

/** Peak RSS of the server under any bench scenario, per backend (the embedded database lives in the process). */
const PEAK_RSS_TARGET_MIB = { postgres: 350, pglite: 400 } as const;

/** Most SQL statements one password login may send (login through the UI and code exchange, counted by Keyhold). */
export const LOGIN_STATEMENTS_TARGET = 25;

/**
 * SQL per operation, one row per scenario and a column per backend: counted by
 * Keyhold over operations made one at a time (ScenarioResult.sql), so the same
 * on any machine, unlike every other figure here.
 */
function sqlTable(result: BenchResult): string[] {
  const backends = result.backends.filter((b) => !b.skipped);
  const counted = (b: BackendResult, name: ScenarioName) => b.scenarios.find((s) => s.scenario === name && s.sql)?.sql;
  const names = (Object.keys(LABELS) as ScenarioName[]).filter((n) => backends.some((b) => counted(b, n)));
  if (names.length === 0) return [];
  const title = (b: BackendResult) => (b.backend === 'pglite' ? 'PGlite' : 'PostgreSQL');
  const lines = [
    `| SQL per operation (one at a time) | ${backends.map((b) => `${title(b)}: statements / transactions`).join(' | ')} |`,
    `|---|${backends.map(() => '--:').join('|')}|`,
  ];
  for (const name of names) {
    lines.push(`| ${LABELS[name]} | ${backends.map((b) => {
      const c = counted(b, name);
      return c ? `${c.statementsPerOp} / ${c.transactionsPerOp}` : '–';
    }).join(' | ')} |`);
  }
  return lines;
}

const README_START = '<!-- bench:login-surface:start (written by npm run bench) -->';
const README_END = '<!-- bench:login-surface:end -->';

/** The seed operations at c=64, one row per operation and backend, with the floors of the same run beside them. */
function seedTable(result: BenchResult): string[] {
  const lines = ['| backend | operation (c=64) | ops/s | p50 / p99 ms | server CPU (ms/op) | vs. floors (same run) |', '|---|---|--:|--:|--:|---|'];
  for (const b of result.backends.filter((x) => !x.skipped)) {
    const name = b.backend === 'pglite' ? 'PGlite' : 'PostgreSQL';
    for (const op of ['oidc-grpc', 'oidc-rest', 'u2f-grpc'] as const) {
      const s = scenario(b, op, 64);
      if (s) lines.push(`| ${name} | ${LABELS[op]} | ${fmt(s.opsPerSecond)} | ${fmt(s.latency.p50Ms, 1)} / ${fmt(s.latency.p99Ms, 1)} | ${fmt(s.serverCpuPercent)}% (${fmt(s.serverCpuMsPerOp, 2)}) | ${ratios(b, s)} |`);
    }
    const floors = (['insert-oidc', 'insert-u2f', 'verify'] as const).map((f) => floor(b, f, 64)).filter((f): f is FloorResult => f !== undefined);
    const noop = [scenario(b, 'healthz-grpc', 64), scenario(b, 'healthz-rest', 64)].filter((x): x is ScenarioResult => x !== undefined);
    if (floors.length || noop.length) {
      const parts = [...floors.map((f) => `${FLOOR_LABELS[f.floor]} ${fmt(f.opsPerSecond)}/s`), ...noop.map((x) => `${LABELS[x.scenario]} ${fmt(x.opsPerSecond)}/s`)];
      lines.push(`| ${name} run | floors: ${parts.join('; ')} | | | | (floor) |`);
      // The composed floors the seed targets are judged on: the no-op call and the work, per-call times added.
      const grpcNoop = scenario(b, 'healthz-grpc', 64)?.opsPerSecond;
      const composed = [
        ['AddOIDCApp', composedFloor(grpcNoop, floor(b, 'insert-oidc', 64)?.opsPerSecond)],
        ['VerifyU2FRegistration', composedFloor(grpcNoop, floor(b, 'verify')?.opsPerSecond)],
      ].filter((x): x is [string, number] => x[1] !== undefined);
      if (composed.length) lines.push(`| ${name} run | composed floors (no-op gRPC + the work): ${composed.map(([n, v]) => `${n} ${fmt(v)}/s`).join('; ')} | | | | (floor) |`);
    }
  }
  return lines;
}

/**
 * README.md with the block between the markers replaced by this run's figures
 * and the targets — the login surface, the seed operations against
 * their floors, start-up and memory — each met or missed; undefined without
 * markers or figures.
 */
export function surfaceReadme(readme: string, result: BenchResult, file: string): string | undefined {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start) return undefined;
  if (!result.backends.some((b) => b.scenarios.some((s) => SURFACE.includes(s.scenario)))) return undefined;
  const m = result.meta;
  const block = [
    README_START,
    '',
    `${m.date.slice(0, 16).replace('T', ' ')} UTC, \`${file}\`, commit ${m.commit.slice(0, 10)}: ${m.cpus} cores (${m.cpuModel}), Node ${m.node}${m.postgres ? `, ${m.postgres}` : ''}; ${m.config.durationMs} ms per row, load average at start ${m.loadAverageAtStart.map((l) => l.toFixed(2)).join(' / ')}.`,
    '',
    ...surfaceTable(result),
    '',
    ...(sqlTable(result).length ? [...sqlTable(result), ''] : []),
    '| target (login surface, c=64) | measured | |',
    '|---|---|---|',
    ...targetRows(surfaceTargets(result)),
    '',
    'The seed operations in the same run:',
    '',
    ...seedTable(result),
    '',
    ...(result.startup ? ['Start-up and memory of the build (`node bin/keyhold.js`):', '', startupMarkdown(result.startup).trimEnd(), ''] : []),
    '| target (the seed operations, also as ratios; start-up and memory) | measured | |',
    '|---|---|---|',
    ...targetRows(targets(result)),
    '',
    README_END,
  ].join('\n');
  return readme.slice(0, start) + block + readme.slice(end + README_END.length);
}

export function toMarkdown(result: BenchResult): string {
  const m = result.meta;
  const out: string[] = [
    `# Keyhold benchmark — ${m.label}`,
    '',
    `${m.date} · commit ${m.commit.slice(0, 10)}${m.dirty ? ' (+ uncommitted changes)' : ''} · Node ${m.node} · ${m.cpus} cores (${m.cpuModel}) · ${m.memoryGiB} GiB · load average at start ${m.loadAverageAtStart.map((l) => l.toFixed(2)).join(' / ')}${m.postgres ? ` · ${m.postgres}` : ''}`,
    '',
    `Each row: ${m.config.warmupMs} ms warm-up, then ${m.config.durationMs} ms measured, closed loop of \`conc.\` callers in a separate load process; floors ${m.config.floorMs} ms. Server CPU is the server process's CPU time over the window (100% = one core of ${m.cpus}), also per operation; db CPU is PostgreSQL's processes; other CPU is everything else on the machine in that window (other workloads competing for the same ${m.cpus} cores); peak RSS is the server's VmHWM, reset at each window start. Ratios compare with the floors of this same run.`,
    '',
  ];
  for (const b of result.backends) {
    out.push(`## ${b.backend === 'pglite' ? 'PGlite (embedded)' : 'PostgreSQL 15 (durable commits)'}`, '');
    if (b.skipped) {
      out.push(`Skipped: ${b.skipped}`, '');
      continue;
    }
    out.push(...backendTable(b, result.peer), '', 'Floors:', '', ...floorTable(b), '');
    const errs = b.scenarios.filter((s) => s.errors > 0);
    for (const s of errs) out.push(`- ${LABELS[s.scenario]} c=${s.concurrency}: ${s.errors} errors, e.g. \`${s.errorSamples[0]}\``);
    if (errs.length) out.push('');
  }
  if (result.startup) out.push('## Start-up and memory (`node bin/keyhold.js`)', '', startupMarkdown(result.startup));
  if (result.peer) {
    out.push('## Bare oidc-provider 9.13.3, in-memory adapter (the peer)', '', ...backendTable({ backend: 'postgres', setup: {}, scenarios: result.peer.scenarios, floors: [] }).map((l) => l.replace(/\| \(floor\) \||\| [^|]* of (peer|argon2id) \|/, '| (peer) |')), '');
  }
  out.push('## Login surface', '', ...surfaceTable(result), '');
  if (sqlTable(result).length) out.push('## SQL per operation (counted by Keyhold, one operation at a time)', '', ...sqlTable(result), '');
  out.push('## Targets (the seed operations, also as ratios; start-up and memory)', '', '| target | measured | |', '|---|---|---|');
  out.push(...targetRows(targets(result)), '');
  out.push('## Targets (login surface)', '', '| target | measured | |', '|---|---|---|');
  out.push(...targetRows(surfaceTargets(result)), '');
  return out.join('\n');
}
