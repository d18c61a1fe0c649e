// PasswordReset (user v2, POST /v2/users/{userId}/password_reset): a reset
// link for a human user, mailed to its address or its code answered to the
// caller. Who may: user.credential.write in the user's org under credential
// containment, as SetPassword (whoever holds the code sets the password).
// The link is the login's "Forgot password?" link (domain/user/reset-link.ts):
// one store, one limit per user whoever asks, one page, used once, only while
// the address it went to is still the user's, and using it ends every session.
// The code records who had it made: at each use that caller must still be
// allowed to set the password (access.ts mayStillWriteCredential), so a code
// outlives no demotion of its maker and no promotion of its user.
// Order: the code is issued (the limit decides), then delivered (mailed by the
// composition), then the audit event appended. A refused issue or a mail the
// server refused leaves no event (the issued code counts toward the limit: it
// may have been half sent); a refused append (the user deactivated meanwhile)
// leaves a code the page refuses anyway.
import { randomBytes } from 'node:crypto';
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import { userDecider } from '../../domain/user/decider.js';
import { RESET_PER_WINDOW, RESET_TTL_SECONDS, RESET_WINDOW_SECONDS, resetCodeHash } from '../../domain/user/reset-link.js';
import type { Call } from '../../access/caller.js';
import type { Ports, UserFacts } from '../ports.js';
import { runCommand } from '../run.js';
import { humanCredentialTarget } from './credential-target.js';
import { written, type Written } from '../written.js';

export interface PasswordResetInput {
  userId: string;
  delivery: 'mail' | 'returned';
  /** The composition's own precondition (mail configured), checked once the caller may ask. */
  ready?: () => void;
  /** Sends the code on (the mail), after it is issued and before the event is appended. */
  deliver?: (issued: Omit<IssuedReset, 'written'>) => Promise<void>;
}

export interface IssuedReset {
  code: string;
  user: UserFacts & { email: string };
  expiresAt: Date;
  written: Written;
}

export async function requestPasswordReset(ports: Ports, { caller }: Call, input: PasswordResetInput): Promise<IssuedReset> {
  const user = await humanCredentialTarget(ports, caller, input.userId, 'PASSWORD_ONLY_FOR_HUMAN_USERS', input.ready);
  if (user.state !== 'active' || user.orgActive === false) throw new KeyholdError('USER_NOT_ACTIVE', { userId: user.id });
  const { email } = user;
  if (!email) throw new KeyholdError('PASSWORD_RESET_NO_EMAIL', { userId: user.id });
  if (!ports.emailCodes) throw new Error('the one-time code store is not part of these ports');
  const code = randomBytes(32).toString('base64url');
  const issued = await ports.emailCodes.issue({
    purpose: 'reset',
    codeHash: resetCodeHash(code),
    userId: user.id,
    email,
    ttlSeconds: RESET_TTL_SECONDS,
    perWindow: RESET_PER_WINDOW,
    windowSeconds: RESET_WINDOW_SECONDS,
    createdBy: caller.userId,
  });
  if (!issued) throw new KeyholdError('PASSWORD_RESET_LIMIT', { userId: user.id, limit: String(RESET_PER_WINDOW), minutes: String(RESET_WINDOW_SECONDS / 60) });
  const made = { code, user: { ...user, email }, expiresAt: new Date(ports.clock.now() + RESET_TTL_SECONDS * 1000) };
  await input.deliver?.(made);
  const events = await runCommand(ports.events, { type: 'user', id: user.id }, userDecider(user.id), { kind: 'requestPasswordReset', delivery: input.delivery, actor: caller.userId });
  return { ...made, written: written(events, user.id) };
}
