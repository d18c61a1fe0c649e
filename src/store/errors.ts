// Typed store errors. Callers map them to domain errors (409 ABORTED, 409
// APP_NAME_TAKEN, 503 …) without ever seeing SQL or driver internals.

/** Another writer appended to one of the aggregates first; reload and retry. */
export class ConcurrencyConflict extends Error {
  override readonly name = 'ConcurrencyConflict';
  constructor(message = 'the aggregate was changed concurrently') {
    super(message);
  }
}

/** A read-model unique index was violated; `constraint` names it (e.g. `apps_project_name_key`). */
export class UniqueViolation extends Error {
  override readonly name = 'UniqueViolation';
  constructor(readonly constraint: string) {
    super(`unique constraint ${constraint} violated`);
  }
}

/** The database cannot be reached or refuses connections. */
export class DatabaseUnavailable extends Error {
  override readonly name = 'DatabaseUnavailable';
  constructor(message = 'the database is unavailable', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Another live process holds the PGlite data directory. */
export class DataDirLocked extends Error {
  override readonly name = 'DataDirLocked';
  constructor(readonly dataDir: string, readonly pid: number) {
    super(
      `Keyhold data directory ${dataDir} is in use by process ${pid} ` +
        `(lock file ${dataDir}/keyhold.lock); one process owns a PGlite directory. ` +
        `Stop that process, choose another KEYHOLD_DATA_DIR, or set DATABASE_URL to share PostgreSQL. ` +
        `If no Keyhold process is running there, delete the lock file.`,
    );
  }
}

/** The name of the unique key that guards per-aggregate sequences. */
export const EVENTS_SEQUENCE_KEY = 'events_aggregate_sequence_key';

interface DriverError {
  code?: unknown;
  severity?: unknown; // postgres.js and PGlite: ERROR, FATAL, PANIC
  constraint?: unknown; // PGlite
  constraint_name?: unknown; // postgres.js
  cause?: unknown;
}

/** drizzle wraps driver errors (DrizzleQueryError); walk `cause` to the one carrying a code. */
function driverError(err: unknown): DriverError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const e = current as DriverError;
    if (typeof e.code === 'string') return e;
    current = e.cause;
  }
  return undefined;
}

// Failures to open a connection at all (as opposed to losing one that worked):
// Node socket errors and postgres.js' own codes.
const connectCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'CONNECT_TIMEOUT', 'CONNECTION_ENDED']);
// Losing a connection that worked.
const lostCodes = new Set(['ECONNRESET', 'EPIPE', 'CONNECTION_CLOSED', 'CONNECTION_DESTROYED']);

function isConnectCode(code: string): boolean {
  return (
    connectCodes.has(code) ||
    code.startsWith('28') || // invalid authorization
    code === '3D000' || // database does not exist
    code === '53300' || // too many connections
    code === '57P03' // cannot connect now (starting up)
  );
}

function isUnavailableCode(code: string): boolean {
  return (
    isConnectCode(code) ||
    lostCodes.has(code) ||
    code.startsWith('08') || // connection exception
    code === '57P01' || // admin shutdown
    code === '57P02' // crash shutdown
  );
}

/**
 * Whether `err` means the database could not be reached. Besides the codes
 * above, any FATAL (or PANIC) from the server counts: it ends the session, and
 * nothing that was running on it can be reported as done. That covers
 * refusals at connection start whose code is generic — e.g. 55000 "database …
 * is not currently accepting connections" (ALTER DATABASE … ALLOW_CONNECTIONS
 * false), which used to surface as 500 INTERNAL.
 */
export function isUnavailable(err: unknown): boolean {
  const e = driverError(err);
  return typeof e?.code === 'string' && (isUnavailableCode(e.code) || e.severity === 'FATAL' || e.severity === 'PANIC');
}

/**
 * Whether `err` says the database cannot be connected to right now (refused,
 * silent, unknown host, ended pool, no such database, too many connections,
 * starting up, authentication) — not that one working connection died:
 * whatever waits for the database now would meet the same.
 */
export function cannotConnect(err: unknown): boolean {
  const code = driverError(err)?.code;
  return typeof code === 'string' && isConnectCode(code);
}

/**
 * Whether `err` is a refusal every write would get, whichever request it came
 * from: a read-only database (class 25, e.g. 25006 after a failover to a
 * standby), out of resources (53: disk full, memory), a system or I/O error
 * (58). Group commit fails a whole shared transaction's members with it
 * instead of re-running them to find "the" member at fault.
 */
export function refusesEveryWrite(err: unknown): boolean {
  const code = driverError(err)?.code;
  return typeof code === 'string' && (code.startsWith('25') || code.startsWith('53') || code.startsWith('58'));
}

/**
 * DatabaseUnavailable for a driver error. It keeps the driver's code and
 * message ("write CONNECTION_CLOSED 127.0.0.1:5432", "terminating connection
 * due to administrator command") and drops the rest: drizzle's wrapper quotes
 * the SQL with its parameters — event payloads with secret hashes, WebAuthn
 * challenges — and this error is what gets logged.
 */
export function databaseUnavailable(err: unknown, what = 'the database is unavailable'): DatabaseUnavailable {
  if (err instanceof DatabaseUnavailable) return err;
  const e = driverError(err) as (DriverError & { message?: unknown }) | undefined;
  const detail = e ? [e.code, typeof e.message === 'string' ? e.message.slice(0, 200) : undefined].filter(Boolean).join(': ') : 'no driver detail';
  return new DatabaseUnavailable(`${what} (${detail})`);
}

/**
 * Translate a driver error into a store error, or return it unchanged.
 * Serialization failures and deadlocks count as conflicts: retrying is the fix.
 */
export function toStoreError(err: unknown): unknown {
  if (err instanceof ConcurrencyConflict || err instanceof UniqueViolation || err instanceof DatabaseUnavailable) {
    return err;
  }
  const e = driverError(err);
  if (!e || typeof e.code !== 'string') return err;
  if (e.code === '23505') {
    const constraint = String(e.constraint_name ?? e.constraint ?? '');
    return constraint === EVENTS_SEQUENCE_KEY ? new ConcurrencyConflict() : new UniqueViolation(constraint);
  }
  if (e.code === '40001' || e.code === '40P01') return new ConcurrencyConflict();
  if (isUnavailable(e)) return databaseUnavailable(err);
  return err;
}
