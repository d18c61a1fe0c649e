// The housekeeping sweep's backlog, table by table, with tables of its own
// (no database): each table's expired rows are counted before they are
// deleted and the count goes down by each batch; a table whose delete fails
// keeps what is left as its backlog, is logged, and the next table is still
// swept; only a table swept to its end gets its time of success.
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FIRST_SWEEP_MS, startHousekeeping, SWEEP_INTERVAL_MS, type WindowedTable } from '../../src/server/housekeeping.js';
import type { SweptTable } from '../../src/server/metrics.js';
import { repeatedErrorLog } from '../../src/server/repeated-errors.js';

const BATCH = 5_000;

/** A table of `rows` expired rows; its delete fails once `failAfter` batches went. */
function table(name: SweptTable, rows: number, failAfter = Infinity): WindowedTable & { left: () => number } {
  let left = rows;
  let batches = 0;
  return {
    table: name,
    left: () => left,
    countExpired: async (limit) => Math.min(left, limit),
    deleteExpired: async (limit) => {
      if (batches++ >= failAfter) throw new Error('the database went away');
      const n = Math.min(left, limit);
      left -= n;
      return n;
    },
  };
}

describe('the housekeeping sweep', () => {
  it('counts each table, lessens the count by each batch, keeps what a failed delete left, and sweeps the next table anyway', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'debug' }, { write: (l: string) => void lines.push(l) });
    const backlog: [SweptTable, number][] = [];
    const swept: SweptTable[] = [];
    const oidc = table('oidc_payloads', 12_000, 1);
    const budgets = table('attempt_budgets', 7);
    const housekeeping = startHousekeeping({
      deleteExpired: async () => 0,
      countExpired: async () => 0,
      expiredKeptMs: 3_600_000,
      windowed: [oidc, budgets],
      log,
      errors: repeatedErrorLog(log),
      observer: { backlog: (t, rows) => void backlog.push([t, rows]), swept: (t) => void swept.push(t) },
    });
    try {
      expect(await housekeeping.sweep()).toBe(BATCH + 7);
    } finally {
      await housekeeping.stop();
    }
    expect(backlog).toEqual([
      ['u2f_tokens', 0],
      ['u2f_tokens', 0],
      ['oidc_payloads', 12_000],
      ['oidc_payloads', 12_000 - BATCH],
      ['attempt_budgets', 7],
      ['attempt_budgets', 0],
    ]);
    expect(oidc.left()).toBe(12_000 - BATCH);
    expect(swept).toEqual(['u2f_tokens', 'attempt_budgets']);
    const failed = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'housekeeping failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ level: 50, task: 'oidc_payloads', err: { message: 'the database went away' } });
  });

  describe('on its timer', () => {
    afterEach(() => void vi.useRealTimers());

    /** A housekeeping whose tables get `rows` new expired rows before each sweep; says when each sweep ran and what was reclaimed. */
    function timed(options: { rows: number; reclaim?: (tables: readonly SweptTable[]) => Promise<void>; expiredKeptMs?: number }) {
      const lines: string[] = [];
      const log = pino({ level: 'debug' }, { write: (l: string) => void lines.push(l) });
      const sweptAt: number[] = [];
      const start = Date.now();
      const oidc: WindowedTable = {
        table: 'oidc_payloads',
        countExpired: async () => {
          sweptAt.push(Date.now() - start);
          return options.rows;
        },
        deleteExpired: async (limit) => Math.min(options.rows, limit),
      };
      const housekeeping = startHousekeeping({
        deleteExpired: async () => 0,
        countExpired: async () => 0,
        expiredKeptMs: options.expiredKeptMs ?? 3_600_000,
        windowed: [oidc],
        log,
        errors: repeatedErrorLog(log),
        reclaim: options.reclaim,
      });
      return { housekeeping, sweptAt, lines };
    }

    it('sweeps a few seconds after the start, then once a minute, each sweep timed from the end of the last', async () => {
      vi.useFakeTimers();
      const { housekeeping, sweptAt } = timed({ rows: 3 });
      await vi.advanceTimersByTimeAsync(FIRST_SWEEP_MS - 1);
      expect(sweptAt).toEqual([]);
      await vi.advanceTimersByTimeAsync(1 + 3 * SWEEP_INTERVAL_MS);
      expect(sweptAt).toEqual([FIRST_SWEEP_MS, FIRST_SWEEP_MS + SWEEP_INTERVAL_MS, FIRST_SWEEP_MS + 2 * SWEEP_INTERVAL_MS, FIRST_SWEEP_MS + 3 * SWEEP_INTERVAL_MS]);
      await housekeeping.stop();
      await vi.advanceTimersByTimeAsync(5 * SWEEP_INTERVAL_MS);
      expect(sweptAt).toHaveLength(4);
    });

    it('sweeps sooner when expired registrations are kept for less than a minute', async () => {
      vi.useFakeTimers();
      const { housekeeping, sweptAt } = timed({ rows: 0, expiredKeptMs: 2_000 });
      await vi.advanceTimersByTimeAsync(6_000);
      expect(sweptAt).toEqual([2_000, 4_000, 6_000]);
      await housekeeping.stop();
    });

    it('hands the tables that lost rows to reclaim, none when nothing was deleted, and logs a reclaim that fails', async () => {
      const reclaimed: (readonly SweptTable[])[] = [];
      const { housekeeping } = timed({ rows: 2, reclaim: async (tables) => void reclaimed.push(tables) });
      try {
        expect(await housekeeping.sweep()).toBe(2);
      } finally {
        await housekeeping.stop();
      }
      expect(reclaimed).toEqual([['oidc_payloads']]);

      const nothing = timed({ rows: 0, reclaim: async (tables) => void reclaimed.push(tables) });
      await nothing.housekeeping.sweep();
      await nothing.housekeeping.stop();
      expect(reclaimed).toHaveLength(1);

      const failing = timed({ rows: 2, reclaim: async () => Promise.reject(new Error('vacuum refused')) });
      expect(await failing.housekeeping.sweep()).toBe(2);
      await failing.housekeeping.stop();
      const failed = failing.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'reclaiming the space of deleted rows failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ tables: ['oidc_payloads'], err: { message: 'vacuum refused' } });
    });
  });
});
