// The event store (the commands' port, src/commands/ports.ts): load an
// aggregate's events, append new ones with optimistic concurrency, and project
// them into the read models in the same transaction. One implementation, two
// drivers; test/store/event-store.contract.ts pins the behaviour.
import type { EventStore } from '../commands/ports.js';
import type { Database } from './database.js';
import { aggregateKey, AGGREGATE_OF, type ExpectedSequence, type NewEvent, type StoredEvent } from '../domain/events/index.js';
import { StorageUnavailable, toStoreError } from './errors.js';
import { projectionStatements } from './projections/index.js';
import { appendStatements } from './append-statement.js';
import { toDate, type SqlStatement } from './sql.js';
import { GROUP_COMMIT_BY_DRIVER, groupCommitter } from './group-commit.js';
import { databaseErrorKind, NO_OBSERVER, type StoreObserver } from './observer.js';

export type { EventStore } from '../commands/ports.js';
export type { ExpectedSequence, NewEvent, StoredEvent } from '../domain/events/index.js';

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

const LOAD_SELECT = `select aggregate_type as "aggregateType", aggregate_id as "aggregateId", sequence, type, payload,
           resource_owner as "resourceOwner", creator, created_at as "createdAt", position
         from events where aggregate_type = $1 and aggregate_id = $2`;
const LOAD = `${LOAD_SELECT} order by sequence`;
const LOAD_AFTER = `${LOAD_SELECT} and sequence > $3 order by sequence`;

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
    if (AGGREGATE_OF[e.type] !== e.aggregateType) {
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

/** `observer` hears of appends, group-commit transactions and database errors (./observer.ts). */
export function createEventStore(
  database: Pick<Database, 'sql' | 'kind'> & Partial<Pick<Database, 'storage'>>,
  observer: StoreObserver = NO_OBSERVER,
): EventStore {
  const client = database.sql;
  const storage = database.storage;
  const atomic = groupCommitter(client, { ...GROUP_COMMIT_BY_DRIVER[database.kind], onTransaction: (appends) => observer.transaction(appends) });
  const listeners = new Set<(events: readonly StoredEvent[]) => void>();

  /**
   * One transaction: the events insert and the projection statements, sent
   * together. Projection statements do not wait for the insert's answer (they
   * use now(), the same transaction time).
   */
  async function appendInTransaction(rows: ReturnType<typeof numbered>, inFlight: NewEventsInFlight): Promise<StoredEvent[]> {
    const [inserted] = await atomic(appendStatements(insertStatement(rows), projectionStatements(inFlight)));
    return stored(rows, inserted as Returned[]);
  }

  async function loaded(statement: SqlStatement): Promise<StoredEvent[]> {
    try {
      const rows = await client.query<LoadedRow>(statement);
      return rows.map(toStored);
    } catch (err) {
      const mapped = toStoreError(err);
      observer.databaseError(databaseErrorKind(mapped));
      throw mapped;
    }
  }

  return {
    onAppended(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    load: (aggregateType, aggregateId) => loaded({ text: LOAD, params: [aggregateType, aggregateId] }),
    loadAfter: (aggregateType, aggregateId, sequence) => loaded({ text: LOAD_AFTER, params: [aggregateType, aggregateId, sequence] }),

    async append(newEvents, expected) {
      if (newEvents.length === 0) return [];
      const rows = numbered(newEvents, expected);
      // createdAt null: the projections use now(), the append's transaction time.
      const inFlight = rows.map((row) => ({ ...row, createdAt: null })) as NewEventsInFlight;
      let appended: StoredEvent[];
      try {
        appended = await appendInTransaction(rows, inFlight);
      } catch (err) {
        const mapped = toStoreError(err);
        observer.databaseError(databaseErrorKind(mapped));
        // Readiness follows the writes (storage-health.ts).
        if (mapped instanceof StorageUnavailable) storage?.refused(mapped);
        throw mapped;
      }
      storage?.wrote();
      observer.appended(appended.length);
      for (const listener of listeners) listener(appended);
      return appended;
    },
  };
}
