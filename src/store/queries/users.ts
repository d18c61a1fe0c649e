import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../database.js';
import { users, type UserRow } from '../schema.js';

export async function findUser(db: Db, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

/** Case-insensitive, like the `users_org_username_key` index it uses. */
export async function findUserByUsername(db: Db, orgId: string, username: string): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.orgId, orgId), sql`lower(${users.username}) = lower(${username})`))
    .limit(1);
  return row;
}
