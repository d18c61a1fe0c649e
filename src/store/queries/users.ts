import { and, eq, getTableColumns } from 'drizzle-orm';
import { usernameKey } from '../../domain/identity/identifiers.js';
import type { Db } from '../database.js';
import { users, type UserRow } from '../schema.js';
import { sql, withDates, type SqlRunner } from '../sql.js';

// Every column but the password's: what finders other than findPasswordOf select.
const { passwordHash: _hash, passwordChangeRequired: _changeRequired, ...publicColumns } = getTableColumns(users);
export const userColumns = publicColumns;

/** The public columns (userColumns) as plain SQL selects them, named as UserRow names them. */
const USER_SELECT = `select id, org_id as "orgId", kind, username, username_key as "usernameKey", login_name_key as "loginNameKey", given_name as "givenName", family_name as "familyName",
      display_name as "displayName", email, email_verified as "emailVerified", name, description, state, created_at as "createdAt",
      changed_at as "changedAt", sequence,
      coalesce((select o.state = 'active' from orgs o where o.id = users.org_id), false) as "orgActive"
    from users`;
const USER_BY_ID = `${USER_SELECT} where id = $1`;
const USERS_BY_KEY = `${USER_SELECT} where username_key = $1 order by created_at, id limit $2`;
const USERS_BY_KEY_IN_ORG = `${USER_SELECT} where username_key = $1 and org_id = $3 order by created_at, id limit $2`;

/** The ids of the org's users, oldest first (RemoveOrg, DeactivateOrg: the first refused is named). */
export async function userIdsOfOrg(db: Db, orgId: string): Promise<string[]> {
  return (await db.select({ id: users.id }).from(users).where(eq(users.orgId, orgId)).orderBy(users.createdAt, users.id)).map((r) => r.id);
}

/** Hot path (every VerifyU2FRegistration): plain SQL, see ../sql.ts. */
export async function findUser(db: SqlRunner, id: string): Promise<(UserRow & { orgActive: boolean }) | undefined> {
  const [row] = await db.query<UserRow & { orgActive: boolean }>({ text: USER_BY_ID, params: [id] });
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
  secondFactorReady: boolean;
}

/**
 * A user of a deactivated org is reported inactive, as a deactivated user is: the password step
 * then answers as for one (no failed attempt recorded, no password change, no key enrolled).
 */
export async function findPasswordOf(db: SqlRunner, userId: string): Promise<PasswordRow | undefined> {
  const [row] = await db.query<PasswordRow>(sql`
    select id as "userId", org_id as "orgId", kind, password_hash as "passwordHash", password_change_required as "changeRequired",
      case when state = 'active' and not coalesce((select o.state = 'active' from orgs o where o.id = users.org_id), false) then 'inactive' else state end as state,
      exists (select 1 from u2f_tokens k where k.user_id = users.id and k.state = 'ready' and k.credential_id is not null)
        or exists (select 1 from user_totp t where t.user_id = users.id and t.state = 'ready') as "secondFactorReady"
    from users where id = ${userId}`);
  return row;
}

/**
 * The users whose username has this spelling's key — in `orgId` only when given —
 * at most `limit` (the login needs to tell one from several), oldest first.
 * Hot path (the username step of every login): plain SQL, see ../sql.ts.
 */
export async function findUsersByLoginName(db: SqlRunner, username: string, orgId: string | undefined, limit: number): Promise<UserRow[]> {
  const params = [usernameKey(username), limit];
  const rows = await db.query<UserRow>(orgId === undefined ? { text: USERS_BY_KEY, params } : { text: USERS_BY_KEY_IN_ORG, params: [...params, orgId] });
  return rows.map((r) => withDates(r)!);
}
