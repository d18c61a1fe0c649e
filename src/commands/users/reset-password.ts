// A forgotten password, set through the login's mailed link: the link's code
// was checked and used (store/email-codes.ts) before this runs, so the caller
// here is the code, not a signed-in user. The new password obeys the same
// rules as SetPassword's; the user's sessions and grants all end in the same
// append (user decider `resetPassword`), and nobody is signed in by it.
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { passwordRule } from '../../domain/identity/passwords.js';
import { userDecider } from '../../domain/user/decider.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';

/** The password rules for `userId`'s new password (its username among them): violations, or none. */
export async function resetPasswordViolations(ports: Ports, userId: string, password: string) {
  const facts = await ports.lookups.userFacts(userId);
  if (!facts || facts.kind !== 'human') throw new KeyholdError('USER_NOT_FOUND', { userId });
  return passwordRule('newPassword.password', password, facts.username);
}

/** `actor`: the administrator who had the link made (PasswordReset); absent: the user's own link from the login. */
export async function resetPassword(ports: Ports, input: { userId: string; password: string; actor?: string }): Promise<void> {
  const violations = await resetPasswordViolations(ports, input.userId, input.password);
  if (violations.length) throw invalidRequest(violations);
  const passwordHash = await ports.secrets.passwordHash(input.password);
  await runCommand(ports.events, { type: 'user', id: input.userId }, userDecider(input.userId), { kind: 'resetPassword', passwordHash, actor: input.actor ?? input.userId });
}
