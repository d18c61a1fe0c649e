import { and, eq, sql as drizzleSql } from 'drizzle-orm';
import type { Db } from '../database.js';
import { users, type UserRow } from '../schema.js';
import { sql, withDates, type SqlRunner } from '../sql.js';

/** Hot path (every VerifyU2FRegistration): plain SQL, see ../sql.ts. */
export async function findUser(db: SqlRunner, id: string): Promise<UserRow | undefined> {
  const [row] = await db.query<UserRow>(sql`
    select id, org_id as "orgId", kind, username, given_name as "givenName", family_name as "familyName",
      display_name as "displayName", email, name, description, created_at as "createdAt",
      changed_at as "changedAt", sequence
    from users where id = ${id}`);
  return withDates(row);
}

/** Case-insensitive, like the `users_org_username_key` index it uses. */
export async function findUserByUsername(db: Db, orgId: string, username: string): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.orgId, orgId), drizzleSql`lower(${users.username}) = lower(${username})`))
    .limit(1);
  return row;
}
