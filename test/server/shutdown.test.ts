// How a Keyhold process ends (src/server/shutdown.ts): a signal drains it, a
// drain that cannot finish is cut at KEYHOLD_SHUTDOWN_TIMEOUT_SECONDS with
// status 1 and a line, a second signal exits at once. First the rules with a
// fake clock, then a real process whose start waits on a migration lock
// another PostgreSQL session holds — the drain it owes a SIGTERM never comes
// without the deadline.
import { rm } from 'node:fs/promises';
import pino from 'pino';
import postgres from 'postgres';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { shutdownOnSignals } from '../../src/server/shutdown.js';
import { spawnKeyhold } from '../support/child-keyhold.js';
import { announcePostgresSkip, createPostgresDatabase, postgresAvailable, tempDir } from '../support/databases.js';

/** The lock every Keyhold process takes around its migrations (store/database.ts). */
const MIGRATION_LOCK_KEY = '4859728279';

function rules(timeoutMs = 8_000) {
  const lines: Array<{ msg: string; level: number }> = [];
  const log = pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const exits: number[] = [];
  const shutdown = shutdownOnSignals({ log, timeoutMs, exit: (code) => void exits.push(code) });
  return { shutdown, exits, lines };
}

describe('the shutdown rules', () => {
  afterEach(() => void vi.useRealTimers());

  it('drains on a signal and exits 0 when the drain ends', async () => {
    const { shutdown, exits } = rules();
    let stops = 0;
    shutdown.started(async () => void stops++);
    shutdown.signal('SIGTERM');
    await vi.waitFor(() => expect(exits).toEqual([0]));
    expect(stops).toBe(1);
  });

  it('holds a signal that came during the start, drains once started, and times the deadline from the signal', async () => {
    vi.useFakeTimers();
    const { shutdown, exits, lines } = rules(8_000);
    shutdown.signal('SIGTERM');
    expect(lines.at(-1)?.msg).toMatch(/during the start/);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(exits).toEqual([]);
    // Started, but its drain never ends: the deadline is 3 s away, not 8.
    shutdown.started(() => new Promise(() => {}));
    await vi.advanceTimersByTimeAsync(2_999);
    expect(exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(exits).toEqual([1]);
    expect(lines.at(-1)).toMatchObject({ level: 50, msg: expect.stringMatching(/did not finish within KEYHOLD_SHUTDOWN_TIMEOUT_SECONDS/) });
  });

  it('exits at once on a second signal, with 128 + its number', () => {
    const { shutdown, exits } = rules();
    shutdown.started(() => new Promise(() => {}));
    shutdown.signal('SIGTERM');
    shutdown.signal('SIGINT');
    expect(exits).toEqual([130]);
  });

  it('a failed drain is logged and exits 1; a storage failure drains with its own status', async () => {
    const failed = rules();
    failed.shutdown.started(() => Promise.reject(new Error('close failed')));
    failed.shutdown.signal('SIGTERM');
    await vi.waitFor(() => expect(failed.exits).toEqual([1]));
    expect(failed.lines.some((l) => l.msg === 'shutdown failed')).toBe(true);

    const storage = rules();
    storage.shutdown.started(async () => {});
    storage.shutdown.drain(75);
    await vi.waitFor(() => expect(storage.exits).toEqual([75]));
  });
});

announcePostgresSkip('a process whose start waits on a lock');

describe.skipIf(!postgresAvailable)('a Keyhold process whose start waits on a migration lock', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  });

  /** A Keyhold process on a fresh database whose migration lock a session of the test holds. */
  async function blockedStart(env: Record<string, string> = {}) {
    const created = await createPostgresDatabase();
    const holder = postgres(created.url, { max: 1, onnotice: () => {} });
    await holder`select pg_advisory_lock(${MIGRATION_LOCK_KEY}::bigint)`;
    const dataDir = await tempDir();
    cleanups.push(async () => {
      await holder.end({ timeout: 5 });
      await created.drop();
      await rm(dataDir, { recursive: true, force: true });
    });
    const { child, exited, output } = spawnKeyhold({ entry: 'build', dataDir, databaseUrl: created.url, env });
    cleanups.push(async () => void child.kill('SIGKILL'));
    // Waiting for the lock: the process has connected and asked for it. (pg_locks spans the
    // cluster, and a backend killed while it waits stays until the lock is free: this database's only.)
    await vi.waitFor(
      async () => {
        const [row] = await holder`
          select count(*)::int as n from pg_locks
          where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`;
        expect(row?.n).toBe(1);
      },
      { timeout: 30_000, interval: 100 },
    );
    return { child, exited: exited.then((exit) => exit.code), output: () => output.join('\n') };
  }

  it('SIGTERM during a start that cannot end: exits 1 at the deadline, saying why', { timeout: 60_000 }, async () => {
    const { child, exited, output } = await blockedStart({ KEYHOLD_SHUTDOWN_TIMEOUT_SECONDS: '2' });
    const signalled = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(1);
    const took = Date.now() - signalled;
    expect(took).toBeGreaterThanOrEqual(1_900);
    expect(took).toBeLessThan(10_000);
    expect(output()).toContain('signal during the start');
    expect(output()).toContain('did not finish within KEYHOLD_SHUTDOWN_TIMEOUT_SECONDS');
  });

  it('a second signal exits at once', { timeout: 60_000 }, async () => {
    const { child, exited, output } = await blockedStart({ KEYHOLD_SHUTDOWN_TIMEOUT_SECONDS: '600' });
    child.kill('SIGTERM');
    await vi.waitFor(() => expect(output()).toContain('signal during the start'), { timeout: 10_000 });
    const second = Date.now();
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(Date.now() - second).toBeLessThan(5_000);
  });
});
