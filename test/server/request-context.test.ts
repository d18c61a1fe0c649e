// The request context's slots (src/server/request-context.ts): each behaves as
// an AsyncLocalStorage of its own, though all share one.
import { describe, expect, it } from 'vitest';
import { contextSlot } from '../../src/server/request-context.js';

describe('request-context slots', () => {
  const a = contextSlot<string>('a');
  const b = contextSlot<number>('b');

  it('hold their own value across awaits, nested, and none outside a run', async () => {
    expect(a.getStore()).toBeUndefined();
    await a.run('outer', async () => {
      await b.run(1, async () => {
        await new Promise((r) => setImmediate(r));
        expect([a.getStore(), b.getStore()]).toEqual(['outer', 1]);
        // The same slot run again inside: shadowed there, and back after.
        await a.run('inner', async () => {
          await Promise.resolve();
          expect([a.getStore(), b.getStore()]).toEqual(['inner', 1]);
        });
        expect(a.getStore()).toBe('outer');
      });
      expect(b.getStore()).toBeUndefined();
    });
    expect(a.getStore()).toBeUndefined();
  });

  it('keep concurrent runs apart', async () => {
    const seen = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        a.run(`run-${i}`, async () => {
          await new Promise((r) => setTimeout(r, 8 - i));
          return a.getStore();
        }),
      ),
    );
    expect(seen).toEqual(Array.from({ length: 8 }, (_, i) => `run-${i}`));
  });
});
