// Recovery codes (for a lost key): GenerateRecoveryCodes, the set a
// user's first key brings (./../u2f/verify-u2f.ts), and a code typed at the
// login in place of a key (useRecoveryCode). The codes are shown once, in the
// answer that made them; only their hashes are written (domain/user/recovery-codes.ts).
//
// Self only: the codes are as good as a security key, so only the user sees
// them — nobody, not even an IAM_OWNER, can make (and so read) another
// user's codes. Another user that the caller can see is 403
// RECOVERY_CODES_SELF_ONLY; one it cannot see is 404 as everywhere.
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { generateRecoveryCodes as newCodes, hashRecoveryCode } from '../../domain/user/recovery-codes.js';
import { recoveryDecider, type RecoveryCommand } from '../../domain/user/recovery-decider.js';
import { visibleUser } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand, stateNow, target, type Target } from '../run.js';
import { written, type Written } from '../written.js';

/** A fresh set for `userId`: the codes to show once, and the command that stores their hashes. */
export function newRecoveryCodeSet(userId: string, actor: string): { codes: string[]; command: RecoveryCommand } {
  const codes = newCodes();
  return { codes, command: { kind: 'generate', codeHashes: codes.map((c) => hashRecoveryCode(userId, c)), actor } };
}

/**
 * The set a first strong factor brings (self only, and only when the user has
 * no other): counted against the user's events now, and generated in the
 * factor's own append only if no other set was generated meanwhile — so of
 * two first factors verified at once exactly one answers codes, and those work.
 * `codesOf(events)`: the codes to answer, given what the append wrote.
 */
export async function firstFactorCodes(
  ports: Pick<Ports, 'events'>,
  userId: string,
  actor: string,
  /** Counted before the strong factors were read (firstFactorGenerations); else counted now. */
  counted?: number,
): Promise<{ target: Target; codesOf: (events: readonly { type: string; aggregateId: string }[]) => string[] }> {
  const generations = counted ?? (await recoveryGenerations(ports, userId));
  const { codes, command } = newRecoveryCodeSet(userId, actor);
  return {
    target: recoveryCodesTarget(userId, { ...command, kind: 'generate', ifGenerations: generations } as RecoveryCommand),
    codesOf: (events) => (events.some((e) => e.type === 'user.recovery.codes.generated' && e.aggregateId === userId) ? codes : []),
  };
}

/**
 * The sets generated so far, counted BEFORE a first factor asks whether the user has another
 * strong factor: a factor committed in between is then seen by one of the two (its set in this
 * count, so the append refuses the second set; or its factor as ready, so no set is made).
 * Counted after, a factor committed between the two reads is in neither, and two sets are made.
 */
export async function firstFactorGenerations(ports: Pick<Ports, 'events'>, userId: string, callerId: string): Promise<number | undefined> {
  return userId === callerId ? recoveryGenerations(ports, userId) : undefined;
}

/** How many sets the user's events hold as generated: what a first factor's set is decided against in its append (ifGenerations). */
export async function recoveryGenerations(ports: Pick<Ports, 'events'>, userId: string): Promise<number> {
  return (await stateNow(ports.events, { type: 'user', id: userId }, recoveryDecider(userId))).generations;
}

/** The runner target that writes a new set for `userId` (for a command that writes it together with something else). */
export function recoveryCodesTarget(userId: string, command: RecoveryCommand): Target {
  return target({ type: 'user', id: userId }, recoveryDecider(userId), command);
}

export async function generateRecoveryCodes(ports: Ports, { caller }: Call, input: { userId: string }): Promise<{ codes: string[]; written: Written }> {
  const violations = requiredId('userId', input.userId);
  if (violations.length) throw invalidRequest(violations);
  const user = await visibleUser(ports.lookups, caller, input.userId);
  if (user.id !== caller.userId) throw new KeyholdError('RECOVERY_CODES_SELF_ONLY', { userId: user.id });
  const { codes, command } = newRecoveryCodeSet(user.id, caller.userId);
  const events = await runCommand(ports.events, { type: 'user', id: user.id }, recoveryDecider(user.id), command);
  return { codes, written: written(events, user.id) };
}

export interface UseRecoveryCodeInput {
  userId: string;
  /** The app the login is for (kept in the events). */
  clientId: string;
  /** What the user typed. */
  typed: string;
}

export type UseRecoveryCodeResult = { ok: true } | { ok: false; reason: 'RECOVERY_CODE_WRONG' | 'RECOVERY_CODE_MALFORMED' };

/**
 * The login's check of a typed code. Not caller-authorized: the OpenID
 * Provider's login runs it for the user who has just given the right password
 * (the actor). A right code is spent (user.recovery.code.used); a wrong or
 * spent one is recorded (user.recovery.code.check.failed) and refused.
 */
export async function useRecoveryCode(ports: Ports, input: UseRecoveryCodeInput): Promise<UseRecoveryCodeResult> {
  try {
    const events = await runCommand(ports.events, { type: 'user', id: input.userId }, recoveryDecider(input.userId), {
      kind: 'use',
      typed: input.typed,
      clientId: input.clientId,
      actor: input.userId,
    });
    return events.some((e) => e.type === 'user.recovery.code.used') ? { ok: true } : { ok: false, reason: 'RECOVERY_CODE_WRONG' };
  } catch (e) {
    if (e instanceof KeyholdError && e.reason === 'RECOVERY_CODE_MALFORMED') return { ok: false, reason: 'RECOVERY_CODE_MALFORMED' };
    throw e;
  }
}
