// The audit log's query (ListEvents): the events table by its filters, in
// position order from a cursor, at most `limit` events or MAX_PAGE_BYTES of
// payloads. Cold: drizzle builds it.
import { and, asc, desc, eq, gt, gte, inArray, lt, lte, type SQL } from 'drizzle-orm';
import type { StoredEvent } from '../../domain/events/index.js';
import { MAX_PAGE_BYTES, type EventSearch } from '../../domain/lists.js';
import type { Db } from '../database.js';
import { events } from '../schema.js';
import { jsonBytes, takeWithinBudget } from './within-budget.js';

export async function searchEvents(db: Db, s: EventSearch): Promise<StoredEvent[]> {
  const conditions: (SQL | undefined)[] = [
    s.orgIds === undefined ? undefined : inArray(events.resourceOwner, [...s.orgIds]),
    s.after > 0n ? (s.asc ? gt(events.position, s.after) : lt(events.position, s.after)) : undefined,
    s.editorUserId ? eq(events.creator, s.editorUserId) : undefined,
    s.eventTypes.length ? inArray(events.type, [...s.eventTypes]) : undefined,
    s.aggregateId ? eq(events.aggregateId, s.aggregateId) : undefined,
    s.aggregateTypes.length ? inArray(events.aggregateType, [...s.aggregateTypes]) : undefined,
    s.resourceOwner ? eq(events.resourceOwner, s.resourceOwner) : undefined,
    s.since ? gte(events.createdAt, s.since) : undefined,
    s.until ? lte(events.createdAt, s.until) : undefined,
  ];
  // A payload may carry a whole app configuration (~600 KB): the page also ends at MAX_PAGE_BYTES.
  const rows = await takeWithinBudget(s.limit, MAX_PAGE_BYTES, (e: { payload: unknown; position: bigint }) => jsonBytes(e.payload), (last, n) =>
    db
      .select()
      .from(events)
      .where(and(...[...conditions, last ? (s.asc ? gt(events.position, last.position) : lt(events.position, last.position)) : undefined].filter((c): c is SQL => c !== undefined)))
      .orderBy(s.asc ? asc(events.position) : desc(events.position))
      .limit(n),
  );
  return rows as unknown as StoredEvent[];
}
