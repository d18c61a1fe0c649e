// Appends events to one existing aggregate at its current sequence, retrying on
// a concurrent writer. For commands whose only rule is "the object exists",
// which the caller has already checked on the read model.
import type { Decider } from '../domain/decider.js';
import type { EventStore } from './event-store.js';
import type { NewEvent, StoredEvent } from './events.js';
import { runCommand, type AggregateRef } from './run-command.js';

const appendOnly: Decider<null, NewEvent[]> = {
  initialState: () => null,
  evolve: (s) => s,
  decide: (events) => events,
};

export function appendTo(store: EventStore, aggregate: AggregateRef, events: NewEvent[]): Promise<StoredEvent[]> {
  return runCommand(store, aggregate, appendOnly, events);
}
