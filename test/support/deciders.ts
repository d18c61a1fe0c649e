// Given events → when a command → then events (or the refusal's reason): a
// decider run the way the runner runs it (src/commands/run.ts), without a
// server or a database.
import type { Decider } from '../../src/domain/decider.js';
import type { NewEvent, StoredEvent } from '../../src/domain/events/index.js';
import { KeyholdError } from '../../src/domain/errors/keyhold-error.js';

/** The events a decider decides for `command` after `history` (numbered 1, 2, … per aggregate, as stored). */
export function decide<State, Command>(decider: Decider<State, Command, any>, history: readonly NewEvent[], command: Command): NewEvent[] {
  const sequences = new Map<string, number>();
  const stored = history.map((e, i): StoredEvent => {
    const sequence = (sequences.get(e.aggregateId) ?? 0) + 1;
    sequences.set(e.aggregateId, sequence);
    return { ...e, sequence, createdAt: new Date(0), position: BigInt(i + 1) } as StoredEvent;
  });
  const state = stored.reduce<State>((s, e) => decider.evolve(s, e), decider.initialState());
  return decider.decide(command, state);
}

/** The reason (and metadata) a decider refuses `command` with after `history`; fails the test if it decides. */
export function refusal<State, Command>(decider: Decider<State, Command, any>, history: readonly NewEvent[], command: Command): { reason: string; metadata: Record<string, string> } {
  try {
    const events = decide(decider, history, command);
    throw new Error(`expected a refusal, got ${JSON.stringify(events.map((e) => e.type))}`);
  } catch (e) {
    if (!(e instanceof KeyholdError)) throw e;
    return { reason: e.reason, metadata: e.metadata };
  }
}
