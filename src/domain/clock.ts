// Time as the rules see it: injected, so tests and the bench decide what "now" is.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}
