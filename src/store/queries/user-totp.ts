// A user's authenticator app: which TOTP the user has and whether it is
// ready (the login asks before offering the code step). One primary-key read.
import { sql, type SqlRunner } from '../sql.js';

/** The user's TOTP (its id and state), or undefined when there is none. */
export async function findUserTotp(db: SqlRunner, userId: string): Promise<{ totpId: string; state: 'pending' | 'ready' } | undefined> {
  const [row] = await db.query<{ totp_id: string; state: 'pending' | 'ready' }>(sql`select totp_id, state from user_totp where user_id = ${userId}`);
  return row ? { totpId: row.totp_id, state: row.state } : undefined;
}
