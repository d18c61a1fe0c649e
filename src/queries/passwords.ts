// The login's two reads: which user a login name names, and whether
// a password is that user's. Not caller-authorized queries: the OpenID
// Provider's login calls them before anyone is authenticated. They never
// return a hash, and they do not throttle (the login does, per account and IP).
import { verifyPasswordHash } from '../domain/identity/passwords.js';
import { checkPassword, type PasswordCheck } from '../domain/identity/password-check.js';

export { checkPassword, type PasswordCheck } from '../domain/identity/password-check.js';
import type { PasswordFacts, ReadModel, UserView } from './read-model.js';

/** Longest login name looked up (a username is at most 200 characters; a longer one names nobody). */
const MAX_LOGIN_NAME = 400;

export type LoginUser =
  | { found: 'one'; user: UserView }
  /** Several users hold this username (rows that collided before usernames became unique across orgs): ask for the org scope. */
  | { found: 'several' }
  | { found: 'none' };

/**
 * The user a login name names: the username in any spelling with the same key
 * (case, width, NFC). With `orgId` (the scope `urn:keyhold:iam:org:id:{orgId}`)
 * only that org's user; without, the one user of the instance with it.
 */
export async function loginUser(read: Pick<ReadModel, 'usersByLoginName'>, loginName: string, orgId?: string): Promise<LoginUser> {
  if (typeof loginName !== 'string' || loginName.trim() === '' || loginName.length > MAX_LOGIN_NAME) return { found: 'none' };
  const rows = await read.usersByLoginName(loginName, orgId || undefined, 2);
  if (rows.length === 0) return { found: 'none' };
  if (rows.length > 1) return { found: 'several' };
  return { found: 'one', user: rows[0]! };
}


export async function verifyPassword(read: Pick<ReadModel, 'passwordOf'>, userId: string, password: string): Promise<PasswordCheck> {
  if (typeof userId !== 'string' || userId.length === 0 || userId.length > 64) {
    await verifyPasswordHash(null, password);
    return { result: 'wrong' };
  }
  return checkPassword(await read.passwordOf(userId), password);
}

