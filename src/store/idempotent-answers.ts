// Answers kept for requests sent with an Idempotency-Key (schema.ts
// idempotent_answers; the rules in src/server/rpc/interceptors/idempotency.ts),
// shared by every process on one database.
//
// reserve(): one atomic insert (`on conflict do nothing`) claims the key for
// this execution; of N requests arriving together on any process exactly one
// inserts. The others read the row: its answer once finished, "running" until
// then, "conflict" when it was made for another request. A row whose window is
// over, or whose execution outlived its running bound (its process died), is
// taken over by one conditional update — again one winner.
//
// finish() stores the sealed answer; release() deletes a reservation whose
// execution failed, so a retry runs. Both only touch the row this execution
// owns (a random owner id): never one another execution took over.
//
// The store sees opaque strings only: row keys and digests are HMACs, answers
// sealed, made by the caller of this port.
import { randomBytes } from 'node:crypto';
import type { Database } from './database.js';
import { toStoreError } from './errors.js';
import { sql } from './sql.js';

export type Claim =
  /** This execution owns the key: run, then finish() or release() with `owner`. */
  | { kind: 'run'; owner: string }
  /** The first execution finished: its sealed answer. */
  | { kind: 'answer'; sealed: string }
  /** The first execution is still running. */
  | { kind: 'running' }
  /** The key was used for another request. */
  | { kind: 'conflict' };

export interface ClaimTimes {
  /** How long an answer is kept, from the first request. */
  windowSeconds: number;
  /** How long an execution may run before its key is taken to be abandoned. */
  runningSeconds: number;
}

export interface IdempotentAnswers {
  reserve(key: string, digest: string, times: ClaimTimes): Promise<Claim>;
  finish(key: string, owner: string, sealed: string): Promise<void>;
  release(key: string, owner: string): Promise<void>;
  /** Deletes rows whose window is over, at most `limit`; resolves with how many. */
  deleteExpired(limit: number): Promise<number>;
  /** Counts them, at most `limit` (the housekeeping sweep's backlog). */
  countExpired(limit: number): Promise<number>;
}

interface Row {
  request_digest: string;
  sealed_answer: string | null;
  expired: boolean;
}

const mapped =
  <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
  (...args: A): Promise<R> =>
    f(...args).catch((err: unknown) => {
      throw toStoreError(err);
    });

export function createIdempotentAnswers({ sql: client }: Pick<Database, 'sql'>): IdempotentAnswers {
  async function reserve(key: string, digest: string, { windowSeconds, runningSeconds }: ClaimTimes): Promise<Claim> {
    const owner = randomBytes(12).toString('base64url');
    // A row deleted by the sweep between the insert and the read: insert again (bounded).
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await client.query(sql`
        insert into idempotent_answers (key, request_digest, owner, running_until, expires_at)
        values (${key}, ${digest}, ${owner}, now() + make_interval(secs => ${runningSeconds}), now() + make_interval(secs => ${windowSeconds}))
        on conflict (key) do nothing returning 1 as ok`);
      if (inserted.length > 0) return { kind: 'run', owner };
      const [row] = await client.query<Row>(sql`
        select request_digest, sealed_answer, expires_at <= now() as expired from idempotent_answers where key = ${key}`);
      if (!row) continue;
      if (!row.expired && row.request_digest !== digest) return { kind: 'conflict' };
      if (!row.expired && row.sealed_answer !== null) return { kind: 'answer', sealed: row.sealed_answer };
      // Over (swept later), or running past its bound: one taker wins; the others read again.
      const taken = await client.query(sql`
        update idempotent_answers set request_digest = ${digest}, owner = ${owner}, sealed_answer = null,
          running_until = now() + make_interval(secs => ${runningSeconds}),
          expires_at = case when expires_at <= now() then now() + make_interval(secs => ${windowSeconds}) else expires_at end
        where key = ${key} and (expires_at <= now() or (sealed_answer is null and running_until <= now() and request_digest = ${digest}))
        returning 1 as ok`);
      if (taken.length > 0) return { kind: 'run', owner };
      if (!row.expired) {
        // Not taken: still running within its bound, or finished meanwhile.
        const [now] = await client.query<Row>(sql`
          select request_digest, sealed_answer, expires_at <= now() as expired from idempotent_answers where key = ${key}`);
        if (now && !now.expired && now.request_digest === digest && now.sealed_answer !== null) return { kind: 'answer', sealed: now.sealed_answer };
        if (now && !now.expired) return now.request_digest === digest ? { kind: 'running' } : { kind: 'conflict' };
      }
    }
    // Three races in a row with the sweep or other takers: say "running", the client retries.
    return { kind: 'running' };
  }

  return {
    reserve: mapped(reserve),
    finish: mapped(async (key: string, owner: string, sealed: string) => {
      await client.query(sql`update idempotent_answers set sealed_answer = ${sealed} where key = ${key} and owner = ${owner}`);
    }),
    release: mapped(async (key: string, owner: string) => {
      await client.query(sql`delete from idempotent_answers where key = ${key} and owner = ${owner} and sealed_answer is null`);
    }),
    deleteExpired: mapped(async (limit: number) => {
      const rows = await client.query<{ n: number }>(sql`
        with gone as (
          delete from idempotent_answers
          where key in (select key from idempotent_answers where expires_at <= now() limit ${limit} for update skip locked)
            and expires_at <= now()
          returning 1
        ) select count(*)::int as n from gone`);
      return Number(rows[0]?.n ?? 0);
    }),
    countExpired: mapped(async (limit: number) => {
      const rows = await client.query<{ n: number }>(sql`
        select count(*)::int as n from (select 1 from idempotent_answers where expires_at <= now() limit ${limit}) expired`);
      return Number(rows[0]?.n ?? 0);
    }),
  };
}
