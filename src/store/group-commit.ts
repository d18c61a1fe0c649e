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
// - No waiting on purpose: while fewer than `maxInFlight` batches run, an
//   append starts at once (alone, at low load). Only appends that arrive while
//   every slot is busy queue up; the next free slot takes all of them (up to
//   `maxBatch`). So batching grows with load and adds no latency without it.
// - Each append stays all-or-nothing and independent of the others: if a
//   shared transaction fails on a statement error (a unique index, a sequence
//   conflict — which may come from just one member, or from two members
//   racing for the same name), nothing of it was written, and every member is
//   run again in its own transaction, where it gets its own outcome. Only an
//   unreachable database fails the whole batch at once (re-running would only
//   fail again, slower), and with it every append queued behind it: otherwise
//   each batch would wait out the connect timeout after the one before it
//   (test/reliability/outage-stopped: writes answered 503 after 6 s, not 3).
// - Members keep their arrival order inside a batch, and re-runs happen in
//   that order too, so of two members racing for one name the earlier wins.
import { isUnavailable } from './errors.js';
import type { SqlClient, SqlStatement } from './sql.js';

export interface GroupCommitOptions {
  /** Shared transactions running at once (each holds one connection). */
  maxInFlight: number;
  /** Most appends in one shared transaction. */
  maxBatch: number;
}

interface Member {
  statements: readonly SqlStatement[];
  resolve(rows: unknown[][]): void;
  reject(err: unknown): void;
}

/** `atomic` with the same contract as SqlClient.atomic, run as part of a shared transaction when busy. */
export function groupCommitter(client: Pick<SqlClient, 'atomic'>, options: GroupCommitOptions) {
  const queue: Member[] = [];
  let inFlight = 0;

  /** Rejects `members`, and on an outage also everything queued behind them (see above). */
  function fail(members: readonly Member[], err: unknown): void {
    for (const m of isUnavailable(err) ? [...members, ...queue.splice(0)] : members) m.reject(err);
  }

  async function runAlone(member: Member): Promise<void> {
    try {
      member.resolve(await client.atomic(member.statements));
    } catch (err) {
      fail([member], err);
    }
  }

  async function runTogether(members: Member[]): Promise<void> {
    let results: unknown[][];
    try {
      results = await client.atomic(members.flatMap((m) => m.statements));
    } catch (err) {
      if (isUnavailable(err)) return fail(members, err);
      for (const m of members) await runAlone(m);
      return;
    }
    let at = 0;
    for (const m of members) {
      m.resolve(results.slice(at, at + m.statements.length));
      at += m.statements.length;
    }
  }

  function pump(): void {
    while (inFlight < options.maxInFlight && queue.length > 0) {
      const members = queue.splice(0, options.maxBatch);
      inFlight++;
      void (members.length === 1 ? runAlone(members[0]!) : runTogether(members)).finally(() => {
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
