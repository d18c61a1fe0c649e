// Plain parameterized SQL for the hot paths (appends, projections, the reads
// every AddOIDCApp and VerifyU2FRegistration makes), on either driver.
//
// Why not drizzle here: building a query with drizzle's builders cost more CPU
// than everything else in an append (bench/results: ~30% of the server's time
// in drizzle at 560 appends/s), and a statement's text never changes — only its
// values. So these statements are written once as SQL text with $n parameters;
// postgres.js keeps each text as a named prepared statement per connection, so
// after a connection's first use it is only Bind+Execute, pipelined.
// drizzle still owns the schema, the migrations and the cold queries.
import type postgres from 'postgres';
import type { StatementCount } from './statement-count.js';
import { reserveWithin, within } from './wait-bounds.js';

/** One statement: SQL text with $1…$n and its values, not yet sent. */
export interface SqlStatement {
  readonly text: string;
  readonly params: readonly unknown[];
}

export interface SqlRunner {
  /**
   * Sends the statement at once (statements sent one after another without
   * awaiting run in that order, pipelined) and resolves with its rows, keyed
   * by the column names or aliases of the text.
   */
  query<Row = Record<string, unknown>>(statement: SqlStatement): Promise<Row[]>;
}

export interface SqlClient extends SqlRunner {
  /**
   * Runs the statements in one transaction, in order, sent together (one round
   * trip after BEGIN on PostgreSQL, one call into the engine on PGlite), and
   * resolves with each statement's rows. If any fails, nothing is written and
   * it rejects with the first failure.
   */
  atomic(statements: readonly SqlStatement[]): Promise<unknown[][]>;
}

const BEGIN: SqlStatement = { text: 'begin', params: [] };
const COMMIT: SqlStatement = { text: 'commit', params: [] };

// Which of an atomic call's statements failed (0-based), for callers that ran
// several requests' statements in one transaction and must tell whose failed
// (group-commit.ts). Kept beside the error rather than on it: the error object
// stays the driver's own.
const failedStatements = new WeakMap<object, number>();

/** The index of the statement whose error rejected `atomic`, when the driver told which one it was. */
export function failedStatementIndex(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null ? failedStatements.get(err) : undefined;
}

/** Rejects with `err`, noting that statement `index` of `count` caused it (BEGIN and COMMIT are outside 0..count-1). */
export function failedAt(err: unknown, index: number, count: number): never {
  if (typeof err === 'object' && err !== null && index >= 0 && index < count) failedStatements.set(err, index);
  throw err;
}

/**
 * BEGIN, the statements, COMMIT settled: the first failure is the cause (later
 * statements only report the aborted transaction); else the statements' rows.
 */
function firstFailure(settled: readonly PromiseSettledResult<unknown[]>[]): unknown[][] {
  const at = settled.findIndex((s) => s.status === 'rejected');
  if (at >= 0) failedAt((settled[at] as PromiseRejectedResult).reason, at - 1, settled.length - 2);
  return settled.slice(1, -1).map((s) => (s as PromiseFulfilledResult<unknown[]>).value);
}

// A template's strings array is the same object at every call of one call
// site, so each statement text is built once.
const texts = new WeakMap<TemplateStringsArray, string>();

/**
 * A statement from a template: every `${value}` becomes the next $n parameter.
 * Casts go in the text after the placeholder (`${json}::text::jsonb`).
 *
 *   sql`select id from apps where id = ${appId}`
 */
export function sql(strings: TemplateStringsArray, ...params: unknown[]): SqlStatement {
  let text = texts.get(strings);
  if (text === undefined) {
    text = strings.reduce((built, part, i) => `${built}$${i}${part}`);
    texts.set(strings, text);
  }
  return { text, params };
}

/**
 * A timestamptz column as read by either driver: PGlite parses it, postgres.js
 * under drizzle hands over PostgreSQL's text (drizzle turns the driver's date
 * parsing off to do its own), e.g. "2026-11-21 18:36:19.533499+00".
 */
export function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

/** A read-model row with its created/changed timestamps as Dates, whichever driver read it. */
export function withDates<Row extends { createdAt: Date; changedAt: Date }>(row: Row | undefined): Row | undefined {
  return row && { ...row, createdAt: toDate(row.createdAt), changedAt: toDate(row.changedAt) };
}

/** postgres.js: named prepared statements (see above), rows as objects. */
export function postgresSqlClient(client: postgres.Sql, waitMs?: number, count?: StatementCount): SqlClient {
  const runner = (on: Pick<postgres.Sql, 'unsafe'>, bound?: number): SqlRunner => ({
    query<Row>(statement: SqlStatement) {
      if (count && statement !== BEGIN && statement !== COMMIT) count.statements++;
      // postgres.js queries are lazy; execute() sends it now, in call order.
      const pending = on.unsafe(statement.text, statement.params as postgres.ParameterOrJSON<never>[], { prepare: true });
      pending.execute();
      // On the pool, answered within the wait bound (./wait-bounds.ts); on a reserved connection, by the server's timeouts.
      if (bound !== undefined) return within(pending, bound, 'answer', () => void pending.cancel()) as unknown as Promise<Row[]>;
      return pending as unknown as unknown as Promise<Row[]>;
    },
  });
  return {
    ...runner(client, waitMs),
    /**
     * BEGIN, the statements and COMMIT go out together on a reserved
     * connection: one round trip and one write. (postgres.js' begin() waits
     * for BEGIN's answer before it runs the callback; under load that round
     * trip waited for a busy event loop too: 5–7 ms of a group commit's
     * ~20 ms.) If a statement fails, PostgreSQL aborts the transaction, fails
     * the statements after it and answers the COMMIT with a ROLLBACK: nothing
     * is written, and the first failure is the one reported. A connection
     * that closed meanwhile fails everything still waiting on it, and
     * release() leaves it to be reconnected (scripts/patch-postgres-js.mjs, 7).
     */
    async atomic(statements) {
      const connection = waitMs === undefined ? await client.reserve() : await reserveWithin(client, waitMs);
      if (count) count.transactions++;
      let settled: PromiseSettledResult<unknown[]>[];
      try {
        const on = runner(connection);
        const sent = [on.query<unknown>(BEGIN), ...statements.map((statement) => on.query<unknown>(statement)), on.query<unknown>(COMMIT)];
        settled = await Promise.allSettled(sent);
      } finally {
        connection.release();
      }
      return firstFailure(settled);
    },
  };
}
