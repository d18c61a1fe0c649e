// The failure streak the lockout policy counts: a wrong password adds one, a
// successful login or an unlock starts again. Folded here only: the user
// decider keeps it in its state (failedPasswordAttempts) to decide the lock,
// and the lockout budget (store/attempt-budgets.ts) folds the same events to
// know how many checks may still be in flight.

/** The user events that move the streak; no other event does. */
export const STREAK_EVENTS = ['user.password.check.failed', 'user.login.succeeded', 'user.unlocked'] as const;

/** The streak after one more event of the user. */
export function foldStreak(streak: number, type: string): number {
  if (type === 'user.password.check.failed') return streak + 1;
  return (STREAK_EVENTS as readonly string[]).includes(type) ? 0 : streak;
}

/** The streak of a history (oldest first); of its newest n events only, at most n. */
export const failureStreak = (typesOldestFirst: readonly string[]): number => typesOldestFirst.reduce(foldStreak, 0);
