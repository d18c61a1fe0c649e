// At most one argon2id computation per core at a time. Each takes 19 MiB of
// memory for its whole run (m=19456 KiB) on libuv's thread pool (4 threads by
// default): on a 2-core machine four at once take twice the memory of two and
// finish no sooner, since the cores are the limit, and they hold every pool
// thread the file system and DNS also wait on. Those beyond the cores wait
// here, in order, for a free slot (a few bytes each).
import { availableParallelism } from 'node:os';

export interface Slots {
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function slots(size: number): Slots {
  let free = Math.max(1, size);
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return {
    async run(task) {
      if (free > 0) free--;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}

/** The process's slots for password hashing: one per core. */
export const HASH_SLOTS = slots(availableParallelism());
