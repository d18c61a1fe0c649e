// The password hashing slots (src/domain/identity/hash-slots.ts): no more
// computations at once than slots, the rest served in order, a failing task
// frees its slot; and the real argon2id calls go through them.
import { describe, expect, it } from 'vitest';
import { slots } from '../../../src/domain/identity/hash-slots.js';
import { hashPassword, verifyPasswordHash } from '../../../src/domain/identity/passwords.js';

describe('hash slots', () => {
  it('runs at most `size` tasks at once and the waiting ones in the order they came', async () => {
    const limit = slots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const task = (i: number) => async () => {
      started.push(i);
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return i;
    };
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => limit.run(task(i))));
    expect(results).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('a task that fails frees its slot: the next ones still run', async () => {
    const limit = slots(1);
    const failed = limit.run(async () => {
      throw new Error('boom');
    });
    const next = limit.run(async () => 'ran');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
  });

  it('password hashing and checking still answer through them, many at once', async () => {
    const stored = await hashPassword('a long enough password');
    const checks = await Promise.all(Array.from({ length: 6 }, (_, i) => verifyPasswordHash(stored, i % 2 ? 'a long enough password' : 'wrong password')));
    expect(checks).toEqual([false, true, false, true, false, true]);
    expect(await verifyPasswordHash(undefined, 'anything')).toBe(false);
  });
});

describe('an empty password', () => {
  it('costs a real check against an existing hash too: it does not tell a known account from an unknown one', async () => {
    const stored = await hashPassword('a long enough password');
    const timed = async (check: () => Promise<boolean>) => {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        expect(await check()).toBe(false);
        times.push(performance.now() - started);
      }
      return times.sort((a, b) => a - b)[1]!;
    };
    const known = await timed(() => verifyPasswordHash(stored, ''));
    const unknown = await timed(() => verifyPasswordHash(undefined, ''));
    // Both run argon2id (milliseconds); a skipped check would take microseconds.
    expect(known).toBeGreaterThan(unknown / 4);
  });
});
