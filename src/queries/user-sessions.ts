// A user's login sessions (the account page, ListUserSessions): device,
// address, created, last use and the apps each signed in to. The user itself
// may list its own; another caller needs user.read in the user's org (a user it
// does not see is 404, as everywhere).
import { authorize, visibleUser } from '../access/access.js';
import { invalidRequest } from '../domain/errors/keyhold-error.js';
import { requiredId } from '../domain/identity/text-rules.js';
import { pageOf, type Listed } from '../domain/lists.js';
import type { SentPage } from './lists.js';
import type { Lookups, UserSessionView } from '../access/lookups.js';
import type { Caller } from '../access/caller.js';

export type { UserSessionView };

/** The signed-in user's own sessions, most recently used first (the caller is the user: no check to make). */
export function listUserSessions(lookups: Pick<Lookups, 'userSessions'>, userId: string): Promise<UserSessionView[]> {
  return lookups.userSessions(userId);
}

/** A user's sessions as `caller` may see them: its own, or with user.read in the user's org. */
export async function listUserSessionsFor(lookups: Pick<Lookups, 'userSessions' | 'ownerOfUser'>, caller: Caller, userId: string): Promise<UserSessionView[]> {
  if (userId !== caller.userId) {
    const user = await visibleUser(lookups, caller, userId);
    authorize(caller, 'user.read', { orgId: user.orgId });
  }
  return lookups.userSessions(userId);
}

/**
 * ListUserSessions: one page of the user's sessions as `caller` may see them,
 * most recently used first (asc: least recently used first). A user's sessions
 * are few (each browser that signed in, until it ends or expires), so the page
 * is cut from the whole list; they are written by the provider's adapter, not
 * by a projection, so there is no projection position to report (0).
 */
export async function listUserSessionsPage(
  lookups: Pick<Lookups, 'userSessions' | 'ownerOfUser'>,
  caller: Caller,
  input: { userId: string; page?: SentPage },
): Promise<Listed<UserSessionView>> {
  const violations = requiredId('userId', input.userId);
  if (violations.length) throw invalidRequest(violations);
  const all = await listUserSessionsFor(lookups, caller, input.userId);
  const page = pageOf(input.page);
  const ordered = page.asc ? [...all].reverse() : all;
  return { items: ordered.slice(page.offset, page.offset + page.limit), total: all.length, processedSequence: 0n, at: new Date() };
}
