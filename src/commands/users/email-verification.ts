// Address verification (ZITADEL user v2 SetEmail, ResendEmailCode,
// VerifyEmail; AddHumanUser and UpdateHumanUser with an address's
// verification) and the verification page's use of a code.
//
// Who may: the user itself (its own address: a new one, a new code, the code
// typed back), or user.write in the user's org under containment. Marking an
// address verified without its code (isVerified) is an administrator's word
// only: never the user's own, whatever roles it holds (ZITADEL
// CVE-2026-27946 was users verifying their own addresses). A change of
// address makes it unverified and retires the code sent to the old one (the
// email decider). The code is returned to the composition, which mails or
// answers it; it is stored only as a hash.
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { emailCodeBuckets } from '../../domain/identity/guess-buckets.js';
import { emailRule, requiredId } from '../../domain/identity/text-rules.js';
import { emailDecider, EMAIL_CODE_LIFETIME_MS, generateEmailCode, hashEmailCode, mailLimitError, mailWaitMs, normalizeEmailCode, type EmailDelivery } from '../../domain/user/email-verification.js';
import { userDecider } from '../../domain/user/decider.js';
import { visibleUser } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports, UserFacts } from '../ports.js';
import { spend } from '../login/guesses.js';
import { runCommand, stateNow } from '../run.js';
import { written, type Written } from '../written.js';
import { userForWrite } from './user-lifecycle.js';

/** How an address set or kept is to be verified: a code mailed or answered, the administrator's word, or not now. */
export type EmailVerification = { kind: 'send' } | { kind: 'return' } | { kind: 'verified'; by?: 'administrator' | 'provider' } | undefined;

export interface EmailAnswer {
  /** Only for `return`: the code, shown once. */
  code?: string;
  user: UserFacts;
  written: Written;
}

/** The user, if the caller may change its address: itself, or user.write under containment. */
async function addressOwner(ports: Ports, { caller }: Call, userId: string, verification: EmailVerification): Promise<UserFacts> {
  const violations = requiredId('userId', userId);
  if (violations.length) throw invalidRequest(violations);
  if (userId === caller.userId) {
    await visibleUser(ports.lookups, caller, userId);
    if (verification?.kind === 'verified') throw new KeyholdError('EMAIL_SELF_VERIFICATION', { userId });
  } else {
    await userForWrite(ports, caller, userId);
  }
  const user = await ports.lookups.userFacts(userId);
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId });
  if (user.kind !== 'human') throw new KeyholdError('USER_NOT_HUMAN', { userId });
  return user;
}

/** A new code for the user's current address, or the administrator's word for it. */
async function verifyNext(ports: Ports, user: UserFacts, email: string, verification: Exclude<EmailVerification, undefined>, actor: string): Promise<{ code?: string; events: Awaited<ReturnType<typeof runCommand>> }> {
  if (verification.kind === 'verified') {
    return { events: await runCommand(ports.events, { type: 'user', id: user.id }, emailDecider(user.id), { kind: 'markVerified', email, actor, ...(verification.by ? { by: verification.by } : {}) }) };
  }
  const code = generateEmailCode();
  const delivery: EmailDelivery = verification.kind === 'send' ? 'mail' : 'returned';
  const events = await runCommand(ports.events, { type: 'user', id: user.id }, emailDecider(user.id), {
    kind: 'issue',
    email,
    codeHash: hashEmailCode(user.id, email, code),
    expiresAt: ports.clock.now() + EMAIL_CODE_LIFETIME_MS,
    delivery,
    actor,
  });
  return { code, events };
}

/**
 * SetEmail: the address set (unverified when it is another one) and its
 * verification started. `ready`: the composition's precondition (mail
 * configured), checked once the caller may ask and before anything is written.
 */
export async function setEmail(ports: Ports, call: Call, input: { userId: string; email: string; verification: EmailVerification; ready?: () => void }): Promise<EmailAnswer> {
  const violations = [...requiredId('userId', input.userId), ...emailRule('email', input.email)];
  if (violations.length) throw invalidRequest(violations);
  const user = await addressOwner(ports, call, input.userId, input.verification);
  if (input.verification?.kind === 'send') input.ready?.();
  const email = input.email.trim();
  // Over the mail limit: refused before the address changes (the issue below decides it again, atomically).
  if (input.verification?.kind === 'send') {
    const wait = mailWaitMs(await stateNow(ports.events, { type: 'user', id: user.id }, emailDecider(user.id)), ports.clock.now());
    if (wait > 0) throw mailLimitError(user.id, wait);
  }
  const all = [];
  if (email !== (user.email ?? '')) {
    all.push(
      ...(await runCommand(ports.events, { type: 'user', id: user.id }, userDecider(user.id), {
        kind: 'updateHuman',
        username: user.username,
        givenName: user.givenName ?? '',
        familyName: user.familyName ?? '',
        displayName: user.displayName ?? '',
        email,
        actor: call.caller.userId,
      })),
    );
  }
  let code: string | undefined;
  if (input.verification) {
    const next = await verifyNext(ports, user, email, input.verification, call.caller.userId);
    code = next.code;
    all.push(...next.events);
  }
  const fresh = (await ports.lookups.userFacts(user.id)) ?? { ...user, email };
  return { ...(code ? { code } : {}), user: fresh, written: written(all, user.id) };
}

/** ResendEmailCode: a new code for the address the user holds now (the earlier code stops working). */
export async function resendEmailCode(ports: Ports, call: Call, input: { userId: string; verification: { kind: 'send' } | { kind: 'return' }; ready?: () => void }): Promise<EmailAnswer> {
  const user = await addressOwner(ports, call, input.userId, input.verification);
  if (!user.email) throw new KeyholdError('EMAIL_CHANGED', { userId: user.id });
  if (input.verification.kind === 'send') input.ready?.();
  const next = await verifyNext(ports, user, user.email, input.verification, call.caller.userId);
  return { code: next.code, user, written: written(next.events, user.id) };
}

/** Where a typed code comes from (its attempt budget's client): a browser's address, or an API caller. */
export type EmailCodeClient = { address: string } | { callerId: string };

export type EmailCodeUse = { ok: true; written: Written } | { ok: false; reason: 'EMAIL_CODE_WRONG' | 'EMAIL_CODE_SLOW_DOWN'; retryAfterSeconds?: number };

/**
 * A typed code: reserved in its budgets first (a guess beyond them is not even
 * tried), then checked and — when right — the address verified in one append.
 * Of concurrent uses exactly one is `ok`.
 */
export async function useEmailCode(ports: Ports, input: { userId: string; code: string; actor: string }, client: EmailCodeClient): Promise<EmailCodeUse> {
  if (!normalizeEmailCode(input.code)) return { ok: false, reason: 'EMAIL_CODE_WRONG' };
  const held = await ports.invite().budgets.reserve(emailCodeBuckets(input.userId, client));
  if (!held.ok) return { ok: false, reason: 'EMAIL_CODE_SLOW_DOWN', retryAfterSeconds: held.waitSeconds };
  const { result } = await spend(held, async (counts): Promise<EmailCodeUse> => {
    let events;
    try {
      events = await runCommand(ports.events, { type: 'user', id: input.userId }, emailDecider(input.userId), { kind: 'verify', typed: input.code, now: ports.clock.now(), actor: input.actor });
    } catch (e) {
      // An unknown, machine or inactive user is a wrong code to whoever tries (it counts): no account is told apart.
      if (e instanceof KeyholdError && (e.reason === 'USER_NOT_FOUND' || e.reason === 'USER_NOT_HUMAN' || e.reason === 'USER_NOT_ACTIVE')) {
        counts('failure');
        return { ok: false, reason: 'EMAIL_CODE_WRONG' };
      }
      throw e;
    }
    const verified = events.some((e) => e.type === 'user.email.verified');
    counts(verified ? 'success' : 'failure');
    return verified ? { ok: true, written: written(events, input.userId) } : { ok: false, reason: 'EMAIL_CODE_WRONG' };
  });
  return result;
}

/** VerifyEmail: the user itself, or user.write under containment (a login UI of the caller's own), types the code back. */
export async function verifyEmail(ports: Ports, call: Call, input: { userId: string; verificationCode: string }): Promise<{ written: Written }> {
  await addressOwner(ports, call, input.userId, undefined);
  const used = await useEmailCode(ports, { userId: input.userId, code: input.verificationCode, actor: call.caller.userId }, { callerId: call.caller.userId });
  if (!used.ok) throw new KeyholdError(used.reason, { userId: input.userId, ...(used.retryAfterSeconds ? { seconds: String(used.retryAfterSeconds) } : {}) });
  return { written: used.written };
}
