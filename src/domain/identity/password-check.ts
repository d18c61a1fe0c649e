// Whether a password is the user's, from facts already read: the same time
// whatever the facts (an unknown user, a locked one or one without a password
// is checked against a dummy hash all the same), so the answer's timing does
// not tell them apart.
import { verifyPasswordHash } from './passwords.js';

/** What the check needs of a user (the read port's PasswordFacts has these and more). */
export interface PasswordCheckFacts {
  orgId: string;
  passwordHash: string | null;
  changeRequired: boolean;
  state: 'active' | 'inactive' | 'locked';
}

/**
 * `ok`: the password is the user's (`changeRequired`: send the user to the
 * password change before going on). `wrong`: it is not, or there is no such
 * user. `no password`: the user exists but has none set (machine users never
 * have one). `locked`: the user is locked or deactivated (LockUser,
 * DeactivateUser) — whatever the password: it is not even compared, so the
 * answer says nothing about it.
 *
 * Every answer but a malformed input costs one argon2id verification, against
 * a dummy hash when there is nothing to verify against, so the time taken does
 * not tell whether the user exists, has a password or is locked.
 */
export type PasswordCheck = { result: 'ok'; changeRequired: boolean; orgId: string } | { result: 'wrong' } | { result: 'no password' } | { result: 'locked' };

/** verifyPassword on facts already read (the login reads them once for its budgets too). */
export async function checkPassword(facts: PasswordCheckFacts | undefined, password: string): Promise<PasswordCheck> {
  const active = facts?.state === 'active';
  const ok = await verifyPasswordHash(active ? facts.passwordHash : null, password);
  if (!facts) return { result: 'wrong' };
  if (!active) return { result: 'locked' };
  if (!facts.passwordHash) return { result: 'no password' };
  if (!ok) return { result: 'wrong' };
  return { result: 'ok', changeRequired: facts.changeRequired, orgId: facts.orgId };
}
