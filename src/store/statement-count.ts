// How many SQL statements and transactions this process sent to its database,
// counted where the drivers are called (./database.ts, ./pglite-database.ts,
// ./sql.ts, ./pglite-sql.ts): the one place every read and write passes,
// whichever of drizzle or the plain-SQL client made it. Two integer increments
// per statement; GET /metrics shows the totals
// (keyhold_sql_statements_total, keyhold_sql_transactions_total), and a
// difference over a known number of requests is their cost in statements — a
// figure that, unlike a time, does not depend on what else the machine runs.
// BEGIN and COMMIT are not statements here: they make the transaction count.

export interface StatementCount {
  /** Statements sent (BEGIN/COMMIT excluded), in or out of a transaction. */
  statements: number;
  /** Explicit transactions begun (drizzle's, and the plain-SQL client's atomic batches). */
  transactions: number;
}

export const newStatementCount = (): StatementCount => ({ statements: 0, transactions: 0 });
