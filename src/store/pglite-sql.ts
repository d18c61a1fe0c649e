// PGlite's side of ./sql.ts: the hot-path statements as extended-protocol
// messages into the embedded engine. Its own file, loaded with the rest of the
// PGlite adapter only when Keyhold runs on PGlite (./database.ts).
import { parse, protocol, type PGlite } from '@electric-sql/pglite';
import { failedAt, type SqlClient, type SqlStatement } from './sql.js';
import type { StatementCount } from './statement-count.js';

/** A parameter as PostgreSQL's text input: statements cast where the type is not the column's own. */
function textValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `{${value.map((v) => (v === null ? 'NULL' : `"${String(v).replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;
  return String(value); // numbers, bigints, booleans ('true'/'false')
}

/**
 * PGlite's locks and readiness check that pgliteSqlClient holds around its
 * batches. They are `_`-prefixed (not public API): PGlite's public
 * runExclusive() takes only the query lock, and a batch run under it alone
 * could land between the statements of a drizzle transaction (which holds the
 * transaction lock) and become part of it. Checked when the client is made, so
 * a PGlite upgrade that renames them stops the start with this message instead
 * of failing on the first request. Tested with @electric-sql/pglite 0.5.16.
 */
export const PGLITE_INTERNALS = ['_checkReady', '_runExclusiveTransaction', '_runExclusiveQuery'] as const;

export function assertPgliteInternals(client: object): void {
  const missing = PGLITE_INTERNALS.filter((name) => typeof (client as Record<string, unknown>)[name] !== 'function');
  if (missing.length > 0) {
    throw new Error(
      `this @electric-sql/pglite lacks ${missing.join(', ')}, which Keyhold's PGlite adapter holds around its statement batches ` +
        '(src/store/pglite-sql.ts, written for 0.5.16): install the version package-lock.json names, or adapt the adapter',
    );
  }
}

/**
 * PGlite: statements go to the engine as extended-protocol messages, all of
 * one call in ONE execProtocol with a single Sync. PGlite's own query() makes
 * six calls into the engine per statement (parse, describe, bind, describe,
 * execute, sync); profiles showed that dispatch, not the SQL, was most of
 * PGlite's time. Statements before one Sync form one implicit transaction: an
 * error rolls all of them back and the engine skips the rest up to the Sync.
 * Held under PGlite's own transaction and query locks, so nothing interleaves.
 */
export function pgliteSqlClient(client: PGlite, count?: StatementCount): SqlClient {
  assertPgliteInternals(client);
  // Statement text → the name it is prepared under in this PGlite. Each text is
  // parsed once, like postgres.js' named statements, instead of at every call:
  // for these short statements parsing was a large part of the engine's time
  // (bench, AddOIDCApp gRPC c=64, interleaved runs: 371–376/s with a Parse per
  // call, 476–594/s prepared; 3.24 → 2.34 ms server CPU per call).
  const prepared = new Map<string, string>();
  let named = 0;

  /**
   * Prepares the texts not prepared yet, in a call of their own: a failing
   * statement batch skips everything after its error, a Parse included, so a
   * name would otherwise be remembered that the engine never created.
   */
  async function prepareNew(statements: readonly SqlStatement[]): Promise<void> {
    const fresh = [...new Set(statements.map((s) => s.text).filter((text) => !prepared.has(text)))];
    if (fresh.length === 0) return;
    // Fresh names every time: Parses before a failing one in the same call still
    // create their statements (they outlive the rollback), so a failed call's
    // names must never be handed out again.
    const names = fresh.map(() => `kh_${++named}`);
    const parts = fresh.map((text, i) => protocol.serialize.parse({ text, name: names[i] }));
    parts.push(protocol.serialize.sync());
    await client.execProtocol(Buffer.concat(parts));
    fresh.forEach((text, i) => prepared.set(text, names[i]!));
  }

  async function batch(statements: readonly SqlStatement[]): Promise<unknown[][]> {
    // As query() does: a closed PGlite says so ("PGlite is closed") instead of failing inside the engine.
    await client._checkReady();
    if (count) count.statements += statements.length;
    const { messages } = await client._runExclusiveTransaction(() =>
      client._runExclusiveQuery(async () => {
        await prepareNew(statements);
        const parts: Uint8Array[] = [];
        for (const statement of statements) {
          parts.push(
            protocol.serialize.bind({ statement: prepared.get(statement.text), values: statement.params.map(textValue) }),
            protocol.serialize.describe({ type: 'P' }),
            protocol.serialize.execute({}),
          );
        }
        parts.push(protocol.serialize.sync());
        // Errors are looked for below, to tell which statement failed.
        return client.execProtocol(Buffer.concat(parts), { throwOnError: false });
      }),
    );
    const error = messages.findIndex((m) => m.name === 'error');
    if (error >= 0) {
      // Each statement before the failing one ended with its CommandComplete; the engine skipped the rest.
      const completed = messages.slice(0, error).filter((m) => m.name === 'commandComplete').length;
      failedAt(messages[error], completed, statements.length);
    }
    return parse.parseResults(messages, client.parsers).map((result) => result.rows);
  }
  return {
    async query<Row>(statement: SqlStatement) {
      return (await batch([statement]))[0] as Row[];
    },
    async atomic(statements) {
      if (count) count.transactions++;
      return batch(statements);
    },
  };
}
