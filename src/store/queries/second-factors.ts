import type { U2fView } from '../../queries/read-model.js';
import { sql, toDate, type SqlRunner } from '../sql.js';

type Row = Omit<U2fView, 'id'> & { id: string | null; totpState: 'pending' | 'ready' | null };

/**
 * Every security key of the user (pending and ready, oldest first) and whether its authenticator app
 * is ready, in one statement: the password step of every login asks both (which second factor
 * follows). One row at least (the user's own), a row per key; user_totp holds one row per user.
 */
export async function secondFactorsOfUser(db: SqlRunner, userId: string): Promise<{ keys: U2fView[]; totpReady: boolean }> {
  const rows = await db.query<Row>(sql`
    select k.id, k.user_id as "userId", k.org_id as "orgId", k.state, k.rp_id as "rpId", k.credential_id as "credentialId",
      k.expires_at as "expiresAt", k.name, k.format, k.aaguid, k.transports, k.created_at as "createdAt", t.state as "totpState"
    from (select ${userId}::text as user_id) me
    left join u2f_tokens k on k.user_id = me.user_id
    left join user_totp t on t.user_id = me.user_id
    order by k.created_at, k.id`);
  const keys = rows.flatMap(({ totpState: _, ...k }) => (k.id === null ? [] : [{ ...k, id: k.id, expiresAt: toDate(k.expiresAt), createdAt: toDate(k.createdAt) } as U2fView]));
  return { keys, totpReady: rows[0]?.totpState === 'ready' };
}
