// Background work that keeps the read models small: rows of security-key
// registrations that were never completed and expired more than
// KEYHOLD_WEBAUTHN_EXPIRED_KEPT_MS ago are deleted from u2f_tokens. Until then
// ListU2FTokens shows them as EXPIRED. Their events stay (the history is the
// truth): VerifyU2FRegistration loads them and still answers
// U2F_REGISTRATION_EXPIRED.
//
// Every process runs it (several may share a PostgreSQL; a delete is
// idempotent); one sweep at a time, in batches, so a large backlog never holds
// one long transaction. The same sweep deletes the other rows that only live
// for a window (`windowed`: kept Idempotency-Key answers).
import type { Logger } from 'pino';
import type { RepeatedErrorLog } from './repeated-errors.js';

/** Rows deleted per statement. */
const BATCH = 5_000;
/** The most time between sweeps; sooner when expired registrations are kept for less. */
const MAX_INTERVAL_MS = 10 * 60_000;

export interface Housekeeping {
  /** One sweep now (the timer's too); resolves with the rows deleted. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

export function startHousekeeping(options: {
  /** Deletes rows of registrations expired before the date, at most the limit; resolves with how many (store/read-model.ts). */
  deleteExpired: (before: Date, limit: number) => Promise<number>;
  expiredKeptMs: number;
  /** Tables whose rows are deleted once their window is over: each deletes at most the limit, resolving with how many. */
  windowed?: readonly { task: string; deleteExpired: (limit: number) => Promise<number> }[];
  log: Logger;
  errors: RepeatedErrorLog;
}): Housekeeping {
  const { deleteExpired, expiredKeptMs, windowed = [], log, errors } = options;
  const intervalMs = Math.min(MAX_INTERVAL_MS, Math.max(1_000, expiredKeptMs));
  let running: Promise<number> | undefined;

  async function sweepOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await deleteExpired(new Date(Date.now() - expiredKeptMs), BATCH);
      total += deleted;
      if (deleted < BATCH) break;
    }
    if (total > 0) log.info({ deleted: total }, 'expired security-key registrations removed from the read model');
    for (const { task, deleteExpired: deleteBatch } of windowed) {
      let deleted = 0;
      for (;;) {
        const batch = await deleteBatch(BATCH);
        deleted += batch;
        if (batch < BATCH) break;
      }
      if (deleted > 0) log.debug({ task, deleted }, 'rows past their window deleted');
      total += deleted;
    }
    return total;
  }

  const sweep = () => (running ??= sweepOnce().finally(() => (running = undefined)));
  const timer = setInterval(() => {
    // The database may be away or its disk full: the next sweep tries again.
    sweep().catch((err: unknown) => errors.error(err, { task: 'expired registrations' }, 'housekeeping failed'));
  }, intervalMs).unref();

  return {
    sweep,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
