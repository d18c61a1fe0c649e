// Runs a decider against one aggregate: load its events, fold, decide, append
// with the loaded sequence as the expectation. A concurrent writer makes the
// append fail with ConcurrencyConflict; the command is then decided again on the
// fresh state, a bounded number of times, before the conflict reaches the caller
// (409 ABORTED).
import type { Decider } from '../domain/decider.js';
import { ConcurrencyConflict } from './errors.js';
import type { EventStore } from './event-store.js';
import type { AggregateType, StoredEvent } from './events.js';

export const MAX_ATTEMPTS = 5;

export interface AggregateRef {
  type: AggregateType;
  id: string;
}

export async function runCommand<State, Command>(
  store: EventStore,
  aggregate: AggregateRef,
  decider: Decider<State, Command>,
  /** The command, or an async pure step that builds it from the loaded state (e.g. WebAuthn verification); may throw. */
  command: Command | ((state: State) => Promise<Command>),
): Promise<StoredEvent[]> {
  for (let attempt = 1; ; attempt++) {
    const history = await store.load(aggregate.type, aggregate.id);
    const state = history.reduce(decider.evolve, decider.initialState());
    const effective = typeof command === 'function' ? await (command as (s: State) => Promise<Command>)(state) : command;
    const events = decider.decide(effective, state);
    if (events.length === 0) return [];
    const sequence = history.length ? history[history.length - 1].sequence : 0;
    try {
      return await store.append(events, [{ aggregateType: aggregate.type, aggregateId: aggregate.id, sequence }]);
    } catch (e) {
      if (!(e instanceof ConcurrencyConflict) || attempt >= MAX_ATTEMPTS) throw e;
      // Small jitter so racing writers do not collide again in lockstep.
      await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
    }
  }
}

/** Appends events of brand-new aggregates (fresh random ids): nothing to load, sequence 0. */
export function appendNew(store: EventStore, events: Parameters<EventStore['append']>[0]): Promise<StoredEvent[]> {
  const seen = new Map<string, { aggregateType: AggregateType; aggregateId: string; sequence: number }>();
  for (const e of events) seen.set(`${e.aggregateType}/${e.aggregateId}`, { aggregateType: e.aggregateType, aggregateId: e.aggregateId, sequence: 0 });
  return store.append(events, [...seen.values()]);
}
