// Background work that deletes rows whose time is over, one table after the
// other, in one sweep:
// - u2f_tokens: security-key registrations that were never completed and
//   expired more than KEYHOLD_WEBAUTHN_EXPIRED_KEPT_MS ago. Until then
//   ListU2FTokens shows them as EXPIRED. Their events stay (the history is the
//   truth): VerifyU2FRegistration loads them and still answers
//   U2F_REGISTRATION_EXPIRED.
// - the rows that only live for a window (`windowed`): the OpenID Provider's
//   state (codes, tokens, sessions, interactions), the guessing budgets, kept
//   Idempotency-Key answers.
//
// Every process runs it, a few seconds after its start and then every minute
// (several may share a PostgreSQL: a batch skips rows another process's batch
// holds, and a delete is idempotent); one sweep at a time, in batches, so a
// large backlog never holds one long transaction. A table that fails is logged
// and the next goes on; the next sweep tries it again.
//
// The minute is the bound: a row stays at most about a minute past its
// window, so the expired rows present stay below a minute of the write rate
// (bench/soak.ts: ten minutes of logins on PostgreSQL, 284 rows written/s, at
// most 9,043 expired rows present against that bound's 17,049). A table that lost
// rows is then handed to `reclaim`: PGlite has no autovacuum, and without a
// vacuum its files grow with every row ever written (store/pglite-database.ts).
//
// Each table's backlog — expired rows still present — is counted at the start
// of its sweep and lessened by each batch deleted, for the operator
// (metrics.ts keyhold_expired_rows): a backlog that stays up means the sweep
// cannot keep up or keeps failing; keyhold_sweep_last_success_timestamp_seconds
// says when each table was last swept to its end.
import type { Logger } from 'pino';
import { toStoreError } from '../store/errors.js';
import type { SweepObserver, SweptTable } from './metrics.js';
import type { RepeatedErrorLog } from './repeated-errors.js';

/** Rows deleted per statement. */
const BATCH = 5_000;
/** The most time between sweeps; sooner when expired registrations are kept for less. */
export const SWEEP_INTERVAL_MS = 60_000;
/** The first sweep after a start: soon, so that a process restarted often still sweeps, but not inside the start. */
export const FIRST_SWEEP_MS = 5_000;
/** The most expired rows a backlog count reads: past it the gauge says "at least this many". */
export const BACKLOG_CAP = 1_000_000;

export interface Housekeeping {
  /** One sweep now (the timer's too); resolves with the rows deleted. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

/** A table whose rows are deleted once their window is over. */
export interface WindowedTable {
  table: SweptTable;
  /** Deletes expired rows, at most the limit; resolves with how many. */
  deleteExpired: (limit: number) => Promise<number>;
  /** Counts expired rows present, at most the limit. */
  countExpired: (limit: number) => Promise<number>;
}

const NO_OBSERVER: SweepObserver = { backlog: () => {}, swept: () => {} };

export function startHousekeeping(options: {
  /** Deletes rows of registrations expired before the date, at most the limit; resolves with how many (store/read-model.ts). */
  deleteExpired: (before: Date, limit: number) => Promise<number>;
  /** Counts them, at most the limit. */
  countExpired: (before: Date, limit: number) => Promise<number>;
  expiredKeptMs: number;
  windowed?: readonly WindowedTable[];
  log: Logger;
  errors: RepeatedErrorLog;
  observer?: SweepObserver;
  /** After a sweep, given the tables that lost rows: gives their space back (PGlite's vacuum); absent where the database does it. */
  reclaim?: (tables: readonly SweptTable[]) => Promise<void>;
}): Housekeeping {
  const { expiredKeptMs, windowed = [], log, errors, observer = NO_OBSERVER, reclaim } = options;
  const intervalMs = Math.min(SWEEP_INTERVAL_MS, Math.max(1_000, expiredKeptMs));
  let running: Promise<number> | undefined;
  let stopped = false;

  const registrations = (): WindowedTable => {
    const before = new Date(Date.now() - expiredKeptMs);
    return {
      table: 'u2f_tokens',
      deleteExpired: (limit) => options.deleteExpired(before, limit),
      countExpired: (limit) => options.countExpired(before, limit),
    };
  };

  /** Sweeps one table to its end; `deleted.rows` counts what went, also when a later batch fails. */
  async function sweepTable({ table, deleteExpired, countExpired }: WindowedTable, deleted: { rows: number }): Promise<void> {
    let left = await countExpired(BACKLOG_CAP);
    observer.backlog(table, left);
    for (;;) {
      const batch = await deleteExpired(BATCH);
      deleted.rows += batch;
      // Rows that expired since the count are deleted too: never below none.
      left = Math.max(0, left - batch);
      observer.backlog(table, left);
      if (batch < BATCH) break;
    }
    observer.swept(table);
  }

  async function sweepOnce(): Promise<number> {
    let total = 0;
    const shrunk: SweptTable[] = [];
    for (const task of [registrations(), ...windowed]) {
      const deleted = { rows: 0 };
      try {
        await sweepTable(task, deleted);
      } catch (err) {
        // The database may be away or its disk full: the next sweep tries again. Logged as the
        // store's error (DatabaseUnavailable…), never the driver's, which quotes the statement.
        errors.error(toStoreError(err), { task: task.table }, 'housekeeping failed');
      }
      if (deleted.rows > 0 && task.table === 'u2f_tokens') log.info({ deleted: deleted.rows }, 'expired security-key registrations removed from the read model');
      else if (deleted.rows > 0) log.debug({ task: task.table, deleted: deleted.rows }, 'rows past their window deleted');
      total += deleted.rows;
      if (deleted.rows > 0) shrunk.push(task.table);
    }
    if (reclaim && shrunk.length > 0 && !stopped) {
      await reclaim(shrunk).catch((err) => errors.error(toStoreError(err), { tables: shrunk }, 'reclaiming the space of deleted rows failed'));
    }
    return total;
  }

  const sweep = () => (running ??= sweepOnce().finally(() => (running = undefined)));
  // The next sweep is timed from the end of this one: a slow sweep never overlaps the next.
  let timer: NodeJS.Timeout;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => void sweep().finally(() => schedule(intervalMs)), ms).unref();
  };
  schedule(Math.min(FIRST_SWEEP_MS, intervalMs));

  return {
    sweep,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => {});
    },
  };
}
