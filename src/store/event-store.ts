// The event store: load an aggregate's events, append new ones with optimistic
// concurrency, and project them into the read models in the same transaction.
// One interface, two drivers; test/store/event-store.contract.ts pins the behaviour.
import type { Database } from './database.js';
import {
  aggregateKey,
  aggregateOf,
  type AggregateType,
  type ExpectedSequence,
  type NewEvent,
  type StoredEvent,
} from './events.js';
import { toStoreError } from './errors.js';
import { projectionStatements } from './projections/index.js';
import { toDate, type SqlStatement } from './sql.js';
import { groupCommitter, type GroupCommitOptions } from './group-commit.js';
import { recentAggregates } from './recent-aggregates.js';

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
  /**
   * The aggregate's history as this process last saw it (its own appends and
   * loads, for the kinds of aggregate in recent-aggregates.ts), or undefined.
   * It may be behind the database, never ahead: see run-command.ts for how it
   * is used safely.
   */
  recent?(aggregateType: AggregateType, aggregateId: string): readonly StoredEvent[] | undefined;
}

type NewEventsInFlight = Parameters<typeof projectionStatements>[0];

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
  const assigned = new Map(returned.map((r) => [`${aggregateKey(r.aggregateType, r.aggregateId)}\u0000${r.sequence}`, r]));
  return rows.map((row) => {
    const r = assigned.get(`${aggregateKey(row.aggregateType, row.aggregateId)}\u0000${row.sequence}`)!;
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
    next.set(aggregateKey(e.aggregateType, e.aggregateId), e.sequence);
  }
  return newEvents.map((e) => {
    if (aggregateOf[e.type] !== e.aggregateType) {
      throw new TypeError(`event ${e.type} does not belong to aggregate type ${e.aggregateType}`);
    }
    const key = aggregateKey(e.aggregateType, e.aggregateId);
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

/**
 * How appends share transactions under load (./group-commit.ts), per driver.
 * One transaction at a time measured best on PostgreSQL too (bench, AddOIDCApp
 * gRPC c=64, two runs each): 1 slot 1,788–2,050/s with ~20 appends per
 * transaction; 2 slots 1,447–1,482/s (the second slot takes whatever arrived
 * meanwhile: ~6 per transaction); no sharing (20 slots of 1) 1,175–1,288/s.
 * A transaction normally takes ~20 ms under that load; one that takes 100 ms
 * is stuck behind something (a lock, a dead connection), and then more may
 * run beside it, leaving the rest of the pool (20) to reads. PGlite runs one
 * statement batch at a time anyway.
 */
const GROUP_COMMIT: Record<Database['kind'], GroupCommitOptions> = {
  pglite: { maxBatch: 64, maxInFlight: 1, stallMs: 100 },
  postgres: { maxBatch: 64, maxInFlight: 8, stallMs: 100 },
};

export function createEventStore(database: Pick<Database, 'sql' | 'kind'>): EventStore {
  const client = database.sql;
  const atomic = groupCommitter(client, GROUP_COMMIT[database.kind]);
  const listeners = new Set<(events: readonly StoredEvent[]) => void>();
  const recent = recentAggregates();

  /**
   * One transaction: the events insert and the projection statements, sent
   * together. Projection statements do not wait for the insert's answer (they
   * use now(), the same transaction time).
   */
  async function appendInTransaction(rows: ReturnType<typeof numbered>, inFlight: NewEventsInFlight): Promise<StoredEvent[]> {
    const [inserted] = await atomic([insertStatement(rows), ...projectionStatements(inFlight)]);
    return stored(rows, inserted as Returned[]);
  }

  return {
    onAppended(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async load(aggregateType, aggregateId) {
      try {
        const rows = await client.query<LoadedRow>(loadStatement(aggregateType, aggregateId));
        const history = rows.map(toStored);
        recent.loaded(aggregateType, aggregateId, history);
        return history;
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
      recent.appended(appended);
      for (const listener of listeners) listener(appended);
      return appended;
    },

    recent: recent.get,
  };
}
