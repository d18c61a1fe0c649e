// One-time codes sent by mail (schema.ts email_codes), shared by every process
// on one database. The caller hands over a hash of the code, never the code.
// Using a code is one conditional update (unused, unexpired) returning its
// owner: of N requests racing with the same code, on any process, exactly one
// gets a row back. Issuing a code retires the user's older ones for the same
// purpose, so only the newest mail works, and counts the recent ones: a flood
// of requests for one account sends a few mails, not thousands.
import type { EmailCodePurpose, EmailCodes } from '../commands/ports.js';
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
}

export function createEmailCodes({ sql: client }: Pick<Database, 'sql'>): EmailCodes {
  return {
    issue: mapped(async ({ purpose, codeHash, userId, email, ttlSeconds, perWindow, windowSeconds }) => {
      const [recent] = await client.query<{ n: number }>(sql`
        select count(*)::int as n from email_codes
        where user_id = ${userId} and purpose = ${purpose} and created_at > now() - make_interval(secs => ${windowSeconds})`);
      if (Number(recent?.n ?? 0) >= perWindow) return false;
      await client.query(sql`
        update email_codes set used_at = now() where user_id = ${userId} and purpose = ${purpose} and used_at is null`);
      await client.query(sql`
        insert into email_codes (code_hash, purpose, user_id, email, expires_at)
        values (${codeHash}, ${purpose}, ${userId}, ${email}, now() + make_interval(secs => ${ttlSeconds}))`);
      return true;
    }),
    peek: mapped(async (purpose: EmailCodePurpose, codeHash: string) => {
      const [row] = await client.query<Owner>(sql`
        select user_id, email from email_codes where code_hash = ${codeHash} and purpose = ${purpose} and used_at is null and expires_at > now()`);
      return row ? { userId: row.user_id, email: row.email } : undefined;
    }),
    use: mapped(async (purpose: EmailCodePurpose, codeHash: string) => {
      const [row] = await client.query<Owner>(sql`
        update email_codes set used_at = now()
        where code_hash = ${codeHash} and purpose = ${purpose} and used_at is null and expires_at > now()
        returning user_id, email`);
      return row ? { userId: row.user_id, email: row.email } : undefined;
    }),
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
