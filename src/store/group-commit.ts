// Group commit: appends that arrive while the database is busy with earlier
// ones share one transaction instead of paying for their own.
//
// Why: under load an append's cost was mostly per-transaction, not per-row —
// BEGIN's round trip, the COMMIT and its WAL flush, a socket write each way,
// postgres.js bookkeeping per message (bench/results: socket writes ~29% and
// postgres.js ~14% of the server's CPU at 1,275 appends/s). Sharing the
// transaction among the appends waiting at that moment divides all of that.
//
// Rules:
// - No waiting on purpose: with no transaction running, an append starts at
//   once (alone, at low load). Appends that arrive while one runs queue up,
//   and the next transaction takes all of them (up to `maxBatch`). So batching
//   grows with load and adds no latency without it.
// - One transaction at a time measured best (bench: a second slot only took
//   what arrived meanwhile, ~6 appends, and lowered throughput). But one slot
//   must not let one slow transaction — a lock held by another process, a
//   half-open connection, a long re-run (below) — stop every write: once the
//   newest running transaction is older than `stallMs`, another may start,
//   up to `maxInFlight`.
// - Each append stays all-or-nothing and independent of the others: if a
//   shared transaction fails on a statement error (a unique index, a sequence
//   conflict — which may come from just one member, or from two members
//   racing for the same name), nothing of it was written. The driver says
//   which statement failed, so which member: the members before it ran
//   without error and run again together; then that member alone, where it
//   gets its own outcome (so of two members racing for one name the earlier
//   wins); then the members after it together, the same way. A batch with f
//   failing members costs at most 1 + 3f transactions, not one per member —
//   a client repeating a taken name under load must not multiply the writes
//   of everyone else. When the driver cannot say which statement failed,
//   every member runs alone, in arrival order. A refusal every write would
//   get (a read-only database, a full disk: errors.ts refusesEveryWrite) fails
//   all members at once instead.
// - A lost connection fails the transaction's members (their outcome is
//   unknown: DatabaseUnavailable, as without sharing). When the database
//   cannot be connected to at all, everything queued fails with them at once:
//   otherwise each batch would wait out the connect timeout after the one
//   before it (test/reliability/outage-stopped: writes answered 503 after
//   6 s, not 3).
import { cannotConnect, isDeadlock, isUnavailable, refusesEveryWrite } from './errors.js';
import { failedStatementIndex, type SqlClient, type SqlStatement } from './sql.js';

/** How often a member alone runs when PostgreSQL keeps choosing it to break a deadlock. */
const DEADLOCK_ATTEMPTS = 3;

export interface GroupCommitOptions {
  /** Most appends in one shared transaction. */
  maxBatch: number;
  /** Transactions running at once when they stall (each holds one connection). */
  maxInFlight: number;
  /** How long the newest running transaction may take before another starts beside it. */
  stallMs: number;
  /** Told the number of appends in each transaction as it is sent (metrics: ./observer.ts). */
  onTransaction?: (appends: number) => void;
}

/**
 * How writes share transactions under load, per driver (the event store's
 * appends and the OpenID Provider's rows, each with its own committer).
 * One transaction at a time measured best on PostgreSQL too (bench, AddOIDCApp
 * gRPC c=64, two runs each): 1 slot 1,788–2,050/s with ~20 appends per
 * transaction; 2 slots 1,447–1,482/s (the second slot takes whatever arrived
 * meanwhile: ~6 per transaction); no sharing (20 slots of 1) 1,175–1,288/s.
 * A transaction normally takes ~20 ms under that load; one that takes 100 ms
 * is stuck behind something (a lock, a dead connection), and then more may
 * run beside it, leaving the rest of the pool (20) to reads. PGlite runs one
 * statement batch at a time anyway.
 */
export const GROUP_COMMIT_BY_DRIVER: Record<'pglite' | 'postgres', GroupCommitOptions> = {
  pglite: { maxBatch: 64, maxInFlight: 1, stallMs: 100 },
  postgres: { maxBatch: 64, maxInFlight: 8, stallMs: 100 },
};

interface Member {
  statements: readonly SqlStatement[];
  resolve(rows: unknown[][]): void;
  reject(err: unknown): void;
}

/** `atomic` with the same contract as SqlClient.atomic, run as part of a shared transaction when busy. */
export function groupCommitter(client: Pick<SqlClient, 'atomic'>, options: GroupCommitOptions) {
  const queue: Member[] = [];
  let inFlight = 0;
  let newestStartedAt = 0;
  let stallTimer: NodeJS.Timeout | undefined;

  /** Rejects `members`, and when the database cannot be reached also everything queued (see above). */
  function fail(members: readonly Member[], err: unknown): void {
    for (const m of cannotConnect(err) ? [...members, ...queue.splice(0)] : members) m.reject(err);
  }

  // Both run functions settle every member they are given, and return the
  // error when the database cannot be reached, so that callers stop there.

  /**
   * Runs one member in its own transaction. A member alone can still deadlock
   * with another process's shared transaction over the same rows (two
   * processes revoking one grant while a third saves its token): the aborted
   * transaction wrote nothing, so it runs again, a few times.
   */
  async function runAlone(member: Member): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      options.onTransaction?.(1);
      try {
        member.resolve(await client.atomic(member.statements));
      } catch (err) {
        if (isDeadlock(err) && attempt < DEADLOCK_ATTEMPTS) continue;
        fail([member], err);
        if (cannotConnect(err)) return err;
      }
      return undefined;
    }
  }

  /** The member whose statements include statement `index` of the shared transaction. */
  function memberOf(members: readonly Member[], index: number | undefined): number {
    if (index === undefined) return -1;
    let end = 0;
    return members.findIndex((m) => index < (end += m.statements.length));
  }

  /** Runs `members` in one transaction, or again in parts when one of them fails (see above). */
  async function runTogether(members: readonly Member[]): Promise<unknown> {
    if (members.length === 0) return undefined;
    if (members.length === 1) return runAlone(members[0]!);
    let results: unknown[][];
    options.onTransaction?.(members.length);
    try {
      results = await client.atomic(members.flatMap((m) => m.statements));
    } catch (err) {
      if (isUnavailable(err) || refusesEveryWrite(err)) {
        fail(members, err);
        return cannotConnect(err) ? err : undefined;
      }
      const culprit = memberOf(members, failedStatementIndex(err));
      const parts = culprit < 0 ? members.map((m) => [m]) : [members.slice(0, culprit), [members[culprit]!], members.slice(culprit + 1)];
      for (const [i, part] of parts.entries()) {
        const unreachable = await runTogether(part);
        if (unreachable) {
          fail(parts.slice(i + 1).flat(), unreachable);
          return unreachable;
        }
      }
      return undefined;
    }
    let at = 0;
    for (const m of members) {
      m.resolve(results.slice(at, at + m.statements.length));
      at += m.statements.length;
    }
    return undefined;
  }

  function pump(): void {
    while (queue.length > 0) {
      const stalledFor = performance.now() - newestStartedAt;
      if (inFlight > 0 && (inFlight >= options.maxInFlight || stalledFor < options.stallMs)) {
        // Look again when the newest transaction would count as stalled (or at its end, whichever comes first).
        if (inFlight < options.maxInFlight && !stallTimer) {
          stallTimer = setTimeout(() => {
            stallTimer = undefined;
            pump();
          }, options.stallMs - stalledFor).unref();
        }
        return;
      }
      const members = queue.splice(0, options.maxBatch);
      inFlight++;
      newestStartedAt = performance.now();
      void runTogether(members).finally(() => {
        inFlight--;
        pump();
      });
    }
  }

  return function atomic(statements: readonly SqlStatement[]): Promise<unknown[][]> {
    return new Promise((resolve, reject) => {
      queue.push({ statements, resolve, reject });
      pump();
    });
  };
}
