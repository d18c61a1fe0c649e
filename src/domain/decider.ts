// The shape of every command (emmett's Decider): fold past events into a state,
// decide new events from a command and that state. Pure; the runner does the I/O.
import type { NewEvent, StoredEvent } from '../store/events.js';

export interface Decider<State, Command> {
  initialState: () => State;
  evolve: (state: State, event: StoredEvent) => State;
  /** Throws a KeyholdError when the command is not allowed in this state. */
  decide: (command: Command, state: State) => NewEvent[];
}
