// The shape of every write's rule (emmett's Decider): fold an aggregate's past
// events into a state, decide new events from a command and that state. Pure:
// the runner (src/commands/run.ts) does the I/O. A create is decided on the
// initial state ("does not exist"), so creating an existing id is refused by
// the decider, not caught as a database conflict.
import type { EventTypeName, NewEvent, StoredEvent } from './events/index.js';

export interface Decider<State, Command, Type extends EventTypeName = EventTypeName> {
  initialState: () => State;
  /** Folds one of the aggregate's stored events into the state. */
  evolve: (state: State, event: StoredEvent<Type>) => State;
  /** The events the command causes; throws a KeyholdError when it is not allowed in this state. */
  decide: (command: Command, state: State) => NewEvent<Type>[];
}
