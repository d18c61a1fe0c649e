// Runs a decider against one aggregate: load its events (or take this
// process's recent copy of them, see attempts()), fold, decide, append with the
// loaded sequence as the expectation. A concurrent writer makes the
// append fail with ConcurrencyConflict; the command is then decided again on the
// fresh state, a bounded number of times, before the conflict reaches the caller
// (409 ABORTED). Commands on one aggregate within one process run one after the
// other, so only writers in other processes (sharing a PostgreSQL) can conflict.
import type { Decider } from '../domain/decider.js';
import { ConcurrencyConflict } from './errors.js';
import type { EventStore } from './event-store.js';
import { aggregateKey, lastSequence, type AggregateType, type StoredEvent } from './events.js';

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
  return serialized(store, aggregateKey(aggregate.type, aggregate.id), () => attempts(store, aggregate, decider, command));
}

async function attempts<State, Command>(
  store: EventStore,
  aggregate: AggregateRef,
  decider: Decider<State, Command>,
  command: Command | ((state: State) => Promise<Command>),
): Promise<StoredEvent[]> {
  // A history loaded to confirm a refusal that turned out to be decided on a stale copy: the next attempt decides on it.
  let confirmed: StoredEvent[] | undefined;

  for (let attempt = 1; ; attempt++) {
    // The first attempt may decide on this process's copy of the history
    // (recent-aggregates.ts); it can be behind, so only a write decided on it is
    // final (the append checks its sequence) — anything else is confirmed on a load.
    const copy = attempt === 1 ? store.recent?.(aggregate.type, aggregate.id) : undefined;
    const history = copy ?? confirmed ?? (await store.load(aggregate.type, aggregate.id));
    confirmed = undefined;
    /** Whether the database holds more than the copy (another process appended since); keeps what it loaded. */
    const copyBehind = async () => {
      if (!copy) return false;
      const fresh = await store.load(aggregate.type, aggregate.id);
      if (lastSequence(fresh) === lastSequence(copy)) return false;
      confirmed = fresh;
      return true;
    };
    let events: ReturnType<typeof decider.decide>;
    try {
      const state = history.reduce(decider.evolve, decider.initialState());
      const effective = typeof command === 'function' ? await (command as (s: State) => Promise<Command>)(state) : command;
      events = decider.decide(effective, state);
    } catch (refusal) {
      if (await copyBehind()) continue;
      throw refusal;
    }
    if (events.length === 0) {
      if (await copyBehind()) continue;
      return [];
    }
    try {
      return await store.append(events, [{ aggregateType: aggregate.type, aggregateId: aggregate.id, sequence: lastSequence(history) }]);
    } catch (e) {
      if (!(e instanceof ConcurrencyConflict) || attempt >= MAX_ATTEMPTS) throw e;
      // A copy that was behind: decide again on a load at once. Otherwise another
      // process won a race: back off (exponential, jittered, capped) so racing
      // writers do not collide again in lockstep.
      if (!copy) await new Promise((r) => setTimeout(r, Math.random() * Math.min(100, 2 ** attempt)));
    }
  }
}

/** Appends events of brand-new aggregates (fresh random ids): nothing to load, sequence 0. */
export function appendNew(store: EventStore, events: Parameters<EventStore['append']>[0]): Promise<StoredEvent[]> {
  const seen = new Map<string, { aggregateType: AggregateType; aggregateId: string; sequence: number }>();
  for (const e of events) seen.set(aggregateKey(e.aggregateType, e.aggregateId), { aggregateType: e.aggregateType, aggregateId: e.aggregateId, sequence: 0 });
  return store.append(events, [...seen.values()]);
}
