// RFC 8628 §3.5: how fast a device may poll the token endpoint for a pending
// device code. Pure: the store (oidc-store.ts recordDevicePoll) keeps the
// state per device code and applies this rule atomically.

/** What is remembered about a device code's polls. */
export interface DevicePollState {
  /** When it was last polled (ms since the epoch). */
  lastPollMs: number;
  /** The interval in force for it (seconds): the configured one, plus 5 for each slow_down. */
  intervalSeconds: number;
}

/** RFC 8628 §3.5: each slow_down adds 5 seconds to the interval, for that and every later poll. */
export const SLOW_DOWN_STEP_SECONDS = 5;

/**
 * A poll counts as too soon below this share of the interval: request latency
 * varies, so a device polling at exactly the interval must never be slowed
 * down by jitter (a slow_down it cannot escape).
 */
export const POLL_TOLERANCE = 0.8;

export function nextDevicePoll(previous: DevicePollState | undefined, nowMs: number, baseIntervalSeconds: number): { state: DevicePollState; slowDown: boolean } {
  if (!previous || !Number.isFinite(previous.lastPollMs) || !Number.isFinite(previous.intervalSeconds)) {
    return { state: { lastPollMs: nowMs, intervalSeconds: baseIntervalSeconds }, slowDown: false };
  }
  const tooSoon = nowMs - previous.lastPollMs < previous.intervalSeconds * 1000 * POLL_TOLERANCE;
  const intervalSeconds = tooSoon ? previous.intervalSeconds + SLOW_DOWN_STEP_SECONDS : previous.intervalSeconds;
  return { state: { lastPollMs: nowMs, intervalSeconds }, slowDown: tooSoon };
}
