// The housekeeping sweep's backlog, table by table, with tables of its own
// (no database): each table's expired rows are counted before they are
// deleted and the count goes down by each batch; a table whose delete fails
// keeps what is left as its backlog, is logged, and the next table is still
// swept; only a table swept to its end gets its time of success.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startHousekeeping, type WindowedTable } from '../../src/server/housekeeping.js';
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
});
