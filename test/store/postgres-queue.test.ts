// The postgres.js pool's queues after Keyhold's repair 8 (scripts/patch-postgres-js.mjs):
// a connection moves between queues on every query (index.js `move`: remove from
// its queue, push onto the next); under steady load the busy queue never drains.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { postgresPackageRoot } from '../../src/store/postgres-repairs.js';

interface Queue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}

const loadQueue = async (): Promise<<T>(initial?: T[]) => Queue<T>> =>
  (await import(pathToFileURL(join(postgresPackageRoot(), 'src/queue.js')).href)).default;

describe("postgres.js' pool queue (repair 8)", () => {
  it('keeps first-in-first-out order and finds only what it holds, however long it never drains', async () => {
    const Queue = await loadQueue();
    const busy = Queue<number>();
    for (let c = 0; c < 20; c++) busy.push(c);
    // The pool's cycle: take the next busy connection, send it a query, move it back (remove + push).
    for (let i = 0; i < 5000; i++) {
      const c = busy.shift()!;
      expect(c).toBe(i % 20);
      expect(busy.remove(c)).toBeNull(); // already shifted out: not there
      busy.push(c);
    }
    expect(busy.length).toBe(20);
    expect(busy.remove(7)).toBe(7);
    expect(busy.remove(7)).toBeNull();
    expect(busy.length).toBe(19);
    const rest: number[] = [];
    while (busy.length) rest.push(busy.shift()!);
    expect(rest).toEqual([0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  });

  it('a remove costs the live part, not every query since the queue last drained', async () => {
    // Unrepaired, each remove scanned every slot ever pushed: 400,000 cycles of a
    // never-drained queue are ~8·10^10 comparisons (~25 s here); repaired, ~50 ms.
    const Queue = await loadQueue();
    const busy = Queue<object>();
    const conns = Array.from({ length: 20 }, () => ({}));
    for (const c of conns) busy.push(c);
    const started = performance.now();
    for (let i = 0; i < 400_000; i++) {
      const c = busy.shift()!;
      busy.remove(c);
      busy.push(c);
    }
    expect(busy.length).toBe(20);
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});
