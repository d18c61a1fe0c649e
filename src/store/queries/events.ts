// The audit log's query (ListEvents): the events table by its filters, in
// position order from a cursor. Cold: drizzle builds it.
import { and, asc, desc, eq, gt, gte, inArray, lt, lte, sql as dsql, type SQL } from 'drizzle-orm';
import type { StoredEvent } from '../../domain/events/index.js';
import { entriesWithin, type EventSearch } from '../../domain/lists.js';
import type { Db } from '../database.js';
import { events } from '../schema.js';

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
  const order = s.asc ? asc(events.position) : desc(events.position);
  // Payloads can be large (an app's whole configuration), so the positions and
  // stored sizes come first and only the events that fit in s.maxBytes are read;
  // the cursor (the last position returned) goes on from there.
  const sized = await db
    .select({ position: events.position, bytes: dsql<number>`octet_length(${events.payload}::text)`.mapWith(Number) })
    .from(events)
    .where(and(...conditions.filter((c): c is SQL => c !== undefined)))
    .orderBy(order)
    .limit(s.limit);
  const positions = sized.slice(0, entriesWithin(sized.map((r) => r.bytes), s.maxBytes)).map((r) => r.position);
  if (positions.length === 0) return [];
  const rows = await db.select().from(events).where(inArray(events.position, positions)).orderBy(order);
  return rows as unknown as StoredEvent[];
}
