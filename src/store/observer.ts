// What the store reports while it works, for whoever watches (the server's
// metrics, src/server/metrics.ts). A port: the store knows no metrics library
// and imports nothing from the server; it calls these and moves on.
import { ConcurrencyConflict, DatabaseUnavailable, StorageUnavailable, toStoreError, UniqueViolation } from './errors.js';

/** How a database operation failed (the `kind` label of keyhold_database_errors_total). */
export type DatabaseErrorKind = 'unavailable' | 'storage_full' | 'storage_unavailable' | 'conflict' | 'unique_violation' | 'other';

export interface StoreObserver {
  /** An append committed `events` events. */
  appended(events: number): void;
  /** A group-commit transaction was sent with `appends` appends in it (./group-commit.ts). */
  transaction(appends: number): void;
  /** A read, an append or a ping failed. */
  databaseError(kind: DatabaseErrorKind): void;
}

export const NO_OBSERVER: StoreObserver = Object.freeze({ appended() {}, transaction() {}, databaseError() {} });

/** The kind of a failure, as the store classifies it (errors.ts toStoreError). */
export function databaseErrorKind(err: unknown): DatabaseErrorKind {
  const e = toStoreError(err);
  if (e instanceof DatabaseUnavailable) return 'unavailable';
  if (e instanceof StorageUnavailable) return e.reason === 'STORAGE_FULL' ? 'storage_full' : 'storage_unavailable';
  if (e instanceof ConcurrencyConflict) return 'conflict';
  if (e instanceof UniqueViolation) return 'unique_violation';
  return 'other';
}

/**
 * `target` with every method that returns a promise reporting its failures to
 * `observer` (the read model's finders, ./read-model.ts). Rejections pass on unchanged.
 */
export function reportingFailures<T extends object>(target: T, observer: StoreObserver): T {
  if (observer === NO_OBSERVER) return target;
  const out = {} as Record<string, unknown>;
  for (const [name, value] of Object.entries(target)) {
    out[name] =
      typeof value !== 'function'
        ? value
        : (...args: unknown[]) => {
            const result = (value as (...a: unknown[]) => unknown).apply(target, args);
            if (!(result instanceof Promise)) return result;
            return result.catch((err: unknown) => {
              observer.databaseError(databaseErrorKind(err));
              throw err;
            });
          };
  }
  return out as T;
}
