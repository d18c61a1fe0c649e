// What this process last saw of some aggregates' event histories, so that a
// command on an aggregate it has just written — VerifyU2FRegistration right
// after RegisterU2F — need not read the events back from the database.
//
// A copy may be behind the database (another Keyhold process sharing the
// PostgreSQL may have appended since), never ahead of it: it holds committed
// events only, in sequence order, without gaps. run-command.ts relies on that:
// - a write decided on a copy carries the copy's last sequence as its
//   expectation, so a copy that is behind makes the append fail with
//   ConcurrencyConflict, and the command is decided again on a fresh load;
// - an outcome that writes nothing (a refusal, a no-op) is confirmed against a
//   fresh load before it is answered.
// So a copy only ever saves the load on the way to a successful write; it
// cannot change an answer.
//
// "Never ahead" assumes committed events stay committed. A database restored
// to an earlier point, or a failover to a replica that had not received the
// latest commits, breaks it: a copy of a registration the database lost would
// let its verification append sequence 2 onto nothing, where a load would have
// answered U2F_NOT_FOUND. Restart Keyhold after such a restore (copies live
// only in memory).
//
// Why: under load the load was a round trip per VerifyU2FRegistration and most
// of the PostgreSQL writes of the server's main thread (bench, VerifyU2F gRPC
// c=64 on PostgreSQL, interleaved runs: see README "Performance").
import { aggregateKey, lastSequence, type AggregateType, type StoredEvent } from './events.js';

/**
 * Which aggregates are kept, and for how long: while the last event says the
 * aggregate awaits a command that usually comes soon, from the same process.
 */
export const KEPT_WHILE: Readonly<Record<AggregateType, (last: StoredEvent) => boolean>> = {
  // RegisterU2F → the browser's ceremony → VerifyU2FRegistration, seconds apart.
  // Once verified (or removed) the next command is rare: the copy is dropped.
  u2f: (last) => last.type === 'u2f.registration.started',
  // Written once, then commanded rarely or by whoever: always loaded.
  instance: () => false,
  org: () => false,
  project: () => false,
  user: () => false,
  app: () => false,
};

/**
 * At most this many histories are kept (oldest first out): a pending U2F
 * registration's copy is ~1 KiB, so ≤ ~50 MiB. Registrations pending at once
 * are registrations per second × the time a person takes for the ceremony.
 */
export const MAX_KEPT_AGGREGATES = 50_000;

export interface RecentAggregates {
  /** The aggregate's history as this process last saw it, or undefined. May be behind the database. */
  get(aggregateType: AggregateType, aggregateId: string): readonly StoredEvent[] | undefined;
  /** A history just loaded from the database (complete, in sequence order). */
  loaded(aggregateType: AggregateType, aggregateId: string, history: readonly StoredEvent[]): void;
  /** Events just committed by this process, in the order of the append. */
  appended(events: readonly StoredEvent[]): void;
}

export function recentAggregates(maxKept = MAX_KEPT_AGGREGATES, keptWhile = KEPT_WHILE): RecentAggregates {
  const histories = new Map<string, readonly StoredEvent[]>();

  function keep(key: string, history: readonly StoredEvent[]): void {
    const last = history[history.length - 1]!;
    histories.delete(key); // re-inserted last: the Map's order is the eviction order
    if (!keptWhile[last.aggregateType](last)) return;
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
