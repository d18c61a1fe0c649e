// This process's folded states of aggregates whose decider names its fold
// (Decider.foldKey), each with the sequence it stands at, so that the runner
// (./run.ts) folds only the events after it (EventStore.loadAfter). A write
// decided on the kept state alone is appended at its sequence, so it commits
// only if nothing was appended since, here or by another process; a refusal or
// a no-op is confirmed against the events after it first.
//
// Why: a user's history grows with every login (its success, the grant the
// login stored: two events), and every login ran two commands on it, each
// loading and folding all of it. A user with 20,000 events (10,000 logins)
// took a median 187 ms per login (CPU 197 ms, most of it on the event loop)
// against 51 ms for a new user, and wrong passwords add events too, so anyone
// could slow a user's logins down. With a kept fold a command loads what was
// appended since — usually nothing, or the login's own events: 38 ms against
// 35 (bench/long-history.ts, PostgreSQL; docs/performance.md). The first
// command on a user after a start still loads all of it, once.
//
// A state is kept only from committed events (a load, or an append that
// succeeded on top of the state it was decided on), so it is never ahead of
// the database; events are never changed or deleted, so a state at sequence
// S stays the fold of events 1..S. (As ./recent-copies.ts: a database restored
// to an earlier point breaks that; restart Keyhold after such a restore.)
import { aggregateKey, type AggregateType } from '../domain/events/index.js';

/** States kept per event store, the least recently used dropped first: a user's state is a few hundred bytes. */
export const MAX_FOLDED_STATES = 10_000;

export interface FoldedState {
  state: unknown;
  sequence: number;
}

export interface FoldedStates {
  get(foldKey: string, aggregateType: AggregateType, aggregateId: string): FoldedState | undefined;
  /** Keeps `state` as the fold of the aggregate's events up to `sequence` (never replacing a later one). */
  keep(foldKey: string, aggregateType: AggregateType, aggregateId: string, kept: FoldedState): void;
}

export function foldedStates(maxKept = MAX_FOLDED_STATES): FoldedStates {
  const states = new Map<string, FoldedState>();
  const keyOf = (foldKey: string, aggregateType: AggregateType, aggregateId: string) => `${foldKey}\u0000${aggregateKey(aggregateType, aggregateId)}`;
  return {
    get(foldKey, aggregateType, aggregateId) {
      const key = keyOf(foldKey, aggregateType, aggregateId);
      const kept = states.get(key);
      if (kept) {
        // Used: last out.
        states.delete(key);
        states.set(key, kept);
      }
      return kept;
    },
    keep(foldKey, aggregateType, aggregateId, kept) {
      const key = keyOf(foldKey, aggregateType, aggregateId);
      const known = states.get(key);
      if (known && known.sequence >= kept.sequence) return;
      states.delete(key);
      states.set(key, kept);
      if (states.size > maxKept) states.delete(states.keys().next().value!);
    },
  };
}
