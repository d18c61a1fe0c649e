// The Markdown view of a bench result: one table per backend, the floors, and
// issue 7's targets, each marked met or missed from the numbers of this run.
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
  /** Start-up time and memory of the build (bench/startup.mjs), when measured. */
  startup?: StartupMeasurement;
}

const LABELS: Record<ScenarioName, string> = {
  'oidc-grpc': 'AddOIDCApp gRPC',
  'oidc-rest': 'AddOIDCApp REST',
  'u2f-grpc': 'VerifyU2FRegistration gRPC',
  'healthz-grpc': 'Healthz (no-op) gRPC',
  'healthz-rest': 'Healthz (no-op) REST',
};

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
function ratios(b: BackendResult, s: ScenarioResult): string {
  const parts: string[] = [];
  const noop = scenario(b, s.scenario.endsWith('rest') ? 'healthz-rest' : 'healthz-grpc', s.concurrency);
  if (s.scenario.startsWith('oidc')) {
    parts.push(`${pct(s.opsPerSecond, floor(b, 'insert-oidc', s.concurrency)?.opsPerSecond)} of insert`);
    parts.push(`${pct(s.opsPerSecond, noop?.opsPerSecond)} of no-op`);
  } else if (s.scenario === 'u2f-grpc') {
    parts.push(`${pct(s.opsPerSecond, floor(b, 'verify')?.opsPerSecond)} of verify`);
    parts.push(`${pct(s.opsPerSecond, floor(b, 'insert-u2f', s.concurrency)?.opsPerSecond)} of insert`);
    parts.push(`${pct(s.opsPerSecond, noop?.opsPerSecond)} of no-op`);
  }
  return parts.join(' · ') || '(floor)';
}

function backendTable(b: BackendResult): string[] {
  const lines = [
    '| operation | conc. | ops/s | p50 ms | p95 ms | p99 ms | server CPU | CPU ms/op | server peak RSS | vs. floors (same concurrency) | db CPU | other CPU | errors |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|',
  ];
  const order: ScenarioName[] = ['oidc-grpc', 'oidc-rest', 'u2f-grpc', 'healthz-grpc', 'healthz-rest'];
  for (const name of order) {
    for (const s of b.scenarios.filter((x) => x.scenario === name).sort((x, y) => x.concurrency - y.concurrency)) {
      lines.push(
        `| ${LABELS[name]} | ${s.concurrency} | ${fmt(s.opsPerSecond)} | ${fmt(s.latency.p50Ms, 2)} | ${fmt(s.latency.p95Ms, 2)} | ${fmt(s.latency.p99Ms, 2)} | ${fmt(s.serverCpuPercent)}% | ${fmt(s.serverCpuMsPerOp, 2)} | ${fmt(s.serverPeakRssMiB)} MiB | ${ratios(b, s)} | ${share(s.dbCpuPercent)}% | ${share(s.otherCpuPercent)}% | ${s.errors}${s.poolExhausted ? ' (pool ran out)' : ''} |`,
      );
    }
  }
  return lines;
}

function floorTable(b: BackendResult): string[] {
  const names: Record<FloorResult['floor'], string> = {
    verify: 'raw verifyRegistration, one process',
    'insert-oidc': 'raw append: AddOIDCApp rows',
    'insert-u2f': 'raw append: VerifyU2F rows',
  };
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
  } else unknown('PostgreSQL targets');
  if (lite) {
    const g = scenario(lite, 'oidc-grpc', 64);
    const u = scenario(lite, 'u2f-grpc', 64);
    if (g) checks.push({ target: 'PGlite: AddOIDCApp ≥ 1000/s at c=64', measured: `${fmt(g.opsPerSecond)}/s`, met: g.opsPerSecond >= 1000 });
    if (u) checks.push({ target: 'PGlite: VerifyU2FRegistration ≥ 1000/s at c=64', measured: `${fmt(u.opsPerSecond)}/s`, met: u.opsPerSecond >= 1000 });
  } else unknown('PGlite targets');
  checks.push(...startupTargets(result.startup));
  return checks;
}

/** Issue 21's memory and start-up targets, on the medians. */
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
    out.push(...backendTable(b), '', 'Floors:', '', ...floorTable(b), '');
    const errs = b.scenarios.filter((s) => s.errors > 0);
    for (const s of errs) out.push(`- ${LABELS[s.scenario]} c=${s.concurrency}: ${s.errors} errors, e.g. \`${s.errorSamples[0]}\``);
    if (errs.length) out.push('');
  }
  if (result.startup) out.push('## Start-up and memory (`node bin/keyhold.js`)', '', startupMarkdown(result.startup));
  out.push('## Targets (issues 7 and 21)', '', '| target | measured | |', '|---|---|---|');
  for (const t of targets(result)) out.push(`| ${t.target} | ${t.measured} | ${t.met === undefined ? '–' : t.met ? 'met' : '**missed**'} |`);
  out.push('');
  return out.join('\n');
}
