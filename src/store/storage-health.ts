// Whether the storage under the database takes writes, for /readyz.
//
// A database with a full (or read-only, or failing) disk still answers
// `select 1`: readiness said SERVING while every write answered an error. So
// readiness also follows the writes: the last append the storage refused marks
// it failing, the next append that commits clears it. While it is failing,
// /readyz probes the storage itself (at most once per `probeEveryMs`, callers
// sharing one probe): a load balancer that took the instance out of rotation
// sends no writes that could clear it. A probe is a small real write that needs
// new space (a file in the PGlite directory, pglite-database.ts; a rolled-back
// temp table on PostgreSQL, database.ts), so it fails where appends would.
import { isStorageRefusal, storageUnavailable, type StorageUnavailable } from './errors.js';

export interface StorageHealth {
  /** An append committed: the storage takes writes. Cheap, on every append. */
  wrote(): void;
  /** The storage refused an append. */
  refused(err: StorageUnavailable): void;
  /** The database can no longer be used at all (PGlite after a PANIC): never clears. */
  stopped(err: StorageUnavailable): void;
  /** Resolves when the storage takes writes (probing when it did not lately); rejects with the StorageUnavailable otherwise. */
  check(): Promise<void>;
}

export interface StorageHealthOptions {
  /** A small write that needs new space; rejects when the storage refuses it. */
  probe: () => Promise<void>;
  probeEveryMs?: number;
  now?: () => number;
}

export function storageHealth(options: StorageHealthOptions): StorageHealth {
  const probeEveryMs = options.probeEveryMs ?? 5_000;
  const now = options.now ?? performance.now.bind(performance);
  let failing: StorageUnavailable | undefined;
  let dead: StorageUnavailable | undefined;
  let probedAt = -Infinity;
  let probing: Promise<void> | undefined;

  async function probe(): Promise<void> {
    probedAt = now();
    try {
      await options.probe();
      failing = undefined;
    } catch (err) {
      // A probe that fails for another reason (the database is away) says nothing about the disk: keep the last verdict.
      if (isStorageRefusal(err)) failing = storageUnavailable(err, 'a storage probe failed');
    }
  }

  return {
    wrote() {
      if (failing) failing = undefined;
    },
    refused(err) {
      failing = err;
      probedAt = now(); // a refusal is as good as a probe
    },
    stopped(err) {
      dead = err;
    },
    async check() {
      if (dead) throw dead;
      if (!failing) return;
      if (now() - probedAt >= probeEveryMs) await (probing ??= probe().finally(() => (probing = undefined)));
      if (dead) throw dead;
      if (failing) throw failing;
    },
  };
}
