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
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type postgres from 'postgres';

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
   * Runs `work` in one transaction: committed when the promise it returns
   * resolves, rolled back when it rejects. Its resolved value must not be an
   * array (postgres.js would await its members).
   */
  transaction<T extends object | void>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
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

/** postgres.js: named prepared statements (see above), rows as objects. */
export function postgresSqlClient(client: postgres.Sql): SqlClient {
  const runner = (on: Pick<postgres.Sql, 'unsafe'>): SqlRunner => ({
    query<Row>(statement: SqlStatement) {
      // postgres.js queries are lazy; execute() sends it now, in call order.
      const pending = on.unsafe(statement.text, statement.params as postgres.ParameterOrJSON<never>[], { prepare: true });
      pending.execute();
      return pending as unknown as Promise<Row[]>;
    },
  });
  return {
    ...runner(client),
    transaction: (work) => client.begin((tx) => work(runner(tx))) as never,
  };
}

/** PGlite: one engine, statements run one at a time in the order they are sent. */
export function pgliteSqlClient(client: PGlite): SqlClient {
  const runner = (on: PGlite | Transaction): SqlRunner => ({
    async query<Row>(statement: SqlStatement) {
      return (await on.query<Row>(statement.text, statement.params as unknown[])).rows;
    },
  });
  return {
    ...runner(client),
    transaction: (work) => client.transaction((tx) => work(runner(tx))),
  };
}
