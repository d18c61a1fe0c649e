// Typed store errors. Callers map them to domain errors (409 ABORTED, 409
// APP_NAME_TAKEN, 503 …) without ever seeing SQL or driver internals.

// The two refusals of an append the commands act on are declared with the
// event store's port (src/commands/ports.ts); the store raises them.
import { ConcurrencyConflict, ReferenceViolation, UniqueViolation } from '../commands/ports.js';
export { ConcurrencyConflict, ReferenceViolation, UniqueViolation };

/** The database cannot be reached or refuses connections. */
export class DatabaseUnavailable extends Error {
  override readonly name = 'DatabaseUnavailable';
  constructor(message = 'the database is unavailable', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The database refused a write for want of storage: disk full (53100, ENOSPC),
 * read-only (25006, EROFS), an I/O or system error (class 58, EIO) — or the
 * embedded database stopped after such a failure. Retryable once an operator
 * freed space or the storage came back: 503 with its own reason, not a 500.
 */
export class StorageUnavailable extends Error {
  override readonly name = 'StorageUnavailable';
  constructor(
    readonly reason: 'STORAGE_FULL' | 'STORAGE_UNAVAILABLE',
    message: string,
  ) {
    super(message);
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

/**
 * The PGlite data directory, or a path under it, is open to the group or to
 * others and Keyhold cannot change that (another owner: EPERM; a read-only
 * mount: EROFS). PostgreSQL refuses such a data directory too.
 */
export class DataDirPermissions extends Error {
  override readonly name = 'DataDirPermissions';
  constructor(readonly dataDir: string, readonly path: string, readonly mode: number, readonly uid: number, readonly code: string) {
    const openTo = [mode & 0o070 ? 'its group' : '', mode & 0o007 ? 'other users' : ''].filter(Boolean).join(' and ');
    super(
      `Keyhold data directory ${dataDir} has invalid permissions: ${path} is mode 0${mode.toString(8)} (owner uid ${uid}), ` +
        `open to ${openTo}, and could not be changed (${code}). It must be accessible to its owner only ` +
        `(directories 0700, files 0600): run Keyhold as the owner of ${dataDir}, or fix it (chmod -R go-rwx ${dataDir}).`,
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
  detail?: unknown; // both: e.g. Key (org_id)=(…) is not present in table "orgs".
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

// A statement that outwaited its bound (./database.ts DATABASE_WAIT_BOUNDS):
// 57014 statement_timeout (or cancelled by Keyhold's own wait bound), 55P03
// lock_not_available (lock_timeout). The database did not answer in time: the
// same retryable 503 as one that cannot be reached, never a 500.
const timeoutCodes = new Set(['57014', '55P03']);

function isUnavailableCode(code: string): boolean {
  return (
    isConnectCode(code) ||
    timeoutCodes.has(code) ||
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
 * false): unavailable, not 500 INTERNAL.
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
 * Whether PostgreSQL broke a deadlock by aborting this transaction (40P01):
 * nothing of it was written, and running it again is PostgreSQL's own advice.
 */
export function isDeadlock(err: unknown): boolean {
  return driverError(err)?.code === '40P01';
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

// SQLSTATEs and errno codes of storage refusals, to their reason. Class 58 is
// matched as a whole below (system_error, io_error, undefined_file, duplicate_file).
const STORAGE_CODES: Readonly<Record<string, StorageUnavailable['reason']>> = {
  '53100': 'STORAGE_FULL', // disk_full
  ENOSPC: 'STORAGE_FULL', // the file layer's own errors
  EDQUOT: 'STORAGE_FULL',
  '25006': 'STORAGE_UNAVAILABLE', // read_only_sql_transaction (a standby, default_transaction_read_only)
  EROFS: 'STORAGE_UNAVAILABLE',
  EIO: 'STORAGE_UNAVAILABLE',
};

/** The storage reason of a driver error, if it is a storage refusal. */
function storageReason(code: string): StorageUnavailable['reason'] | undefined {
  return STORAGE_CODES[code] ?? (code.startsWith('58') ? 'STORAGE_UNAVAILABLE' : undefined);
}

/** Whether `err` (a driver error, possibly wrapped by drizzle) is a storage refusal. */
export function isStorageRefusal(err: unknown): boolean {
  if (err instanceof StorageUnavailable) return true;
  const code = driverError(err)?.code;
  return typeof code === 'string' && storageReason(code) !== undefined;
}

/**
 * StorageUnavailable for a driver error, keeping only its code and message
 * (as databaseUnavailable does: drizzle's wrapper quotes SQL and parameters).
 */
export function storageUnavailable(err: unknown, what = 'the database refused to write'): StorageUnavailable {
  if (err instanceof StorageUnavailable) return err;
  const e = driverError(err) as (DriverError & { message?: unknown }) | undefined;
  const code = typeof e?.code === 'string' ? e.code : '';
  const detail = [code, typeof e?.message === 'string' ? e.message.slice(0, 200) : undefined].filter(Boolean).join(': ');
  return new StorageUnavailable(storageReason(code) ?? 'STORAGE_UNAVAILABLE', `${what} (${detail || 'no driver detail'})`);
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
  if (err instanceof ConcurrencyConflict || err instanceof UniqueViolation || err instanceof DatabaseUnavailable || err instanceof StorageUnavailable) {
    return err;
  }
  const e = driverError(err);
  if (!e || typeof e.code !== 'string') return err;
  // Before isUnavailable: a full disk can come as a PANIC, which would read as a lost connection.
  if (storageReason(e.code)) return storageUnavailable(err);
  if (e.code === '23505') {
    const constraint = String(e.constraint_name ?? e.constraint ?? '');
    return constraint === EVENTS_SEQUENCE_KEY ? new ConcurrencyConflict() : new UniqueViolation(constraint);
  }
  // A foreign key (migration 0026): on the referenced table (the row was being deleted) or on a new row.
  // Both drivers name the referring table; the detail tells a delete ("is still referenced from") from a new row ("is not present in").
  if (e.code === '23503') {
    const detail = String(e.detail ?? '');
    const key = /\)=\(([^)]*)\)/.exec(detail)?.[1] ?? '';
    return new ReferenceViolation(String(e.constraint_name ?? e.constraint ?? ''), detail.includes('still referenced'), key);
  }
  if (e.code === '40001' || e.code === '40P01') return new ConcurrencyConflict();
  if (isUnavailable(e)) return databaseUnavailable(err);
  return err;
}
