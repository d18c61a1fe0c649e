// THE runner: every write of Keyhold goes through runCommands. For each
// aggregate the command writes (a "target"): take its history (a load, this
// process's copy, or nothing for a create), fold it with the aggregate's
// decider, decide the command; then append all targets' events in ONE
// transaction, each aggregate expected at the sequence it was decided on.
//
// - A concurrent writer makes the append fail with ConcurrencyConflict: the
//   command is decided again on fresh loads, a bounded number of times, before
//   the conflict reaches the caller (409 ABORTED). Commands on one aggregate
//   within one process run one after the other (serialized), so only writers
//   in other processes (sharing a PostgreSQL) normally conflict.
// - A history that was assumed rather than loaded — the empty history of an
//   aggregate the command creates with an id it drew, or a copy kept by
//   ./recent-copies.ts — may be behind the database. Only a write decided on it
//   is final (the append checks its sequence); a refusal or a no-op decided on
//   it is confirmed against a load first. So an assumption only ever saves the
//   load on the way to a successful write; it cannot change an answer. (This is
//   why a create's decider can refuse an existing id: the append's conflict
//   brings the load, the decider then sees the aggregate and says why.)
// - A read-model unique index that refuses the append becomes its 409 reason
//   (./conflicts.ts).
// - An aggregate whose decider names its fold (Decider.foldKey) is decided on
//   this process's kept fold (./folded-states.ts), without reading and folding
//   a history that grows without end. On a first attempt the kept fold is an
//   assumption like a copy: a write decided on it is appended at its sequence
//   (one round trip fewer per command: the login's two user events each read
//   nothing first), a refusal or a no-op is confirmed by loading the events
//   after it. Later attempts decide on the kept fold and the events after it.
import type { Decider } from '../domain/decider.js';
import { aggregateKey, lastSequence, type AggregateType, type NewEvent, type StoredEvent } from '../domain/events/index.js';
import { conflictError, referenceError } from './conflicts.js';
import { foldedStates, type FoldedStates } from './folded-states.js';
import { ConcurrencyConflict, ReferenceViolation, UniqueViolation, type CopyingEventStore, type EventStore } from './ports.js';

export const MAX_ATTEMPTS = 10;

export interface AggregateRef {
  type: AggregateType;
  id: string;
}

/** One aggregate a command writes: which, by which rule, and what it asks. */
export interface Target<State = unknown, Command = unknown> {
  aggregate: AggregateRef;
  decider: Decider<State, Command, any>;
  /** The command, or an async step that builds it from the state (e.g. WebAuthn verification, containment); may throw. */
  command: Command | ((state: State) => Promise<Command>);
  /**
   * The command creates this aggregate under an id it just drew: decide on the
   * initial state without loading (expected sequence 0; see above).
   */
  creates?: boolean;
}

export interface RunOptions {
  /** ErrorInfo metadata of the 409 a read-model unique violation becomes (./conflicts.ts). */
  conflictMetadata?: Record<string, string>;
}

/** A target, typed by its decider (a list of targets mixes aggregates of several types). */
export function target<State, Command>(
  aggregate: AggregateRef,
  decider: Decider<State, Command, any>,
  command: Command | ((state: State) => Promise<Command>),
  options: { creates?: boolean } = {},
): Target {
  return { aggregate, decider, command, creates: options.creates } as Target;
}

/** One aggregate, one command: the common case. */
export function runCommand<State, Command>(
  store: EventStore,
  aggregate: AggregateRef,
  decider: Decider<State, Command, any>,
  command: Command | ((state: State) => Promise<Command>),
  options: RunOptions & { creates?: boolean } = {},
): Promise<StoredEvent[]> {
  return runCommands(store, [target(aggregate, decider, command, options)], options);
}

/** Several aggregates decided together and appended in one transaction (e.g. bootstrap, RegisterU2F's replacements). */
export function runCommands(store: EventStore, targets: readonly Target[], options: RunOptions = {}): Promise<StoredEvent[]> {
  // Queued on every aggregate another command may address, always in the same
  // (sorted) order, so two commands never wait on each other. Not on one this
  // command creates under an id it just drew: nobody else knows it yet, and a
  // caller-chosen id taken twice at once meets on the append as ever. (AddOIDCApp
  // thus queues nowhere: its hot path pays no queue.)
  const keys: string[] = [];
  for (const t of targets) {
    if (t.creates) continue;
    const key = aggregateKey(t.aggregate.type, t.aggregate.id);
    if (!keys.includes(key)) keys.push(key);
  }
  const run = () => attempts(store, targets, options);
  if (keys.length === 0) return run();
  if (keys.length === 1) return serialized(store, keys[0]!, run);
  return keys.sort().reduceRight<() => Promise<StoredEvent[]>>((inner, key) => () => serialized(store, key, inner), run)();
}

// Per event store: aggregate key → the tail of the queue of commands on it.
const queues = new WeakMap<EventStore, Map<string, Promise<unknown>>>();

/** The store commands queue on: a decorator's queue is its inner store's. */
const queueOwner = (store: EventStore): EventStore => (store as { inner?: EventStore }).inner ?? store;

/**
 * Runs `task` after every earlier task queued for the same key in this
 * process. Without it, N concurrent requests on one aggregate would all load
 * the same version and N-1 of them would burn retries against each other.
 */
async function serialized<T>(store: EventStore, key: string, task: () => Promise<T>): Promise<T> {
  const owner = queueOwner(store);
  let byKey = queues.get(owner);
  if (!byKey) queues.set(owner, (byKey = new Map()));
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

/**
 * Runs `task` in the queue of commands on `aggregate` in this process: for a
 * command that decides on read-model rows of several aggregates and must not
 * race itself here, e.g. RegisterU2F's cap of pending registrations per user.
 */
export function serializedOn<T>(store: EventStore, aggregate: AggregateRef, task: () => Promise<T>): Promise<T> {
  return serialized(store, aggregateKey(aggregate.type, aggregate.id), task);
}

const copyOf = (store: EventStore, ref: AggregateRef) => (store as Partial<CopyingEventStore>).copyOf?.(ref.type, ref.id);

/** Loads the assumed histories again; true when the database holds more than one of them (the loads are kept in `confirmed`). */
async function assumptionBehind(
  store: EventStore,
  targets: readonly Target[],
  assumed: readonly (readonly StoredEvent[] | undefined)[],
  confirmed: (StoredEvent[] | undefined)[],
): Promise<boolean> {
  let behind = false;
  await Promise.all(
    targets.map(async (t, i) => {
      const history = assumed[i];
      if (!history) return;
      const fresh = await store.load(t.aggregate.type, t.aggregate.id);
      confirmed[i] = fresh;
      if (lastSequence(fresh) !== lastSequence(history)) behind = true;
    }),
  );
  return behind;
}

/** What a target is decided on: its state, and the sequence the append expects it at. */
interface Basis {
  state: unknown;
  sequence: number;
  /** Decided on this process's kept fold alone: a refusal or a no-op is confirmed first (foldBehind). */
  assumedFold?: boolean;
}

/** Whether the database holds events after an assumed kept fold of one of the targets. */
async function foldBehind(store: EventStore, targets: readonly Target[], bases: readonly Basis[]): Promise<boolean> {
  const after = await Promise.all(targets.map((t, i) => (bases[i]!.assumedFold ? store.loadAfter!(t.aggregate.type, t.aggregate.id, bases[i]!.sequence) : [])));
  return after.some((events) => events.length > 0);
}

// Per event store (its queue owner, as the queues): the kept folds (./folded-states.ts).
const folds = new WeakMap<EventStore, FoldedStates>();

/** The folds this target's decider may keep in this store: only a named fold, on a store that loads tails. */
function keptFoldsOf(store: EventStore, t: Target): { foldKey: string; kept: FoldedStates } | undefined {
  const foldKey = t.decider.foldKey;
  if (!foldKey || !store.loadAfter) return undefined;
  const owner = queueOwner(store);
  let kept = folds.get(owner);
  if (!kept) folds.set(owner, (kept = foldedStates()));
  return { foldKey, kept };
}

const fold = (decider: Target['decider'], history: readonly StoredEvent[], from: unknown = decider.initialState()) =>
  history.reduce<unknown>((s, e) => decider.evolve(s, e), from);

/** An aggregate's state as its stored events say now, by `decider`'s fold: a read, nothing is decided or appended on it. */
export async function stateNow<State>(store: EventStore, aggregate: AggregateRef, decider: Decider<State, any, any>): Promise<State> {
  return fold(decider as Target['decider'], await store.load(aggregate.type, aggregate.id)) as State;
}

/**
 * The target's basis: on `history` when it is given (assumed or confirmed);
 * else on this process's kept fold and the events after it, when the decider
 * names its fold; else on a load. A load's fold is kept for the next command.
 */
async function basisOf(store: EventStore, t: Target, history: readonly StoredEvent[] | undefined, assumeKept: boolean): Promise<Basis> {
  if (history) return { state: fold(t.decider, history), sequence: lastSequence(history) };
  const { type, id } = t.aggregate;
  const folded = keptFoldsOf(store, t);
  const kept = folded?.kept.get(folded.foldKey, type, id);
  if (kept && assumeKept) return { state: kept.state, sequence: kept.sequence, assumedFold: true };
  const events = kept ? await store.loadAfter!(type, id, kept.sequence) : await store.load(type, id);
  const basis = { state: fold(t.decider, events, kept ? kept.state : undefined), sequence: events.length ? lastSequence(events) : (kept?.sequence ?? 0) };
  if (folded && basis.sequence > 0) folded.kept.keep(folded.foldKey, type, id, basis);
  return basis;
}

/** After an append: each named fold moves on by what was appended to its aggregate (committed, on the basis it was decided on). */
function keepFolds(store: EventStore, targets: readonly Target[], bases: readonly Basis[], appended: readonly StoredEvent[]): void {
  targets.forEach((t, i) => {
    const folded = keptFoldsOf(store, t);
    const own = folded ? appended.filter((e) => e.aggregateType === t.aggregate.type && e.aggregateId === t.aggregate.id) : [];
    if (!folded || own.length === 0) return;
    folded.kept.keep(folded.foldKey, t.aggregate.type, t.aggregate.id, { state: fold(t.decider, own, bases[i]!.state), sequence: lastSequence(own) });
  });
}

async function attempts(store: EventStore, targets: readonly Target[], options: RunOptions): Promise<StoredEvent[]> {
  // Histories loaded to confirm an outcome decided on an assumption that turned out behind: the next attempt decides on them.
  let confirmed: (StoredEvent[] | undefined)[] = [];

  for (let attempt = 1; ; attempt++) {
    const assumed = targets.map((t) => (attempt === 1 ? (t.creates ? NO_EVENTS : copyOf(store, t.aggregate)) : undefined));
    const bases = await Promise.all(targets.map((t, i) => basisOf(store, t, assumed[i] ?? confirmed[i], attempt === 1)));
    confirmed = [];

    const events: NewEvent[] = [];
    /** Per target: whether it was decided on an assumed kept fold and wrote nothing (its sequence goes unchecked by the append). */
    const unchecked: boolean[] = [];
    try {
      for (let i = 0; i < targets.length; i++) {
        const { decider, command } = targets[i]!;
        const state = bases[i]!.state;
        const effective = typeof command === 'function' ? await (command as (s: unknown) => Promise<unknown>)(state) : command;
        const own = decider.decide(effective, state);
        unchecked.push(Boolean(bases[i]!.assumedFold) && own.length === 0);
        events.push(...own);
      }
    } catch (refusal) {
      if ((await assumptionBehind(store, targets, assumed, confirmed)) || (await foldBehind(store, targets, bases))) continue;
      throw refusal;
    }
    if (events.length === 0) {
      if ((await assumptionBehind(store, targets, assumed, confirmed)) || (await foldBehind(store, targets, bases))) continue;
      return [];
    }
    // A target that only had a say (e.g. the user behind a passkey's use: still active?) is confirmed
    // before the others' events are appended: the append checks only the sequences it writes at.
    if (unchecked.some(Boolean) && (await foldBehind(store, targets, bases.map((b, i) => (unchecked[i] ? b : { ...b, assumedFold: false }))))) continue;
    try {
      const appended = await store.append(
        events,
        targets.map((t, i) => ({ aggregateType: t.aggregate.type, aggregateId: t.aggregate.id, sequence: bases[i]!.sequence })),
      );
      keepFolds(store, targets, bases, appended);
      return appended;
    } catch (e) {
      if (e instanceof UniqueViolation) throw conflictError(e, options.conflictMetadata);
      if (e instanceof ReferenceViolation) throw referenceError(e);
      if (!(e instanceof ConcurrencyConflict) || attempt >= MAX_ATTEMPTS) throw e;
      // An assumption that was behind: decide again on loads at once. Otherwise
      // another process won a race: back off (exponential, jittered, capped) so
      // racing writers do not collide again in lockstep.
      if (!assumed.some(Boolean) && !bases.some((b) => b.assumedFold)) await new Promise((r) => setTimeout(r, Math.random() * Math.min(100, 2 ** attempt)));
    }
  }
}

const NO_EVENTS: readonly StoredEvent[] = Object.freeze([]);
