// RFC 8628 §3.5's polling rule (src/domain/oidc/device-poll.ts), without a server.
import { describe, expect, it } from 'vitest';
import { nextDevicePoll, POLL_TOLERANCE, SLOW_DOWN_STEP_SECONDS } from '../../../src/domain/oidc/index.js';

describe('device polling rule', () => {
  it('the first poll is never too soon and starts at the configured interval', () => {
    expect(nextDevicePoll(undefined, 1_000, 5)).toEqual({ state: { lastPollMs: 1_000, intervalSeconds: 5 }, slowDown: false });
  });

  it('a poll sooner than the interval is slow_down and adds 5 s for this and every later poll', () => {
    const first = nextDevicePoll(undefined, 0, 5).state;
    const soon = nextDevicePoll(first, 1_000, 5);
    expect(soon).toEqual({ state: { lastPollMs: 1_000, intervalSeconds: 5 + SLOW_DOWN_STEP_SECONDS }, slowDown: true });
    // The grown interval holds: 6 s later is still too soon for 10 s.
    expect(nextDevicePoll(soon.state, 7_000, 5)).toMatchObject({ slowDown: true, state: { intervalSeconds: 15 } });
    // Keeping to it is fine, and it does not shrink back.
    expect(nextDevicePoll({ lastPollMs: 0, intervalSeconds: 10 }, 10_000, 5)).toEqual({ state: { lastPollMs: 10_000, intervalSeconds: 10 }, slowDown: false });
  });

  it('latency jitter around the interval is tolerated (a device at the interval is never trapped in slow_down)', () => {
    const justUnder = 5_000 * POLL_TOLERANCE;
    expect(nextDevicePoll({ lastPollMs: 0, intervalSeconds: 5 }, justUnder, 5).slowDown).toBe(false);
    expect(nextDevicePoll({ lastPollMs: 0, intervalSeconds: 5 }, justUnder - 1, 5).slowDown).toBe(true);
  });
});
