// A projection keeps one read-model table in step with the events: a table from
// event type to the statement that applies it. Handlers run inside the append's
// transaction, one statement per affected row, so reads after a write see it.
import type { Db } from '../database.js';
import type { EventTypeName, StoredEventOf } from '../events.js';

export type Handler<K extends EventTypeName> = (tx: Db, event: StoredEventOf<K>) => PromiseLike<unknown>;

export type Projection = { readonly [K in EventTypeName]?: Handler<K> };
