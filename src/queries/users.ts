// GetUserByID, ListU2FTokens, GetMyUser.
import { userForCaller } from '../access/access.js';
import type { Call } from '../access/caller.js';
import { invalidRequest, KeyholdError } from '../domain/errors/keyhold-error.js';
import { requiredId } from '../domain/identity/text-rules.js';
import { pageOf, type Listed } from '../domain/lists.js';
import { shownState } from '../domain/u2f/decider.js';
import type { SentPage } from './lists.js';
import type { PasskeyView, ReadModel, U2fView, UserView } from './read-model.js';

export async function getUser(read: ReadModel, { caller }: Call, input: { userId: string }): Promise<UserView> {
  const violations = requiredId('userId', input.userId);
  if (violations.length) throw invalidRequest(violations);
  await userForCaller(read, caller, input.userId, 'user.read');
  const user = await read.user(input.userId);
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId: input.userId });
  return user;
}

/** A security key as listed: a pending registration past its expiry shows as expired. */
export type ListedU2f = U2fView & { shown: 'pending' | 'ready' | 'expired' };

export async function listU2fTokens(read: ReadModel, { caller }: Call, input: { userId: string; now: number; page?: SentPage }): Promise<Listed<ListedU2f>> {
  const violations = requiredId('userId', input.userId);
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCaller(read, caller, input.userId, 'user.read');
  // Without a query: oldest first, the order this list had before it had pages.
  const listed = await read.u2fTokensPage(user.id, input.page ? pageOf(input.page) : { ...pageOf(undefined), asc: true });
  return { ...listed, items: listed.items.map((t) => ({ ...t, shown: shownState(t.state, t.expiresAt, input.now) })) };
}

/** For a lost key: how many of the user's recovery codes are unused (who may list the user's keys may see it). */
export async function unusedRecoveryCodes(read: ReadModel, { caller }: Call, input: { userId: string }): Promise<number> {
  const violations = requiredId('userId', input.userId);
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCaller(read, caller, input.userId, 'user.read');
  return read.unusedRecoveryCodesOf(user.id);
}

/** The caller's own user and its roles ("ROLE" instance-wide, else "ROLE@<scope type>:<scope id>"). */
export async function myUser(read: ReadModel, { caller }: Call): Promise<{ user: UserView; roles: string[] }> {
  const user = await read.user(caller.userId);
  if (!user) throw new KeyholdError('UNAUTHENTICATED');
  const roles = caller.memberships.flatMap((m) => m.roles.map((r) => (m.scopeType === 'instance' ? r : `${r}@${m.scopeType}:${m.scopeId}`)));
  return { user, roles };
}

/** A passkey as listed: a pending registration past its expiry shows as expired. */
export type ListedPasskey = PasskeyView & { shown: 'pending' | 'ready' | 'expired' };

/** ListPasskeys: who may read the user (user.read in its org, or itself). */
export async function listPasskeys(read: ReadModel, { caller }: Call, input: { userId: string; now: number; page?: SentPage }): Promise<Listed<ListedPasskey>> {
  const violations = requiredId('userId', input.userId);
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCaller(read, caller, input.userId, 'user.read');
  const listed = await read.passkeysPage(user.id, input.page ? pageOf(input.page) : { ...pageOf(undefined), asc: true });
  return { ...listed, items: listed.items.map((k) => ({ ...k, shown: shownState(k.state, k.expiresAt, input.now) })) };
}
