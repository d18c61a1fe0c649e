// How long a request may wait on PostgreSQL, whatever holds it up: a full pool,
// a table another session locked, a statement that runs on and on. Without
// bounds, a locked table made requests queue behind each other on the pool's
// connections (postgres.js pipelines them) and hang for as long as the lock
// stayed; now each wait ends, and the request answers 503 DATABASE_UNAVAILABLE
// (the API) or temporarily_unavailable (the OpenID Provider) with Retry-After.
//
// - lock_timeout and statement_timeout are set on every pooled connection
//   (PostgreSQL enforces them; the migration connection has none: it waits
//   for another process's migration by design).
// - A query outside a transaction, and the start of a transaction (getting a
//   connection), waits at most `waitMs` in all, queue included: past it, the
//   caller is answered and the query is cancelled (removed from the queue, or
//   cancelled on the server when it got there).
// Statements inside a transaction hold their own connection and are bounded
// by the server's timeouts alone: answering early there would hand the
// connection back while it still runs.
import type postgres from 'postgres';
import { DatabaseUnavailable } from './errors.js';

export const DATABASE_WAIT_BOUNDS = {
  /** lock_timeout: the longest a statement waits for a lock. */
  lockTimeoutMs: 2_000,
  /** statement_timeout: the longest a statement runs. */
  statementTimeoutMs: 5_000,
  /** The longest a query or a transaction's start waits, for a connection and for its answer. */
  waitMs: 5_000,
  /** The longest /readyz and gRPC health wait for the database (a probe's own timeout is often a few seconds). */
  readyMs: 2_000,
} as const;

/** postgres.js' `connection` option: the server-side bounds, as startup parameters. */
export const SERVER_TIMEOUTS = {
  lock_timeout: DATABASE_WAIT_BOUNDS.lockTimeoutMs,
  statement_timeout: DATABASE_WAIT_BOUNDS.statementTimeoutMs,
} as const;

const waitedTooLong = (ms: number, what: string) => new DatabaseUnavailable(`the database did not answer in time: no ${what} within ${ms / 1000} s`);

/** `promise`, or DatabaseUnavailable after `ms`, when `onLate` runs (to give up what is still pending). */
export function within<T>(promise: PromiseLike<T>, ms: number, what: string, onLate: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onLate();
      reject(waitedTooLong(ms, what));
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Query = postgres.PendingQuery<any>;

/**
 * The same lazy query, answered within `ms`: drizzle awaits it (or its
 * `.values()`), which sends it. A late query is cancelled: postgres.js drops it
 * from the queue, or asks the server to cancel it once it runs.
 */
export function boundedQuery<Q extends Query>(query: Q, ms: number): Q {
  let answered: Promise<unknown> | undefined;
  const answer = () => (answered ??= within(query, ms, 'answer', () => void query.cancel()));
  const proxy: Q = new Proxy(query, {
    get(target, property) {
      if (property === 'then') return (ok?: (v: unknown) => unknown, fail?: (e: unknown) => unknown) => answer().then(ok, fail);
      if (property === 'catch') return (fail?: (e: unknown) => unknown) => answer().catch(fail);
      if (property === 'finally') return (f?: () => void) => answer().finally(f);
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      // The modifiers (values, raw, execute…) return the query itself: keep the bound.
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        return result === target ? proxy : result;
      };
    },
  });
  return proxy;
}

/** A reserved connection within `ms`; one that comes later goes back to the pool at once. */
export function reserveWithin(client: postgres.Sql, ms: number): Promise<postgres.ReservedSql> {
  let late = false;
  const reserving = client.reserve();
  void reserving.then(
    (connection) => late && connection.release(),
    () => {},
  );
  return within(reserving, ms, 'connection', () => (late = true));
}

/**
 * A transaction whose start (its connection, its BEGIN) comes within `ms`.
 * `open` runs the transaction with the given body; a body reached too late
 * throws instead of running, so the transaction rolls back unseen.
 */
export function beginWithin<T, Tx>(open: (body: (tx: Tx) => unknown) => Promise<T>, body: (tx: Tx) => unknown, ms: number): Promise<T> {
  let state: 'waiting' | 'started' | 'late' = 'waiting';
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      if (state !== 'waiting') return;
      state = 'late';
      reject(waitedTooLong(ms, 'transaction'));
    }, ms);
    open((tx) => {
      clearTimeout(timer);
      if (state === 'late') throw waitedTooLong(ms, 'transaction');
      state = 'started';
      return body(tx);
    }).then(resolve, (err: unknown) => {
      clearTimeout(timer);
      if (state !== 'late') reject(err);
    });
  });
}
