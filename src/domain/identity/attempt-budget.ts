// Guessing budgets: how many checks of a secret someone may have Keyhold run
// (a password, a recovery code, a device's user code), decided before the
// check runs. Pure rules; the store (src/store/attempt-budgets.ts) applies
// them to its rows under a row lock, so every process shares one budget.
//
// A bucket counts the consecutive failures of one key (an account and a
// client, a client address, …), when the last one was, and the attempts in
// flight — reserved and not yet finished. An attempt is allowed while
// failures and attempts in flight stay below the bucket's free allowance;
// beyond it one at a time, and only once the delay after the last failure has
// passed (it doubles per failure, capped). An attempt needs every bucket it
// names: all or none.
//
// The lockout policy (an org's maxPasswordAttempts) is a bucket of its own:
// its failures are the user's recorded wrong passwords (the user decider's
// count, read from the events), and at most max − failures checks may be in
// flight — so a burst cannot check more passwords than the policy allows.

/** The first delay beyond the free allowance (seconds), doubling per further failure; the longest; how long a streak is remembered after its last failure. */
export const FIRST_DELAY_SECONDS = 5;
export const MAX_DELAY_SECONDS = 900;
export const WINDOW_SECONDS = 3600;
/**
 * How long a reservation holds its place when its attempt never finishes (the
 * process died mid-check). A check takes milliseconds; this only bounds how
 * long a crash can hold a bucket.
 */
export const RESERVATION_SECONDS = 30;
/** The wait answered when the bucket is full of attempts still being checked (their outcome decides the next wait). */
export const IN_FLIGHT_WAIT_SECONDS = 1;

/**
 * Every bucket, its free allowance, and whether a success clears its streak.
 * A success clears only buckets of the account that succeeded: a client
 * address's streak must not be cleared by signing in to one's own account, nor
 * a user code's by entering a code one requested oneself.
 */
export const BUCKETS = {
  /** Wrong passwords for one account from one client (a known browser, else an address). */
  'password.account.client': { free: 5, clearedBySuccess: true },
  /** Wrong passwords for one account from every client that is not a known browser of it (guessing from many addresses). */
  'password.account': { free: 10, clearedBySuccess: true },
  /** Wrong passwords from one address, whatever the account (spraying). */
  'password.address': { free: 20, clearedBySuccess: false },
  /** Wrong recovery codes for one account from one client. */
  'recovery.account.client': { free: 5, clearedBySuccess: true },
  /** Wrong recovery codes from one address. */
  'recovery.address': { free: 20, clearedBySuccess: false },
  /** Wrong authenticator-app codes for one account from one client (after the right password). */
  'totp.account.client': { free: 5, clearedBySuccess: true },
  /**
   * Wrong authenticator-app codes for one account from every client together: a million codes
   * cannot be walked by changing addresses. Not cleared by a success: whoever guesses here knows
   * the password, and the user's own logins must not hand them a fresh allowance.
   */
  'totp.account': { free: 10, clearedBySuccess: false },
  /** Wrong authenticator-app codes from one address, whatever the account. */
  'totp.address': { free: 20, clearedBySuccess: false },
  /** Registrations from one address (each one counts, whatever its outcome: registration spam). */
  'register.address': { free: 5, clearedBySuccess: false },
  /** Wrong invitation codes for one user, from every client together (a code is 100 random bits: this only keeps the audit trail short). */
  'invite.user': { free: 10, clearedBySuccess: false },
  /** Wrong invitation codes from one address, whatever the user. */
  'invite.address': { free: 20, clearedBySuccess: false },
  /** Wrong address-verification codes for one user, from every client together (a code is 40 random bits: a few tries, then waits). */
  'email.user': { free: 5, clearedBySuccess: false },
  /** Wrong address-verification codes from one address (or API caller), whatever the user. */
  'email.address': { free: 20, clearedBySuccess: false },
  /** Unknown user codes typed in one browser session (the device sign-in page). */
  'usercode.session': { free: 5, clearedBySuccess: false },
  /** Unknown user codes typed from one address by browsers known to no account. */
  'usercode.address': { free: 20, clearedBySuccess: false },
  /** Unknown user codes typed by the browsers known to one account, all of them together (a new sign-in gives no new budget). */
  'usercode.known': { free: 5, clearedBySuccess: false },
} as const satisfies Record<string, { free: number; clearedBySuccess: boolean }>;

export type CountedBucket = keyof typeof BUCKETS;

/** A bucket an attempt asks for: a counted one by its key, or the lockout policy of a user. */
export type BucketRequest =
  | { kind: CountedBucket; key: string }
  | { kind: 'lockout'; userId: string; maxAttempts: number };

/** A bucket as stored (times in ms since the epoch). */
export interface BucketState {
  failures: number;
  lastFailureAt: number | null;
  inFlight: number;
  /** Until when the attempts in flight hold their places (RESERVATION_SECONDS after the latest). */
  inFlightUntil: number | null;
  /** Moves on when stale reservations are dropped: their late finish then releases nothing. */
  epoch: number;
}

export const EMPTY_BUCKET: BucketState = { failures: 0, lastFailureAt: null, inFlight: 0, inFlightUntil: null, epoch: 0 };

/** Seconds to wait before the next try after `failures` failures, the last at `last` (ms); 0 when free. */
export function waitSeconds(failures: number, free: number, last: number | null, now: number): number {
  if (failures < free || last === null) return 0;
  const delay = Math.min(MAX_DELAY_SECONDS, FIRST_DELAY_SECONDS * 2 ** (failures - free));
  return Math.max(0, Math.ceil((last + delay * 1000 - now) / 1000));
}

/** The bucket as it stands at `now`: a streak older than the window forgotten, reservations past their time dropped. */
export function current(state: BucketState, now: number): BucketState {
  const forgotten = state.lastFailureAt !== null && now - state.lastFailureAt > WINDOW_SECONDS * 1000;
  const stale = state.inFlight > 0 && (state.inFlightUntil === null || state.inFlightUntil <= now);
  return {
    failures: forgotten ? 0 : state.failures,
    lastFailureAt: forgotten ? null : state.lastFailureAt,
    inFlight: stale ? 0 : state.inFlight,
    inFlightUntil: stale ? null : state.inFlightUntil,
    epoch: stale ? state.epoch + 1 : state.epoch,
  };
}

export type BucketDecision = { allowed: true; next: BucketState } | { allowed: false; waitSeconds: number };

const reserveIn = (state: BucketState, now: number): BucketDecision => ({
  allowed: true,
  next: { ...state, inFlight: state.inFlight + 1, inFlightUntil: now + RESERVATION_SECONDS * 1000 },
});

/** One more attempt in a counted bucket, or the wait. */
export function decideCounted(kind: CountedBucket, stored: BucketState, now: number): BucketDecision {
  const state = current(stored, now);
  const { free } = BUCKETS[kind];
  if (state.failures + state.inFlight < free) return reserveIn(state, now);
  const wait = waitSeconds(state.failures, free, state.lastFailureAt, now);
  if (state.inFlight === 0 && wait === 0) return reserveIn(state, now);
  return { allowed: false, waitSeconds: Math.max(wait, IN_FLIGHT_WAIT_SECONDS) };
}

/**
 * One more check under a lockout policy of `maxAttempts` with `recordedFailures`
 * wrong passwords recorded: while fewer than max − failures are in flight (at
 * least one: a policy lowered below a user's count still lets the next check
 * run, whose failure then locks).
 */
export function decideLockout(maxAttempts: number, recordedFailures: number, stored: BucketState, now: number): BucketDecision {
  const state = current(stored, now);
  if (state.inFlight < Math.max(1, maxAttempts - recordedFailures)) return reserveIn(state, now);
  return { allowed: false, waitSeconds: IN_FLIGHT_WAIT_SECONDS };
}

/** What a reservation of several buckets comes to: every bucket's next state, or the longest wait among those that refused. */
export function decideAll(decisions: readonly BucketDecision[]): { allowed: true; next: BucketState[] } | { allowed: false; waitSeconds: number } {
  const refused = decisions.filter((d): d is Extract<BucketDecision, { allowed: false }> => !d.allowed);
  if (refused.length > 0) return { allowed: false, waitSeconds: Math.max(...refused.map((d) => d.waitSeconds)) };
  return { allowed: true, next: decisions.map((d) => (d as Extract<BucketDecision, { allowed: true }>).next) };
}

/** How an attempt ended: a wrong guess counts, a right one clears its account's streaks, `none` only gives the place back (nothing was tried). */
export type AttemptOutcome = 'failure' | 'success' | 'none';
