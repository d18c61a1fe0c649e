// A user's login sessions (the account page, ListUserSessions): device,
// address, created, last use and the apps each signed in to. The user itself
// may list its own; another caller needs user.read in the user's org (a user it
// does not see is 404, as everywhere).
import { authorize, visibleUser } from '../access/access.js';
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
