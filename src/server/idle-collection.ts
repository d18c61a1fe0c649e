// Gives the JS heap back once the requests stop. Under load V8 grows the heap
// to what the burst needed plus its growth headroom (heap-growth.ts bounds the
// headroom), and V8 shrinks it only at a collection, which an idle process
// seldom brings. Measured (bench/soak.ts, PGlite, 10 minutes of logins, then
// a quiet minute): 349 → 319 MiB resident, JS heap 142 → 112 MiB; with this
// collection 352 → 283 MiB, JS heap 139 → 70 MiB.
//
// So after a quiet period — no request ended but probes and scrapes — when
// the heap is at least `grownBytes` larger than after the last such
// collection, Keyhold runs one full collection that also releases the freed
// pages: the JVM's answer to the same problem (G1's periodic collection when
// idle, JEP 346). It runs at most once per quiet period, on the main thread
// (a request that arrives meanwhile, or one still in flight, waits for it);
// while requests keep ending it never runs. Pauses measured ad hoc, in a
// process that had made 200 MiB of garbage: Node 20 5–35 ms a collection (up
// to four of them), Node 24 35–130 ms.
//
// V8 offers the collection only to a context made under `--expose-gc`: unless
// the operator exposed it already, the flag is set for the one new context
// that hands the function over and unset at once, so no code finds a `gc`
// global (a worker thread started in that same instant could).
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleCollectionOptions {
  /** How long no request may have been served before the heap is collected. */
  quietMs: number;
  /** Requests served so far, probes and scrapes left out (any count that grows with each one). */
  requestsServed: () => number;
  /** Runs the collection: `fullCollection()`. */
  collect: () => void;
  /** The least growth of the heap since the last idle collection worth one (default: a young generation, 16 MiB). */
  grownBytes?: number;
  /** The heap's size now (default: V8's total heap size). */
  heapBytes?: () => number;
  /** Told after each collection: the heap before and after, and how long it took. */
  collected?: (report: { beforeBytes: number; afterBytes: number; ms: number }) => void;
  /** Told when a collection threw (it is not tried again until the next quiet period). */
  failed?: (error: unknown) => void;
}

export interface IdleCollection {
  stop(): void;
}

type Gc = (options?: object) => void;

/** V8's total heap size: what both the collection's rounds and the growth check measure. */
const totalHeapBytes = () => getHeapStatistics().total_heap_size;

/** V8's collection function: the operator's (`--expose-gc`), or one handed over by a context made for it. */
function gcFunction(): Gc {
  const given = (globalThis as { gc?: unknown }).gc;
  if (typeof given === 'function') return given as Gc;
  setFlagsFromString('--expose-gc');
  try {
    const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
    if (typeof gc !== 'function') throw new Error('V8 did not hand over its collection function (--expose-gc)');
    return gc as Gc;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/**
 * V8's full collection that also returns freed memory to the system. V8 12
 * and later (Node 22+; measured on Node 22 and 24) take the "last resort" flavour,
 * which collects until nothing more is freed and releases pooled pages (measured ad hoc: 83
 * MiB resident after it against 256 after a plain one, in a process that had
 * made 200 MiB of garbage). V8 11 (Node 20) reads an options object as a
 * young-generation collection, so there the plain call is repeated the same
 * way, while the heap still shrinks by a MiB, at most four times.
 */
export function fullCollection(v8Version = process.versions.v8, heapBytes = totalHeapBytes): () => void {
  const gc = gcFunction();
  if (Number(v8Version.split('.')[0]) >= 12) return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return () => {
    for (let round = 0, before = heapBytes(); round < PLAIN_ROUNDS; round++) {
      gc();
      const after = heapBytes();
      if (before - after < 2 ** 20) return;
      before = after;
    }
  };
}

/** The most plain collections one idle collection runs on V8 11. */
const PLAIN_ROUNDS = 4;

const YOUNG_GENERATION_BYTES = 16 * 2 ** 20;

export function collectWhenIdle(options: IdleCollectionOptions): IdleCollection {
  const heapBytes = options.heapBytes ?? totalHeapBytes;
  const grownBytes = options.grownBytes ?? YOUNG_GENERATION_BYTES;
  let seen = options.requestsServed();
  let collectedAt = seen;
  let afterLast = heapBytes();
  // A tick sees whether a request was served since the tick before: the
  // collection comes between one and two quiet periods after the last one.
  const timer = setInterval(() => {
    const served = options.requestsServed();
    const quiet = served === seen;
    seen = served;
    if (!quiet || served === collectedAt) return;
    collectedAt = served;
    const beforeBytes = heapBytes();
    if (beforeBytes < afterLast + grownBytes) return;
    const started = performance.now();
    try {
      options.collect();
    } catch (e) {
      // A timer's exception would end the process: this is housekeeping, not worth that.
      options.failed?.(e);
      return;
    }
    afterLast = heapBytes();
    options.collected?.({ beforeBytes, afterBytes: afterLast, ms: performance.now() - started });
  }, options.quietMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
