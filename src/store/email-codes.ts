// One-time codes sent by mail (schema.ts email_codes), shared by every process
// on one database. The caller hands over a hash of the code, never the code.
// Issuing counts the user's recent codes for the purpose: a flood of requests
// for one account sends a few mails, not thousands. It retires nothing, so a
// request by someone else (anyone can type a name) never takes away the code
// the user holds. Using a code spends it and every other unused code of the
// user for the purpose: whichever mail the person opens works, and once one
// has, none does. Issue and use each run in one transaction under a lock on
// the user and purpose (pg_advisory_xact_lock), so concurrent requests, on any
// process, take their turns: never more codes than the window allows, and of
// N uses racing with one code or several of one user's, exactly one gets a
// row back.
import type { EmailCodePurpose, EmailCodes } from '../commands/ports.js';
import { sql as dsql } from 'drizzle-orm';
import type { Database } from './database.js';
import { toStoreError } from './errors.js';
import { sql } from './sql.js';

const mapped =
  <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
  (...args: A): Promise<R> =>
    f(...args).catch((err: unknown) => {
      throw toStoreError(err);
    });

interface Owner {
  user_id: string;
  email: string;
  created_by: string | null;
}

const ownerOf = (row: Owner) => ({ userId: row.user_id, email: row.email, ...(row.created_by ? { createdBy: row.created_by } : {}) });

type Tx = Parameters<Parameters<Database['db']['transaction']>[0]>[0];

/** Rows of `execute`: node-postgres answers a result with `rows`, PGlite's driver the array. */
const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];

/** Held until the transaction ends: one user's codes for one purpose are issued and used in turns. */
const lock = (tx: Tx, purpose: EmailCodePurpose, userId: string) =>
  tx.execute(dsql`select pg_advisory_xact_lock(hashtextextended(${`keyhold email code ${purpose} ${userId}`}, 0))`);

export function createEmailCodes({ sql: client, db }: Pick<Database, 'sql' | 'db'>): EmailCodes {
  return {
    issue: mapped(({ purpose, codeHash, userId, email, ttlSeconds, perWindow, windowSeconds, createdBy }) =>
      db.transaction(async (tx) => {
        await lock(tx, purpose, userId);
        const counted = await tx.execute(dsql`
          select count(*)::int as n from email_codes
          where user_id = ${userId} and purpose = ${purpose} and created_at > now() - make_interval(secs => ${windowSeconds})`);
        const recent = rowsOf<{ n: number }>(counted)[0];
        if (Number(recent?.n ?? 0) >= perWindow) return false;
        await tx.execute(dsql`
          insert into email_codes (code_hash, purpose, user_id, email, expires_at, created_by)
          values (${codeHash}, ${purpose}, ${userId}, ${email}, now() + make_interval(secs => ${ttlSeconds}), ${createdBy ?? null})`);
        return true;
      }),
    ),
    peek: mapped(async (purpose: EmailCodePurpose, codeHash: string) => {
      const [row] = await client.query<Owner>(sql`
        select user_id, email, created_by from email_codes where code_hash = ${codeHash} and purpose = ${purpose} and used_at is null and expires_at > now()`);
      return row ? ownerOf(row) : undefined;
    }),
    use: mapped((purpose: EmailCodePurpose, codeHash: string) =>
      db.transaction(async (tx) => {
        // Whose code it is decides the lock; whether it still works is decided under it.
        const [holder] = rowsOf<{ user_id: string }>(
          await tx.execute(dsql`select user_id from email_codes where code_hash = ${codeHash} and purpose = ${purpose}`),
        );
        if (!holder) return undefined;
        await lock(tx, purpose, holder.user_id);
        const [row] = rowsOf<Owner>(
          await tx.execute(dsql`
            update email_codes set used_at = now()
            where code_hash = ${codeHash} and purpose = ${purpose} and used_at is null and expires_at > now()
            returning user_id, email, created_by`),
        );
        if (!row) return undefined;
        await tx.execute(dsql`
          update email_codes set used_at = now() where user_id = ${row.user_id} and purpose = ${purpose} and used_at is null`);
        return ownerOf(row);
      }),
    ),
    deleteExpired: mapped(async (limit: number) => {
      const rows = await client.query<{ n: number }>(sql`
        with gone as (
          delete from email_codes
          where code_hash in (select code_hash from email_codes where expires_at <= now() limit ${limit} for update skip locked)
          returning 1
        ) select count(*)::int as n from gone`);
      return Number(rows[0]?.n ?? 0);
    }),
    countExpired: mapped(async (limit: number) => {
      const rows = await client.query<{ n: number }>(sql`
        select count(*)::int as n from (select 1 from email_codes where expires_at <= now() limit ${limit}) expired`);
      return Number(rows[0]?.n ?? 0);
    }),
  };
}
