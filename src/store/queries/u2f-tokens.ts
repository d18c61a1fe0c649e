import { and, asc, eq } from 'drizzle-orm';
import type { U2fView } from '../../queries/read-model.js';
import type { Db } from '../database.js';
import { u2fTokens, type U2fRow } from '../schema.js';
import { sql, toDate, type SqlRunner } from '../sql.js';

export async function findU2f(db: Db, id: string): Promise<U2fRow | undefined> {
  const [row] = await db.select().from(u2fTokens).where(eq(u2fTokens.id, id)).limit(1);
  return row;
}

/** The ready token holding this credential id (the login's "whose key is this?"). */
export async function findReadyU2fByCredentialId(db: Db, credentialId: string): Promise<{ id: string; userId: string } | undefined> {
  const [row] = await db
    .select({ id: u2fTokens.id, userId: u2fTokens.userId })
    .from(u2fTokens)
    .where(and(eq(u2fTokens.credentialId, credentialId), eq(u2fTokens.state, 'ready')))
    .limit(1);
  return row;
}

/** All of the user's tokens, pending and ready, oldest first. */
export function listU2fOfUser(db: Db, userId: string): Promise<U2fRow[]> {
  return db
    .select()
    .from(u2fTokens)
    .where(eq(u2fTokens.userId, userId))
    .orderBy(asc(u2fTokens.createdAt), asc(u2fTokens.id));
}

/**
 * The user's tokens as the read model answers them (U2fView): every one, pending and ready, oldest first.
 * Hot path (the password step of every login: which keys to ask for): plain SQL, see ../sql.ts.
 */
export async function listU2fViewsOfUser(db: SqlRunner, userId: string): Promise<U2fView[]> {
  const rows = await db.query<U2fView>(sql`
    select id, user_id as "userId", org_id as "orgId", state, rp_id as "rpId", credential_id as "credentialId", expires_at as "expiresAt",
      name, format, aaguid, transports, created_at as "createdAt"
    from u2f_tokens where user_id = ${userId} order by created_at, id`);
  return rows.map((r) => ({ ...r, expiresAt: toDate(r.expiresAt), createdAt: toDate(r.createdAt) }));
}

/** Credential ids (base64url) of the user's ready tokens for one RP ID — WebAuthn's excludeCredentials. */
export async function verifiedCredentialIdsOfUser(db: Db, userId: string, rpId: string): Promise<string[]> {
  const rows = await db
    .select({ credentialId: u2fTokens.credentialId })
    .from(u2fTokens)
    .where(and(eq(u2fTokens.userId, userId), eq(u2fTokens.rpId, rpId), eq(u2fTokens.state, 'ready')))
    .orderBy(asc(u2fTokens.createdAt));
  return rows.flatMap((r) => (r.credentialId === null ? [] : [r.credentialId]));
}

/**
 * Deletes read-model rows of registrations that expired before `expiredBefore`
 * and were never verified, at most `limit` per call; returns how many. Their
 * events stay: VerifyU2FRegistration loads those and still answers
 * U2F_REGISTRATION_EXPIRED. (No index serves `expires_at` here: a scan of
 * u2f_tokens, run by the housekeeping every few minutes, not per request.)
 */
export async function deleteExpiredRegistrations(db: SqlRunner, expiredBefore: Date, limit: number): Promise<number> {
  const [row] = await db.query<{ n: number }>(sql`
    with gone as (
      delete from u2f_tokens where id in (
        select id from u2f_tokens where state = 'pending' and expires_at < ${expiredBefore.toISOString()}::timestamptz limit ${limit} for update skip locked
      ) and state = 'pending'
      returning 1
    )
    select count(*)::int as n from gone`);
  return Number(row?.n ?? 0);
}

/** How many registrations deleteExpiredRegistrations would delete, at most `limit` (the housekeeping sweep's backlog). */
export async function countExpiredRegistrations(db: SqlRunner, expiredBefore: Date, limit: number): Promise<number> {
  const [row] = await db.query<{ n: number }>(sql`
    select count(*)::int as n from (
      select 1 from u2f_tokens where state = 'pending' and expires_at < ${expiredBefore.toISOString()}::timestamptz limit ${limit}
    ) expired`);
  return Number(row?.n ?? 0);
}

/** How many ready keys each RP id holds (the start-up check of keys under RP ids no longer configured). */
export async function readyKeysByRpId(db: SqlRunner): Promise<Array<{ rpId: string; keys: number }>> {
  const rows = await db.query<{ rpId: string; keys: number | string }>(sql`
    select rp_id as "rpId", count(*) as keys from u2f_tokens where state = 'ready' group by rp_id order by rp_id`);
  return rows.map((r) => ({ rpId: r.rpId, keys: Number(r.keys) }));
}
