// Load and bookkeeping shared by the database outage tests: 8 writers
// (AddOIDCApp, every name once), 2 readers (GetAppByID of acknowledged apps)
// and a /readyz prober run against a Keyhold child; every answer is recorded
// with its start time and latency, so a test can judge any time window.
import { expect } from 'vitest';
import { REPEATED_ERROR_INTERVAL_MS } from '../../src/server/repeated-errors.js';
import type { Database } from '../../src/store/database.js';
import { rest, type ChildKeyhold } from '../support/child-keyhold.js';
import { restReason } from '../support/errors.js';
import { auditStore, missingAfterRestart, type Op } from './crash-load.js';

export interface Sample {
  what: 'write' | 'read' | 'readyz';
  /** ms since the load started */
  startedAt: number;
  ms: number;
  status?: number;
  reason?: string;
  /** A failed connection or a client-side timeout instead of an answer. */
  error?: string;
}

export interface OutageLoad {
  samples: Sample[];
  writes: Op[];
  /** ms since the load started */
  now(): number;
  stop(): Promise<void>;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function startOutageLoad(kh: ChildKeyhold, projectId: string, label: string): OutageLoad {
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const samples: Sample[] = [];
  const writes: Op[] = [];
  let stopped = false;
  let n = 0;

  const sample = async (what: Sample['what'], call: () => ReturnType<ChildKeyhold['rest']>): Promise<Sample & { body?: any }> => {
    const s: Sample = { what, startedAt: now(), ms: 0 };
    samples.push(s);
    let body: any;
    try {
      const res = await call();
      s.status = res.status;
      body = res.body;
      if (res.status !== 200) s.reason = Array.isArray(res.body?.details) ? restReason(res.body) : undefined;
    } catch (e) {
      s.error = String((e as Error).cause ?? e);
    }
    s.ms = now() - s.startedAt;
    return { ...s, body };
  };

  const writer = async () => {
    while (!stopped) {
      const op: Op = { kind: 'app', name: `${label}-${process.pid}-${++n}`, projectId };
      writes.push(op);
      const s = await sample('write', () =>
        kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: op.name, redirectUris: ['https://app.example/cb'] }, { timeoutMs: 30_000 }),
      );
      op.status = s.status;
      if (s.status === 200) {
        op.id = s.body.appId;
        op.clientId = s.body.clientId;
      } else {
        await pause(20); // a client backing off a little
      }
    }
  };
  const reader = async () => {
    while (!stopped) {
      const done = writes.filter((w) => w.status === 200);
      const target = done[Math.floor(Math.random() * done.length)];
      if (!target) {
        await pause(20);
        continue;
      }
      const s = await sample('read', () => kh.rest('GET', `/management/v1/projects/${projectId}/apps/${target.id}`, undefined, { timeoutMs: 30_000 }));
      if (s.status !== 200) await pause(20);
    }
  };
  const prober = async () => {
    while (!stopped) {
      await sample('readyz', () => rest(kh.url, 'GET', '/readyz', undefined, undefined, 30_000));
      await pause(100);
    }
  };
  const running = Promise.all([...Array.from({ length: 8 }, writer), reader(), reader(), prober()]);
  return {
    samples,
    writes,
    now,
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** Wait (at most `maxMs` after `since`) for a write started after `since` to succeed, then 2 s more of load. */
export async function waitForRecovery(load: OutageLoad, since: number, maxMs: number): Promise<number | undefined> {
  let recoveredAt: number | undefined;
  while (load.now() - since < maxMs + 2_000) {
    recoveredAt ??= load.samples.find((s) => s.what === 'write' && s.status === 200 && s.startedAt >= since)?.startedAt;
    if (recoveredAt !== undefined && load.now() - recoveredAt > 2_000) break;
    await pause(100);
  }
  return recoveredAt;
}

/** Never a 500, never a dropped connection: every answer is a 200 or the 503 that names the database. */
export function expectOnlyOkOrUnavailable(load: OutageLoad): void {
  const odd = load.samples.filter((s) => !(s.status === 200 || (s.status === 503 && s.reason === 'DATABASE_UNAVAILABLE')));
  expect(odd.slice(0, 10)).toEqual([]);
}

/**
 * The requests started in [from, to − limit) — early enough to be answered
 * before `to` if they fail fast — all got the 503, each within `limitMs`. A
 * request hanging until the database returns shows up here.
 */
export function expectFastFailures(load: OutageLoad, from: number, to: number, limitMs: number, atLeast = { requests: 50, readyz: 5 }): Sample[] {
  const during = load.samples.filter((s) => s.startedAt >= from && s.startedAt < to - limitMs);
  expect(during.length).toBeGreaterThanOrEqual(atLeast.requests);
  expect(during.filter((s) => s.status !== 503)).toEqual([]);
  expect(during.filter((s) => s.ms > limitMs)).toEqual([]);
  expect(during.filter((s) => s.what === 'readyz').length).toBeGreaterThanOrEqual(atLeast.readyz);
  return during;
}

/** After recovery the same process answers everything with 200, and /readyz agrees. */
export async function expectRecovered(kh: ChildKeyhold, load: OutageLoad, recoveredAt: number | undefined, since: number, maxMs: number): Promise<void> {
  expect(recoveredAt, 'no write succeeded after the database came back').toBeDefined();
  expect(recoveredAt! - since).toBeLessThan(maxMs);
  const after = load.samples.filter((s) => s.startedAt > recoveredAt! + 500);
  expect(after.length).toBeGreaterThan(20);
  expect(after.filter((s) => s.status !== 200)).toEqual([]);
  expect((await kh.rest('GET', '/readyz')).status).toBe(200);
}

/**
 * The child logged the failures as the database being unavailable, never the
 * failed statement (drizzle quotes SQL with its parameters) — and not one line
 * per failed request: a kind of failure once, then a count per 10 s
 * (src/server/repeated-errors.ts). Returns the error lines and the failures they stand for.
 */
export function expectCleanLogs(kh: ChildKeyhold, load: OutageLoad, fromLine = 0): { lines: number; failures: number } {
  const errors = kh.output.slice(fromLine).filter((l) => /"level":(50|60)/.test(l));
  expect(errors.filter((l) => !/"type":"DatabaseUnavailable"/.test(l)).slice(0, 3)).toEqual([]);
  expect(kh.output.filter((l) => l.includes('Failed query')).slice(0, 3)).toEqual([]);
  // /readyz answers are not logged; every failed write or read is, once or in a count.
  const failures = load.samples.filter((s) => s.what !== 'readyz' && s.status === 503).length;
  // The rule (src/server/repeated-errors.ts): each kind of error once, then one count line per
  // interval while it recurs. A silent server shows four kinds (reset, closed, refused, connect
  // timeout) over a 12 s outage: up to three lines each, more than a flat 10 (seen: 11 of 34
  // failures). A flood is one line per failure, far above either bound.
  // A kind is per RPC and driver code (repeated-errors.ts).
  const kinds = new Set(errors.map((l) => `${/"rpc":"([^"]*)"/.exec(l)?.[1]} ${/unavailable \(([A-Z_]+)[:)]/.exec(l)?.[1] ?? l}`)).size;
  const windowMs = load.now();
  const perKind = 1 + Math.ceil(windowMs / REPEATED_ERROR_INTERVAL_MS);
  expect(errors.length, errors.slice(0, 20).join('\n')).toBeLessThanOrEqual(Math.max(10, failures / 10, kinds * perKind));
  return { lines: errors.length, failures };
}

/** Every acknowledged write readable through the API, and the store audit clean. */
export async function expectNothingLost(kh: ChildKeyhold, load: OutageLoad, database: Database): Promise<number> {
  const acknowledged = load.writes.filter((w) => w.status === 200);
  expect(await missingAfterRestart(kh, acknowledged)).toEqual([]);
  expect(await auditStore(database)).toEqual([]);
  return acknowledged.length;
}

export function latencies(samples: Sample[]): string {
  const ms = samples.map((s) => s.ms).sort((x, y) => x - y);
  const at = (p: number) => ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))].toFixed(0);
  return `p50 ${at(50)} ms, p99 ${at(99)} ms, max ${at(100)} ms`;
}

/** With OUTAGE_DEBUG set: answers per second, and the distinct error lines of the child. */
export function debugDump(kh: ChildKeyhold, load: OutageLoad, marks: Record<string, number | undefined>, limitMs: number): void {
  if (!process.env.OUTAGE_DEBUG) return;
  const buckets = new Map<string, number>();
  for (const s of load.samples) {
    const key = `${Math.floor(s.startedAt / 1000)}s ${s.what} ${s.status ?? s.error} ${s.reason ?? ''} ${s.ms > limitMs ? 'SLOW' : ''}`;
    buckets.set(key, (buckets.get(key) ?? 0) + 1);
  }
  const errors = new Map<string, number>();
  for (const line of kh.output) {
    const m = /"level":(50|60).*?"message":"([^"]*)"/.exec(line);
    const key = m ? m[2] : line.startsWith('{"level":30') ? undefined : line.slice(0, 200);
    if (key) errors.set(key, (errors.get(key) ?? 0) + 1);
  }
  console.log(
    `${JSON.stringify(marks)}\n${[...buckets].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${[...errors].map(([k, v]) => `${v}× ${k}`).join('\n')}`,
  );
}
