// What every guess at the login shares (a password, a recovery code): it is
// reserved in its guessing budgets before it is checked (domain/identity/
// guess-buckets.ts), and its place is given back with how it ended.
import type { Commands } from '../index.js';
import { BUCKETS, FIRST_DELAY_SECONDS, type AttemptOutcome } from '../../domain/identity/attempt-budget.js';
import type { FinishedBucket, Reservation } from '../ports.js';

/**
 * Runs a reserved attempt and gives its place back with its outcome — also
 * when something after the check fails (it was tried: it counts), and as
 * `none` when the check itself never ran.
 */
export async function spend<T>(held: Reservation, attempt: (counts: (outcome: AttemptOutcome) => void) => Promise<T>): Promise<{ result: T; finished: FinishedBucket[] }> {
  let outcome: AttemptOutcome = 'none';
  try {
    const result = await attempt((o) => (outcome = o));
    return { result, finished: await held.finish(outcome) };
  } catch (err) {
    await held.finish(outcome).catch(() => {});
    throw err;
  }
}

/** The budgets whose failures just reached their free allowance (each once per streak: the increments are atomic). */
const engaged = (finished: readonly FinishedBucket[]) => finished.filter((b) => b.failures === BUCKETS[b.kind].free).map((b) => b.kind);

/** The failure that engages a budget's delays is an event (once per streak, never the password): the user's, or the instance's for a name nobody holds. */
export async function recordEngaged(
  commands: Pick<Commands, 'recordOidc' | 'recordAnonymousThrottle'>,
  finished: readonly FinishedBucket[],
  userId: string | undefined,
  clientId: string,
  clientIp: string,
): Promise<void> {
  for (const kind of engaged(finished)) {
    const by = kind === 'password.address' ? 'ip' : 'account';
    if (userId) {
      await commands.recordOidc(userId, { type: 'user.login.throttled', payload: { clientId, by, ...(by === 'ip' ? { clientIp } : {}), waitSeconds: FIRST_DELAY_SECONDS } });
    } else if (by === 'ip') {
      await commands.recordAnonymousThrottle({ clientId, clientIp, waitSeconds: FIRST_DELAY_SECONDS });
    }
  }
}
