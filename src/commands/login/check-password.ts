// THE password check of the login: throttle (the attempt is reserved in its
// guessing budgets: domain/identity/guess-buckets.ts) → verify → record (a
// wrong password is an event of the user) → lockout (the user decider locks
// the user whose failure reaches the org's policy). One command, in this
// order, on purpose: see the re-read under a lockout policy below.
import type { Commands } from '../index.js';
import { accountOf, passwordBuckets, type GuessClient } from '../../domain/identity/guess-buckets.js';
import { checkPassword as verify, type PasswordCheck } from '../../domain/identity/password-check.js';
import type { GuessBudgets, Lookups, PasswordFacts } from '../ports.js';
import { recordEngaged, spend } from './guesses.js';

/** Why a password step failed, for the operator: the `reason` label of a failed login (metrics.ts). */
export const LOGIN_FAILURES = ['wrong_password', 'unknown_user', 'locked', 'inactive', 'no_password'] as const;
export type LoginFailure = (typeof LOGIN_FAILURES)[number];

export type PasswordVerdict =
  /** `secondFactorReady`: as the check read it (PasswordFacts); false lets the login skip reading the factors. */
  | { ok: true; changeRequired: boolean; secondFactorReady?: boolean }
  /** `lockedOut`: this wrong password reached the org's lockout policy and locked the account. */
  | { ok: false; reason: 'wrong' | 'locked' | 'lockedOut' | 'no-password'; retryAfterSeconds?: number };

/** One password try at the login. */
export interface PasswordAttempt {
  /** The user the typed name named; undefined: nobody (checked against a dummy hash all the same). */
  userId?: string;
  loginName: string;
  password: string;
  /** Who tries: its address, and its known-browser id for this user when it has one. */
  client: GuessClient;
  clientId: string;
}

export interface PasswordCheckDeps {
  read: Pick<Lookups, 'passwordOf' | 'maxPasswordAttemptsOf'>;
  commands: Pick<Commands, 'recordLogin' | 'recordOidc' | 'recordAnonymousThrottle'>;
  /** Every guess at the login is reserved here before it is checked (store/attempt-budgets.ts). */
  budgets: GuessBudgets;
  /** Each refused or failed try, for the operator (metrics.ts). */
  observer: { loginFailed(reason: LoginFailure): void; loginThrottled(): void };
}

const VERDICTS: Readonly<Record<Exclude<PasswordCheck['result'], 'ok'>, PasswordVerdict>> = {
  wrong: { ok: false, reason: 'wrong' },
  locked: { ok: false, reason: 'locked' },
  'no password': { ok: false, reason: 'no-password' },
};

/**
 * Why a password step failed, for the operator (metrics.ts): what the user
 * is not told apart — a name nobody holds, a locked or a deactivated account,
 * one without a password.
 */
function failureOf(check: Exclude<PasswordCheck['result'], 'ok'>, facts: PasswordFacts | undefined): LoginFailure {
  if (!facts) return 'unknown_user';
  if (check === 'locked') return facts.state === 'locked' ? 'locked' : 'inactive';
  if (check === 'no password') return 'no_password';
  return 'wrong_password';
}

export async function checkLoginPassword(deps: PasswordCheckDeps, { userId, loginName, password, client, clientId }: PasswordAttempt): Promise<PasswordVerdict> {
  const { read, commands, budgets, observer } = deps;
  const facts = userId ? await read.passwordOf(userId) : undefined;
  const user = facts ? userId : undefined;
  // Only a check that may lock (an active user with a password) counts against the lockout policy.
  const checked = facts?.state === 'active' && facts.passwordHash ? facts : undefined;
  const maxAttempts = checked ? await read.maxPasswordAttemptsOf(checked.orgId) : 0;
  // Reserved before any verification: a guess beyond the budget is not even tried.
  const lockout = user && maxAttempts > 0 ? { userId: user, maxAttempts } : undefined;
  const held = await budgets.reserve(passwordBuckets(accountOf(user, loginName), client, lockout));
  if (!held.ok) {
    observer.loginThrottled();
    return { ok: false, reason: 'wrong', retryAfterSeconds: held.waitSeconds };
  }
  let failure: LoginFailure | undefined;
  const { result: verdict, finished } = await spend(held, async (counts): Promise<PasswordVerdict> => {
    // Under a lockout policy the facts are read again now that the place is held: a failure that
    // locked the user was written before its place was given back, so this check sees the lock
    // (and compares nothing) — the policy's count of checks stays exact across processes.
    const checkedFacts = lockout ? await read.passwordOf(lockout.userId) : facts;
    const check = await verify(checkedFacts, password);
    counts(check.result === 'ok' ? 'success' : 'failure');
    if (check.result === 'ok') return { ok: true, changeRequired: check.changeRequired, secondFactorReady: checkedFacts?.secondFactorReady };
    failure = failureOf(check.result, checkedFacts);
    if (check.result !== 'wrong' || !user || !checked) return VERDICTS[check.result];
    // A wrong password is an event of the user (the audit trail; the lockout policy counts them),
    // recorded before the reservation is given back, so the policy's bucket never misses it.
    const { locked } = await commands.recordLogin({ userId: user, clientId, outcome: 'wrongPassword' });
    // The one that reaches the org's lockout policy locks the user: say so, so the user stops trying.
    return locked ? { ok: false, reason: 'lockedOut' } : VERDICTS.wrong;
  });
  if (failure) observer.loginFailed(failure);
  await recordEngaged(commands, finished, user, clientId, client.address);
  return verdict;
}
