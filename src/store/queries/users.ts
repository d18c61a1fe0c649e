import { and, eq, getTableColumns } from 'drizzle-orm';
import { usernameKey } from '../../domain/identity/identifiers.js';
import type { Db } from '../database.js';
import { users, type UserRow } from '../schema.js';
import { sql, withDates, type SqlRunner } from '../sql.js';

// Every column but the password's: what finders other than findPasswordOf select.
const { passwordHash: _hash, passwordChangeRequired: _changeRequired, ...publicColumns } = getTableColumns(users);
export const userColumns = publicColumns;

/** Hot path (every VerifyU2FRegistration): plain SQL, see ../sql.ts. */
export async function findUser(db: SqlRunner, id: string): Promise<UserRow | undefined> {
  const [row] = await db.query<UserRow>(sql`
    select id, org_id as "orgId", kind, username, username_key as "usernameKey", given_name as "givenName", family_name as "familyName",
      display_name as "displayName", email, name, description, state, created_at as "createdAt",
      changed_at as "changedAt", sequence
    from users where id = ${id}`);
  return withDates(row);
}

/** By the username's key (any spelling of the name: case, NFC/NFD, width), on the `users_org_username_key` index. */
export async function findUserByUsername(db: Db, orgId: string, username: string): Promise<UserRow | undefined> {
  const [row] = await db
    .select(userColumns)
    .from(users)
    .where(and(eq(users.orgId, orgId), eq(users.usernameKey, usernameKey(username))))
    .limit(1);
  return row;
}

/** What the login's password check reads: the user's kind and org, and its password's hash. */
export interface PasswordRow {
  userId: string;
  orgId: string;
  kind: 'human' | 'machine';
  passwordHash: string | null;
  changeRequired: boolean;
  state: 'active' | 'inactive' | 'locked';
}

export async function findPasswordOf(db: SqlRunner, userId: string): Promise<PasswordRow | undefined> {
  const [row] = await db.query<PasswordRow>(sql`
    select id as "userId", org_id as "orgId", kind, password_hash as "passwordHash", password_change_required as "changeRequired", state
    from users where id = ${userId}`);
  return row;
}

/**
 * The users whose username has this spelling's key — in `orgId` only when given —
 * at most `limit` (the login needs to tell one from several), oldest first.
 */
export async function findUsersByLoginName(db: Db, username: string, orgId: string | undefined, limit: number): Promise<UserRow[]> {
  const key = eq(users.usernameKey, usernameKey(username));
  return db
    .select(userColumns)
    .from(users)
    .where(orgId === undefined ? key : and(key, eq(users.orgId, orgId)))
    .orderBy(users.createdAt, users.id)
    .limit(limit);
}
