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
  /**
   * Names the fold (initialState + evolve): deciders with the same foldKey fold
   * an aggregate's events into the same state, whichever instance folds them.
   * With one, the runner may keep an aggregate's folded state between commands
   * and fold only the events after it (src/commands/folded-states.ts): for
   * aggregates whose history grows without end (a user's logins).
   */
  foldKey?: string;
}
