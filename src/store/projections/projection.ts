// A projection keeps one read-model table in step with the events: a table from
// event type to the ONE statement that applies it (one row per statement), or
// none when that event, as it is, changes nothing there.
// Handlers build statements without running them; the event store sends them
// in order, pipelined behind the events insert, inside the append's transaction.
// Statements are plain SQL (../sql.ts): they run on every append.
import type { EventTypeName, NewEventOf } from '../../domain/events/index.js';
import type { SqlStatement } from '../sql.js';

/** An event as projections see it: sequence known, timestamp possibly not yet. */
export type ProjectableEvent<K extends EventTypeName> = NewEventOf<K> & {
  sequence: number;
  /**
   * The append's timestamp: a Date for stored events (replay), or null while
   * the append is in flight — statements then use now(), the transaction time
   * that events.created_at defaults to, so read models and events carry the
   * same instant. In SQL: `coalesce(${e.createdAt}::text::timestamptz, now())`.
   */
  createdAt: Date | null;
};

export type Handler<K extends EventTypeName> = (event: ProjectableEvent<K>) => SqlStatement | undefined;

export type Projection = { readonly [K in EventTypeName]?: Handler<K> };

// Statements that only move a row's version on (`update … set sequence = … where id = …`):
// they cannot fail and read nothing an append writes, so the events insert may carry
// one in its own statement (../append-statement.ts).
const ALONGSIDE = new WeakSet<SqlStatement>();
const CHECKED_TEXTS = new Set<string>();

/**
 * Marks `statement` as one that only moves a version on. Its text is checked once: no quoted
 * literal (the merge renumbers every `$n` in it) and a placeholder for each of its values.
 */
export function alongside(statement: SqlStatement): SqlStatement {
  if (!CHECKED_TEXTS.has(statement.text)) {
    const highest = Math.max(0, ...[...statement.text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    if (/['"]|\$\$/.test(statement.text) || highest !== statement.params.length) throw new TypeError(`not a statement that may run alongside an append: ${statement.text}`);
    CHECKED_TEXTS.add(statement.text);
  }
  ALONGSIDE.add(statement);
  return statement;
}

export const runsAlongside = (statement: SqlStatement): boolean => ALONGSIDE.has(statement);
