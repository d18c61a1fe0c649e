// Runs a decider against one aggregate: load its events, fold, decide, append
// with the loaded sequence as the expectation. A concurrent writer makes the
// append fail with ConcurrencyConflict; the command is then decided again on the
// fresh state, a bounded number of times, before the conflict reaches the caller
// (409 ABORTED). Commands on one aggregate within one process run one after the
// other, so only writers in other processes (sharing a PostgreSQL) can conflict.
import type { Decider } from '../domain/decider.js';
import { ConcurrencyConflict } from './errors.js';
import type { EventStore } from './event-store.js';
import type { AggregateType, StoredEvent } from './events.js';

export const MAX_ATTEMPTS = 10;

// Per event store: aggregate key → the tail of the queue of commands on it.
const queues = new WeakMap<EventStore, Map<string, Promise<unknown>>>();

/**
 * Runs `task` after every earlier task queued for the same aggregate in this
 * process. Without it, N concurrent requests on one aggregate would all load the
 * same version and N-1 of them would burn retries against each other.
 */
async function serialized<T>(store: EventStore, key: string, task: () => Promise<T>): Promise<T> {
  let byKey = queues.get(store);
  if (!byKey) queues.set(store, (byKey = new Map()));
  const previous = byKey.get(key) ?? Promise.resolve();
  const run = previous.then(task, task);
  const tail = run.catch(() => {});
  byKey.set(key, tail);
  try {
    return await run;
  } finally {
    if (byKey.get(key) === tail) byKey.delete(key);
  }
}

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
  return serialized(store, `${aggregate.type}/${aggregate.id}`, () => attempts(store, aggregate, decider, command));
}

async function attempts<State, Command>(
  store: EventStore,
  aggregate: AggregateRef,
  decider: Decider<State, Command>,
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
      // Another process won: back off (exponential, jittered, capped) so racing
      // writers do not collide again in lockstep.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(100, 2 ** attempt)));
    }
  }
}

/** Appends events of brand-new aggregates (fresh random ids): nothing to load, sequence 0. */
export function appendNew(store: EventStore, events: Parameters<EventStore['append']>[0]): Promise<StoredEvent[]> {
  const seen = new Map<string, { aggregateType: AggregateType; aggregateId: string; sequence: number }>();
  for (const e of events) seen.set(`${e.aggregateType}/${e.aggregateId}`, { aggregateType: e.aggregateType, aggregateId: e.aggregateId, sequence: 0 });
  return store.append(events, [...seen.values()]);
}
