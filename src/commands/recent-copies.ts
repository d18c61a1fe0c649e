// A decorator of the event store that keeps this process's copies of the
// histories of some aggregates — those whose last event says a command on them
// usually follows soon, from this same process — so that the command need not
// read back the events it wrote itself a moment before. The runner (./run.ts)
// decides on a copy only on the way to a write (see there): a copy may be
// behind the database (another process sharing the PostgreSQL appended since),
// never ahead of it, since it holds committed events only, in sequence order,
// without gaps. So a copy can save a load; it cannot change an answer.
//
// "Never ahead" assumes committed events stay committed. A database restored
// to an earlier point, or a failover to a replica that had not received the
// latest commits, breaks it: a copy of a registration the database lost would
// let its verification append sequence 2 onto nothing, where a load would have
// answered U2F_NOT_FOUND. Restart Keyhold after such a restore (copies live
// only in memory).
//
// Which commands opt in, and which aggregates they keep, is theirs to say
// (src/commands/index.ts: the security-key commands, keepWhilePending). Why:
// docs/performance.md (VerifyU2FRegistration right after RegisterU2F: the load
// was a round trip per verification and most of the server's writes to
// PostgreSQL under load; 1,555–1,731/s → 1,859–1,989/s, p99 73–82 → 58–65 ms).
import { aggregateKey, lastSequence, type AggregateType, type StoredEvent } from '../domain/events/index.js';
import type { CopyingEventStore, EventStore } from './ports.js';

/**
 * At most this many histories are kept (oldest first out): a pending U2F
 * registration's copy is ~1 KiB (measured 751 bytes), so ≤ ~50 MiB.
 */
export const MAX_KEPT_AGGREGATES = 50_000;

/** The copies alone (the decorator's memory), for tests and the decorator below. */
export interface RecentHistories {
  get(aggregateType: AggregateType, aggregateId: string): readonly StoredEvent[] | undefined;
  /** A history just loaded from the database (complete, in sequence order). */
  loaded(aggregateType: AggregateType, aggregateId: string, history: readonly StoredEvent[]): void;
  /** Events just committed by this process, in the order of the append. */
  appended(events: readonly StoredEvent[]): void;
}

/** Keeps the histories whose last event passes `keptWhile`, at most `maxKept` of them. */
export function recentHistories(keptWhile: (last: StoredEvent) => boolean, maxKept = MAX_KEPT_AGGREGATES): RecentHistories {
  const histories = new Map<string, readonly StoredEvent[]>();

  function keep(key: string, history: readonly StoredEvent[]): void {
    const last = history[history.length - 1]!;
    histories.delete(key); // re-inserted last: the Map's order is the eviction order
    if (!keptWhile(last)) return;
    histories.set(key, history);
    if (histories.size > maxKept) histories.delete(histories.keys().next().value!);
  }

  return {
    get: (aggregateType, aggregateId) => histories.get(aggregateKey(aggregateType, aggregateId)),

    loaded(aggregateType, aggregateId, history) {
      if (history.length === 0) return;
      const key = aggregateKey(aggregateType, aggregateId);
      const known = histories.get(key);
      // A load that started before one of this process's own appends finished is older than the copy.
      if (known && lastSequence(known) >= lastSequence(history)) return;
      keep(key, history);
    },

    appended(events) {
      for (const event of events) {
        const key = aggregateKey(event.aggregateType, event.aggregateId);
        if (event.sequence === 1) {
          keep(key, [event]);
          continue;
        }
        const known = histories.get(key);
        // Only a copy that reaches right up to this event can be extended; any other is dropped.
        if (known && lastSequence(known) === event.sequence - 1) keep(key, [...known, event]);
        else histories.delete(key);
      }
    },
  };
}

/**
 * `inner` with copies of the histories whose last event passes `keptWhile`.
 * Every append of `inner` updates them (its onAppended, so appends made around
 * the decorator count too), and every load made through the decorator.
 */
export function withRecentCopies(inner: EventStore, keptWhile: (last: StoredEvent) => boolean, maxKept = MAX_KEPT_AGGREGATES): CopyingEventStore & { inner: EventStore } {
  const copies = recentHistories(keptWhile, maxKept);
  const watchesAppends = inner.onAppended !== undefined;
  inner.onAppended?.((events) => copies.appended(events));
  return {
    inner,
    async load(aggregateType, aggregateId) {
      const history = await inner.load(aggregateType, aggregateId);
      copies.loaded(aggregateType, aggregateId, history);
      return history;
    },
    // A tail is no history: it passes the copies by.
    loadAfter: inner.loadAfter?.bind(inner),
    async append(events, expected) {
      const appended = await inner.append(events, expected);
      if (!watchesAppends) copies.appended(appended);
      return appended;
    },
    onAppended: inner.onAppended?.bind(inner),
    copyOf: copies.get,
  };
}
