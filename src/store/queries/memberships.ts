import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../database.js';
import { memberships, type MembershipRow } from '../schema.js';

/** Every scope (instance, org, project) in which the user holds roles. */
export function membershipsOfUser(db: Db, userId: string): Promise<MembershipRow[]> {
  return db.select().from(memberships).where(eq(memberships.userId, userId));
}

/** The users holding IAM_OWNER on the instance. */
export async function instanceOwnerIds(db: Db): Promise<string[]> {
  const rows = await db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.scopeType, 'instance'), sql`'IAM_OWNER' = any(${memberships.roles})`));
  return rows.map((r) => r.userId);
}
