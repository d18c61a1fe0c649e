// The guessing budgets' pure rules (src/domain/identity/attempt-budget.ts).
import { describe, expect, it } from 'vitest';
import {
  BUCKETS,
  current,
  decideAll,
  decideCounted,
  decideLockout,
  EMPTY_BUCKET,
  FIRST_DELAY_SECONDS,
  IN_FLIGHT_WAIT_SECONDS,
  MAX_DELAY_SECONDS,
  RESERVATION_SECONDS,
  waitSeconds,
  WINDOW_SECONDS,
  type BucketState,
} from '../../../src/domain/identity/attempt-budget.js';
import { userDecider, type UserState } from '../../../src/domain/user/decider.js';
import { failureStreak } from '../../../src/domain/user/failure-streak.js';

const NOW = 10_000_000_000;
const FREE = BUCKETS['password.account.client'].free;
const bucket = (b: Partial<BucketState>): BucketState => ({ ...EMPTY_BUCKET, ...b });

describe('delays', () => {
  it('free up to the allowance, then doubling from the first delay, capped; counted from the last failure', () => {
    expect(waitSeconds(FREE - 1, FREE, NOW, NOW)).toBe(0);
    expect(waitSeconds(FREE, FREE, NOW, NOW)).toBe(FIRST_DELAY_SECONDS);
    expect(waitSeconds(FREE + 2, FREE, NOW, NOW)).toBe(FIRST_DELAY_SECONDS * 4);
    expect(waitSeconds(FREE + 40, FREE, NOW, NOW)).toBe(MAX_DELAY_SECONDS);
    expect(waitSeconds(FREE, FREE, NOW, NOW + FIRST_DELAY_SECONDS * 1000)).toBe(0);
  });
});

describe('a counted bucket', () => {
  it('takes attempts while failures and attempts in flight stay below the free allowance', () => {
    let state = EMPTY_BUCKET;
    for (let i = 0; i < FREE; i++) {
      const d = decideCounted('password.account.client', state, NOW);
      expect(d.allowed).toBe(true);
      if (d.allowed) state = d.next;
    }
    expect(state.inFlight).toBe(FREE);
    expect(decideCounted('password.account.client', state, NOW)).toEqual({ allowed: false, waitSeconds: IN_FLIGHT_WAIT_SECONDS });
    expect(decideCounted('password.account.client', bucket({ failures: 2, lastFailureAt: NOW, inFlight: 3, inFlightUntil: NOW + 1000 }), NOW).allowed).toBe(false);
  });

  it('beyond it: one at a time, once the delay has passed', () => {
    const spent = bucket({ failures: FREE, lastFailureAt: NOW });
    expect(decideCounted('password.account.client', spent, NOW + 1000)).toEqual({ allowed: false, waitSeconds: FIRST_DELAY_SECONDS - 1 });
    const after = decideCounted('password.account.client', spent, NOW + FIRST_DELAY_SECONDS * 1000);
    expect(after.allowed).toBe(true);
    if (after.allowed) expect(decideCounted('password.account.client', after.next, NOW + FIRST_DELAY_SECONDS * 1000)).toEqual({ allowed: false, waitSeconds: IN_FLIGHT_WAIT_SECONDS });
  });

  it('forgets a streak after the window, and reservations past their time (a new epoch, so their late finish releases nobody)', () => {
    expect(current(bucket({ failures: 9, lastFailureAt: NOW }), NOW + WINDOW_SECONDS * 1000 + 1)).toMatchObject({ failures: 0, lastFailureAt: null });
    expect(current(bucket({ inFlight: 2, inFlightUntil: NOW, epoch: 4 }), NOW)).toMatchObject({ inFlight: 0, inFlightUntil: null, epoch: 5 });
    expect(current(bucket({ inFlight: 2, inFlightUntil: NOW + 1, epoch: 4 }), NOW)).toMatchObject({ inFlight: 2, epoch: 4 });
    const held = decideCounted('password.address', EMPTY_BUCKET, NOW);
    expect(held.allowed && held.next.inFlightUntil).toBe(NOW + RESERVATION_SECONDS * 1000);
  });

  it('only buckets of the account are cleared by a success (an address, a user code: never)', () => {
    expect(Object.entries(BUCKETS).filter(([, b]) => b.clearedBySuccess).map(([k]) => k)).toEqual([
      'password.account.client',
      'password.account',
      'recovery.account.client',
      'totp.account.client',
    ]);
  });
});

describe('the lockout policy', () => {
  it('at most max − recorded failures checks in flight; at least one (a policy lowered below the count)', () => {
    const inFlight = (n: number) => bucket({ inFlight: n, inFlightUntil: NOW + 1000 });
    expect(decideLockout(3, 0, inFlight(2), NOW).allowed).toBe(true);
    expect(decideLockout(3, 0, inFlight(3), NOW).allowed).toBe(false);
    expect(decideLockout(3, 2, inFlight(0), NOW).allowed).toBe(true);
    expect(decideLockout(3, 2, inFlight(1), NOW)).toEqual({ allowed: false, waitSeconds: IN_FLIGHT_WAIT_SECONDS });
    expect(decideLockout(3, 7, inFlight(0), NOW).allowed).toBe(true);
  });

  it("the lockout budget's window of the newest n events counts min(n, the user decider's failedPasswordAttempts), for any history", () => {
    const types = ['user.password.check.failed', 'user.login.succeeded', 'user.unlocked'] as const;
    const decider = userDecider('u');
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 200; n++) {
      const history = Array.from({ length: Math.floor(random() * 12) }, () => types[Math.floor(random() * (random() < 0.7 ? 1 : 3))]!);
      const folded = history.reduce<UserState>((s, type) => decider.evolve(s, { type, payload: {} } as never), decider.initialState());
      for (const w of [1, 2, 3, 5, 12]) expect(failureStreak(history.slice(-w))).toBe(Math.min(w, folded.failedPasswordAttempts));
    }
  });
});

describe('several buckets', () => {
  it('all or none: the longest wait among those that refuse', () => {
    const ok = decideCounted('password.address', EMPTY_BUCKET, NOW);
    const slow = decideCounted('password.account.client', bucket({ failures: FREE + 1, lastFailureAt: NOW }), NOW);
    const busy = decideLockout(1, 0, bucket({ inFlight: 1, inFlightUntil: NOW + 1000 }), NOW);
    expect(decideAll([ok, slow, busy])).toEqual({ allowed: false, waitSeconds: FIRST_DELAY_SECONDS * 2 });
    expect(decideAll([ok, ok]).allowed).toBe(true);
  });
});
