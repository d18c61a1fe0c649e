// What the login reports for the operator (src/server/metrics.ts counts it):
// each finished, refused or throttled login and each second factor's outcome,
// by closed sets of labels — never a name, an id or an address.
import type { LoginFailure } from '../commands/login/check-password.js';

/** The second factors a login takes (shown from the start); a one-time code is named for when the login takes one. */
export const SECOND_FACTORS = ['security_key', 'recovery_code'] as const;
export type SecondFactorKind = (typeof SECOND_FACTORS)[number] | 'one_time_code';
export type SecondFactorOutcome = 'succeeded' | 'failed' | 'throttled';

export interface LoginObserver {
  /** A login finished: the user is signed in (after every factor asked). */
  loginSucceeded(): void;
  /** A password step was refused, by why (the user is told less: src/login/steps/password.ts). */
  loginFailed(reason: LoginFailure): void;
  /** A password try was refused unchecked: its guessing budget is spent (domain/identity/guess-buckets.ts). */
  loginThrottled(): void;
  secondFactor(kind: SecondFactorKind, outcome: SecondFactorOutcome): void;
}
