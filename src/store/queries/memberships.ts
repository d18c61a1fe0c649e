import { eq } from 'drizzle-orm';
import type { Db } from '../database.js';
import { memberships, type MembershipRow } from '../schema.js';

/** Every scope (instance, org, project) in which the user holds roles. */
export function membershipsOfUser(db: Db, userId: string): Promise<MembershipRow[]> {
  return db.select().from(memberships).where(eq(memberships.userId, userId));
}
