// Guessing budgets on the database (schema.ts attempt_budgets; the rules in
// src/domain/identity/attempt-budget.ts): one row per bucket, shared by every
// process on one PostgreSQL.
//
// reserve(): the buckets' rows are locked (FOR UPDATE, in key order, so two
// reservations never wait on each other in a cycle), decided by the pure
// rules and updated in one transaction — all of them or none. A lockout
// policy's bucket reads the user's recorded wrong passwords in that same
// transaction, after the lock: a failure is recorded before its reservation
// is released (src/commands/login/check-password.ts), so the count and the attempts in flight never
// miss an attempt between them. Time is the database's (now()), the same for
// every process.
//
// finish(): one transaction, the rows in the same key order: each place given
// back (unless a newer epoch dropped it as stale), a failure counted, or the
// streak cleared.
//
// Keys are HMACs of what a bucket counts (an account and a client, an
// address, a typed login name): the table holds no name, address or user id,
// and no fast hash of a password someone typed into the username field.
import { createHmac } from 'node:crypto';
import { sql as dsql } from 'drizzle-orm';
import {
  BUCKETS,
  decideAll,
  decideCounted,
  decideLockout,
  EMPTY_BUCKET,
  WINDOW_SECONDS,
  type AttemptOutcome,
  type BucketRequest,
  type BucketState,
  type CountedBucket,
} from '../domain/identity/attempt-budget.js';
import { failureStreak, STREAK_EVENTS } from '../domain/user/failure-streak.js';
import type { FinishedBucket, GuessBudgets, Reservation, ReserveResult } from '../commands/ports.js';
import type { Database } from './database.js';
import { toStoreError } from './errors.js';
import { sql } from './sql.js';

export type { FinishedBucket, Reservation, ReserveResult } from '../commands/ports.js';

export interface AttemptBudgets extends GuessBudgets {
  /** Deletes buckets whose window is over, at most `limit`; resolves with how many. */
  deleteExpired(limit: number): Promise<number>;
  /** Counts them, at most `limit` (the housekeeping sweep's backlog). */
  countExpired(limit: number): Promise<number>;
}

interface Row {
  key: string;
  failures: number;
  last_ms: number | null;
  in_flight: number;
  until_ms: number | null;
  epoch: number;
  now_ms: number;
}

/** A Postgres array literal of base64url keys or numbers (no quoting needed). */
const arrayLiteral = (values: readonly (string | number | null)[]) => `{${values.map((v) => (v === null ? 'NULL' : String(v))).join(',')}}`;

const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? (result as T[]) : (((result as { rows?: T[] }).rows ?? []) as T[]));

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function stateOf(row: Row | undefined): BucketState {
  if (!row) return EMPTY_BUCKET;
  return { failures: row.failures, lastFailureAt: num(row.last_ms), inFlight: row.in_flight, inFlightUntil: num(row.until_ms), epoch: row.epoch };
}

/** How a bucket is named in the table. */
function logicalKey(request: BucketRequest): string {
  return request.kind === 'lockout' ? `lockout ${request.userId}` : `${request.kind} ${request.key}`;
}

const NO_FINISH = async (): Promise<FinishedBucket[]> => [];

/** `f` with its rejections as the store's errors (DatabaseUnavailable, StorageUnavailable: a 503, never a driver's text). */
const mapped =
  <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
  (...args: A): Promise<R> =>
    f(...args).catch((err: unknown) => {
      throw toStoreError(err);
    });

/**
 * `secret` keys the HMAC of bucket names (derived from the master key, so
 * every process names a bucket alike).
 */
export function createAttemptBudgets({ db, sql: client }: Pick<Database, 'db' | 'sql'>, secret: Buffer): AttemptBudgets {
  const keyOf = (request: BucketRequest) => createHmac('sha256', secret).update(logicalKey(request)).digest('base64url');

  async function lockoutCount(tx: Pick<Database['db'], 'execute'>, userId: string, maxAttempts: number): Promise<number> {
    const types = arrayLiteral(STREAK_EVENTS.map((t) => `"${t}"`));
    const rows = rowsOf<{ type: string }>(
      await tx.execute(dsql`
        select type from events
        where aggregate_type = 'user' and aggregate_id = ${userId} and type = any(${types}::text[])
        order by sequence desc limit ${Math.max(1, maxAttempts)}`),
    );
    // The newest events that move the streak, folded as the user decider folds them (at most maxAttempts).
    return failureStreak(rows.map((r) => r.type).reverse());
  }

  async function reserve(requests: readonly BucketRequest[]): Promise<ReserveResult> {
    const named = [...new Map(requests.map((r) => [keyOf(r), r])).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (named.length === 0) return { ok: true, finish: NO_FINISH };
    const keys = named.map(([key]) => key);
    const keyArray = arrayLiteral(keys);
    const decided = await decide(named, keyArray);
    if (!decided.allowed) return { ok: false, waitSeconds: decided.waitSeconds };
    return reservation(named, decided.epochs);
  }

  /** A refusal ends decide()'s transaction by rolling it back: a refused guess leaves no row behind (a spray of new names would fill the table). */
  class Refused {
    constructor(readonly answer: { allowed: false; waitSeconds: number }) {}
  }

  async function decide(named: readonly (readonly [string, BucketRequest])[], keyArray: string) {
    try {
      return await decideIn(named, keyArray);
    } catch (e) {
      if (e instanceof Refused) return e.answer;
      throw e;
    }
  }

  function decideIn(named: readonly (readonly [string, BucketRequest])[], keyArray: string) {
    return db.transaction(async (tx) => {
      // Made where missing and locked, in one statement: an existing row's no-op update locks it as
      // `select … for update` would, and returns it as it is. Rows are taken in key order (the insert
      // follows its select's order; an insert waits for another's uncommitted one), so no two
      // reservations wait on each other in a cycle.
      const rows = rowsOf<Row>(
        await tx.execute(dsql`
          insert into attempt_budgets (key, expires_at)
          select k, now() + make_interval(secs => ${WINDOW_SECONDS}) from unnest(${keyArray}::text[]) as k order by k
          on conflict (key) do update set expires_at = attempt_budgets.expires_at
          returning key, failures, in_flight, epoch,
            (extract(epoch from last_failure_at) * 1000)::float8 as last_ms,
            (extract(epoch from in_flight_until) * 1000)::float8 as until_ms,
            (extract(epoch from now()) * 1000)::float8 as now_ms`),
      );
      if (rows.length < named.length) throw new Error('the attempt budgets upsert returned fewer rows than keys');
      const byKey = new Map(rows.map((r) => [r.key, r]));
      const now = Number(rows[0]?.now_ms ?? Date.now());
      const decisions = await Promise.all(
        named.map(async ([key, request]) => {
          const state = stateOf(byKey.get(key));
          if (request.kind !== 'lockout') return decideCounted(request.kind, state, now);
          return decideLockout(request.maxAttempts, await lockoutCount(tx, request.userId, request.maxAttempts), state, now);
        }),
      );
      const all = decideAll(decisions);
      if (!all.allowed) throw new Refused(all);
      const next = all.next;
      await tx.execute(dsql`
        update attempt_budgets as b set
          failures = v.failures,
          last_failure_at = case when v.last_ms is null then null else to_timestamp(v.last_ms / 1000.0) end,
          in_flight = v.in_flight,
          in_flight_until = to_timestamp(v.until_ms / 1000.0),
          epoch = v.epoch,
          expires_at = greatest(b.expires_at, now() + make_interval(secs => ${WINDOW_SECONDS}))
        from unnest(${keyArray}::text[], ${arrayLiteral(next.map((s) => s.failures))}::int[], ${arrayLiteral(next.map((s) => s.lastFailureAt))}::float8[],
                    ${arrayLiteral(next.map((s) => s.inFlight))}::int[], ${arrayLiteral(next.map((s) => s.inFlightUntil))}::float8[],
                    ${arrayLiteral(next.map((s) => s.epoch))}::int[]) as v(key, failures, last_ms, in_flight, until_ms, epoch)
        where b.key = v.key`);
      return { allowed: true as const, epochs: next.map((s) => s.epoch) };
    });
  }

  function reservation(named: readonly (readonly [string, BucketRequest])[], epochs: readonly number[]): Reservation {
    let finished: Promise<FinishedBucket[]> | undefined;
    // One statement for every bucket: its rows locked in key order, as a reservation takes them
    // (the CTE's FOR UPDATE locks rows as they leave the sort), so two finishes never wait in a cycle.
    const finishOnce = async (outcome: AttemptOutcome): Promise<FinishedBucket[]> => {
      const fail = named.map(([, request]) => request.kind !== 'lockout' && outcome === 'failure');
      const clear = named.map(([, request]) => request.kind !== 'lockout' && outcome === 'success' && BUCKETS[request.kind as CountedBucket].clearedBySuccess);
      const rows = await client.query<{ key: string; failures: number }>(sql`
        with v as (
          select * from unnest(${arrayLiteral(named.map(([key]) => key))}::text::text[], ${arrayLiteral(epochs)}::text::int[],
            ${arrayLiteral(fail.map(String))}::text::boolean[], ${arrayLiteral(clear.map(String))}::text::boolean[]) as v(key, epoch, fail, clear)
        ), locked as (
          select b.key from attempt_budgets b join v on v.key = b.key order by b.key for update of b
        )
        update attempt_budgets as b set
          in_flight = case when b.epoch = v.epoch then greatest(b.in_flight - 1, 0) else b.in_flight end,
          failures = case when v.fail then b.failures + 1 when v.clear then 0 else b.failures end,
          last_failure_at = case when v.fail then now() when v.clear then null else b.last_failure_at end,
          expires_at = greatest(b.expires_at, now() + make_interval(secs => ${WINDOW_SECONDS}))
        from v join locked on locked.key = v.key
        where b.key = v.key returning b.key, b.failures`);
      const failures = new Map(rows.map((r) => [r.key, Number(r.failures)]));
      return named.flatMap(([key, request]) => (request.kind === 'lockout' ? [] : [{ kind: request.kind, failures: failures.get(key) ?? 0 }]));
    };
    return { ok: true, finish: mapped((outcome: AttemptOutcome) => (finished ??= finishOnce(outcome))) };
  }

  return {
    reserve: mapped(reserve),
    deleteExpired: mapped(async (limit: number) => {
      const rows = await client.query<{ n: number }>(sql`
        with gone as (
          delete from attempt_budgets
          where key in (select key from attempt_budgets where expires_at < now() limit ${limit} for update skip locked)
            and expires_at < now() -- again on the row: a reservation may have brought it back into use meanwhile
          returning 1
        ) select count(*)::int as n from gone`);
      return Number(rows[0]?.n ?? 0);
    }),
    countExpired: mapped(async (limit: number) => {
      const rows = await client.query<{ n: number }>(sql`
        select count(*)::int as n from (select 1 from attempt_budgets where expires_at < now() limit ${limit}) expired`);
      return Number(rows[0]?.n ?? 0);
    }),
  };
}
