// A projection keeps one read-model table in step with the events: a table from
// event type to the ONE statement that applies it (one row per statement).
// Handlers build statements without running them; the event store sends them
// in order, pipelined behind the events insert, inside the append's transaction.
import type { QueryPromise, SQL } from 'drizzle-orm';
import type { Db } from '../database.js';
import type { EventTypeName, NewEventOf } from '../events.js';

/** An event as projections see it: sequence known, timestamp possibly still SQL. */
export type ProjectableEvent<K extends EventTypeName> = NewEventOf<K> & {
  sequence: number;
  /**
   * The append's timestamp: a Date for stored events, or `now()` while the
   * append is in flight — the transaction time that events.created_at defaults
   * to, so read models and events carry the same instant.
   */
  createdAt: Date | SQL;
};

/**
 * A drizzle statement that has not run yet. Typed as QueryPromise (not Promise)
 * so a handler cannot be an async function that starts work out of order.
 */
export type Statement = QueryPromise<unknown>;

export type Handler<K extends EventTypeName> = (tx: Db, event: ProjectableEvent<K>) => Statement;

export type Projection = { readonly [K in EventTypeName]?: Handler<K> };
