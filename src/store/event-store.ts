// The event store: load an aggregate's events, append new ones with optimistic
// concurrency, and project them into the read models in the same transaction.
// One interface, two drivers; test/store/event-store.contract.ts pins the behaviour.
import type { Database } from './database.js';
import {
  aggregateOf,
  type AggregateType,
  type ExpectedSequence,
  type NewEvent,
  type StoredEvent,
} from './events.js';
import { toStoreError } from './errors.js';
import { projectionStatements } from './projections/index.js';
import { toDate, type SqlRunner, type SqlStatement } from './sql.js';

export type { ExpectedSequence, NewEvent, StoredEvent } from './events.js';

export interface EventStore {
  /** The aggregate's events in sequence order; [] for an aggregate that does not exist. */
  load(aggregateType: AggregateType, aggregateId: string): Promise<StoredEvent[]>;
  /**
   * Append `events` in one transaction and project them. Each event's aggregate
   * needs an entry in `expected` (its current sequence, 0 when new); its events
   * get sequence+1, +2, … in the given order. Expectations for aggregates that
   * receive no event are not checked.
   *
   * Rejects with ConcurrencyConflict when another writer got there first,
   * UniqueViolation when a read-model unique index refuses the change, and
   * DatabaseUnavailable when the database cannot be reached. On any rejection
   * nothing is written.
   */
  append(events: readonly NewEvent[], expected: readonly ExpectedSequence[]): Promise<StoredEvent[]>;
  /**
   * Calls `listener` with the events of every append of this store, right after
   * its commit (e.g. to drop caches the events make stale). Returns an unsubscribe.
   */
  onAppended?(listener: (events: readonly StoredEvent[]) => void): () => void;
}

type NewEventsInFlight = Parameters<typeof projectionStatements>[0];

/** The first failure is the cause; later statements only report the aborted transaction. */
function throwFirstFailure(settled: readonly PromiseSettledResult<unknown>[]): void {
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) throw failure.reason;
}

const keyOf = (aggregateType: string, aggregateId: string) => `${aggregateType}\u0000${aggregateId}`;

interface Returned {
  aggregateType: string;
  aggregateId: string;
  sequence: number;
  /** int8: a string from postgres.js, a bigint or number from PGlite. */
  position: string | number | bigint;
  createdAt: Date | string;
}

/**
 * The appended events in the given order, completed with what the database
 * assigned. Matched by (aggregate, sequence): RETURNING order is not guaranteed.
 * The payloads are the ones given (the database stores the same JSON).
 */
function stored(rows: ReturnType<typeof numbered>, returned: readonly Returned[]): StoredEvent[] {
  const assigned = new Map(returned.map((r) => [`${keyOf(r.aggregateType, r.aggregateId)}\u0000${r.sequence}`, r]));
  return rows.map((row) => {
    const r = assigned.get(`${keyOf(row.aggregateType, row.aggregateId)}\u0000${row.sequence}`)!;
    return { ...row, position: BigInt(r.position), createdAt: toDate(r.createdAt) } as StoredEvent;
  });
}

type LoadedRow = Omit<StoredEvent, 'position' | 'createdAt'> & Pick<Returned, 'position' | 'createdAt'>;

function toStored(row: LoadedRow): StoredEvent {
  return { ...row, position: BigInt(row.position), createdAt: toDate(row.createdAt) } as StoredEvent;
}

const loadStatement = (aggregateType: string, aggregateId: string): SqlStatement => ({
  text: `select aggregate_type as "aggregateType", aggregate_id as "aggregateId", sequence, type, payload,
           resource_owner as "resourceOwner", creator, created_at as "createdAt", position
         from events where aggregate_type = $1 and aggregate_id = $2 order by sequence`,
  params: [aggregateType, aggregateId],
});

// One text per row count (appends write 1–3 events), so each is prepared once per connection.
const insertTexts: string[] = [];
function insertText(rowCount: number): string {
  return (insertTexts[rowCount] ??= `insert into events (aggregate_type, aggregate_id, sequence, type, payload, resource_owner, creator)
     values ${Array.from({ length: rowCount }, (_, i) => {
       const n = i * 7;
       return `($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}::text::jsonb, $${n + 6}, $${n + 7})`;
     }).join(', ')}
     returning aggregate_type as "aggregateType", aggregate_id as "aggregateId", sequence, position, created_at as "createdAt"`);
}

/**
 * One multi-row insert: the unique (aggregate, sequence) key rejects the whole
 * append if any aggregate moved on since it was loaded.
 */
function insertStatement(rows: ReturnType<typeof numbered>): SqlStatement {
  const params: unknown[] = [];
  for (const r of rows) {
    params.push(r.aggregateType, r.aggregateId, r.sequence, r.type, JSON.stringify(r.payload), r.resourceOwner, r.creator);
  }
  return { text: insertText(rows.length), params };
}

/** Assign sequences from the expectations; programmer errors throw before any I/O. */
function numbered(newEvents: readonly NewEvent[], expected: readonly ExpectedSequence[]) {
  const next = new Map<string, number>();
  for (const e of expected) {
    if (!Number.isInteger(e.sequence) || e.sequence < 0) {
      throw new RangeError(`expected sequence of ${e.aggregateType}/${e.aggregateId} must be an integer ≥ 0`);
    }
    next.set(keyOf(e.aggregateType, e.aggregateId), e.sequence);
  }
  return newEvents.map((e) => {
    if (aggregateOf[e.type] !== e.aggregateType) {
      throw new TypeError(`event ${e.type} does not belong to aggregate type ${e.aggregateType}`);
    }
    const key = keyOf(e.aggregateType, e.aggregateId);
    const current = next.get(key);
    if (current === undefined) {
      throw new TypeError(`no expected sequence given for ${e.aggregateType}/${e.aggregateId}`);
    }
    next.set(key, current + 1);
    return {
      aggregateType: e.aggregateType,
      aggregateId: e.aggregateId,
      sequence: current + 1,
      type: e.type,
      payload: e.payload,
      resourceOwner: e.resourceOwner,
      creator: e.creator,
    };
  });
}

export function createEventStore(database: Pick<Database, 'sql'> & Partial<Pick<Database, 'kind'>>): EventStore {
  const client = database.sql;
  const pipelineCommit = database.kind === 'postgres';
  const listeners = new Set<(events: readonly StoredEvent[]) => void>();

  /**
   * One transaction. Projection statements do not wait for the insert's answer
   * (they use now(), the same transaction time), so all of them are sent at
   * once, in order; postgres.js (and PGlite's query mutex) run them in that order.
   *
   * On PostgreSQL the COMMIT is pipelined too: the callback returns as soon as
   * every statement has been handed to the driver, so postgres.js queues its
   * COMMIT right behind them on the transaction's connection. Round trips:
   * BEGIN, then statements and COMMIT together — two instead of three, and the
   * connection is held one round trip less (bench: round trips dominated an
   * append under load). If a statement fails, the transaction is aborted and the
   * COMMIT ends it as a ROLLBACK: nothing is written, and the failure is
   * reported below. If it fails before the callback returns, postgres.js rolls
   * back and rejects as before.
   */
  async function appendInTransaction(rows: ReturnType<typeof numbered>, inFlight: NewEventsInFlight): Promise<StoredEvent[]> {
    const { running } = await client.transaction(async (tx: SqlRunner) => {
      const started: Promise<unknown[]>[] = [tx.query(insertStatement(rows))];
      for (const statement of projectionStatements(inFlight)) started.push(tx.query(statement));
      if (pipelineCommit) {
        for (const p of started) p.catch(() => {}); // settled below, after the commit
      } else {
        throwFirstFailure(await Promise.allSettled(started)); // rolls back
      }
      // Wrapped: an array returned from the callback would be awaited by postgres.js.
      return { running: started };
    });
    const settled = await Promise.allSettled(running);
    throwFirstFailure(settled);
    return stored(rows, (settled[0] as PromiseFulfilledResult<Returned[]>).value);
  }

  return {
    onAppended(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async load(aggregateType, aggregateId) {
      try {
        const rows = await client.query<LoadedRow>(loadStatement(aggregateType, aggregateId));
        return rows.map(toStored);
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async append(newEvents, expected) {
      if (newEvents.length === 0) return [];
      const rows = numbered(newEvents, expected);
      // createdAt null: the projections use now(), the append's transaction time.
      const inFlight = rows.map((row) => ({ ...row, createdAt: null })) as NewEventsInFlight;
      let appended: StoredEvent[];
      try {
        appended = await appendInTransaction(rows, inFlight);
      } catch (err) {
        throw toStoreError(err);
      }
      for (const listener of listeners) listener(appended);
      return appended;
    },
  };
}
