// A user's login sessions as the user sees them (user_sessions, migration 0024):
// those not ended and not expired, most recently used first.
import type { UserSessionView } from '../../access/lookups.js';
import { sql, type SqlRunner } from '../sql.js';

/** At most this many sessions are listed (a user has a few; a runaway script should not make a page huge). */
export const USER_SESSIONS_LIMIT = 200;

const asDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));

export async function listUserSessions(db: SqlRunner, userId: string): Promise<UserSessionView[]> {
  const rows = await db.query<{ id: string; user_id: string; device: string; address: string; created_at: unknown; last_used_at: unknown; apps: unknown }>(sql`
    select id, user_id, device, address, created_at, last_used_at, apps from user_sessions
    where user_id = ${userId} and ended_at is null and (expires_at is null or expires_at > now())
    order by last_used_at desc, id limit ${USER_SESSIONS_LIMIT}`);
  return rows.map((r) => {
    const apps = (typeof r.apps === 'string' ? JSON.parse(r.apps) : r.apps) as Record<string, unknown>;
    return { id: r.id, userId: r.user_id, device: r.device, address: r.address, createdAt: asDate(r.created_at), lastUsedAt: asDate(r.last_used_at), clientIds: Object.keys(apps ?? {}).sort() };
  });
}
