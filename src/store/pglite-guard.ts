// PGlite after a PANIC: never call it again.
//
// PostgreSQL answers some storage failures with PANIC — above all a WAL
// segment it cannot create on a full disk ("could not write to file
// pg_wal/xlogtemp…: No space left on device"). A server restarts its backends
// and replays the WAL. PGlite reports the PANIC to the query that hit it and
// then its engine is gone: the next call into it spins synchronously for ever,
// blocking the event loop — the whole process, /healthz included, stops
// answering (measured on a full tmpfs: no timer ran for 5 minutes).
//
// So every call into the engine passes this guard: after a PANIC (or a FATAL,
// which ends the single-user backend too) it throws StorageUnavailable at once,
// and `failed` resolves so that the process can stop and be restarted — a start
// replays the WAL, which needs free space (measured: with the disk still full,
// PGlite fails to initialize; after freeing it, every acknowledged write was there).
import type { PGlite } from '@electric-sql/pglite';
import { StorageUnavailable, storageUnavailable } from './errors.js';

type Severity = { severity?: unknown };
const ENDS_ENGINE = new Set(['PANIC', 'FATAL']);

export interface EngineGuard {
  /** Set once the engine must not be entered again. */
  readonly failure: StorageUnavailable | undefined;
  /** Resolves with the failure, when there is one. */
  readonly failed: Promise<StorageUnavailable>;
}

/** Wraps `client`'s entry points (on the instance) and returns the guard's state. */
export function guardEngine(client: PGlite): EngineGuard {
  let failure: StorageUnavailable | undefined;
  let announce!: (err: StorageUnavailable) => void;
  const failed = new Promise<StorageUnavailable>((resolve) => (announce = resolve));

  const look = (error: unknown) => {
    if (failure || typeof error !== 'object' || error === null) return;
    if (!ENDS_ENGINE.has(String((error as Severity).severity))) return;
    const cause = storageUnavailable(error, 'the embedded database stopped');
    failure = new StorageUnavailable(cause.reason, `${cause.message}; it can be used again after a restart, which replays its log once there is space`);
    announce(failure);
  };

  // Every query, drizzle's and ours (pglite-sql.ts), enters the engine here, synchronously.
  const enter = client.execProtocolRawSync.bind(client);
  client.execProtocolRawSync = (message) => {
    if (failure) throw failure;
    return enter(message);
  };
  // Errors come back in the parsed answer (throwOnError: false) or thrown.
  const execProtocol = client.execProtocol.bind(client);
  client.execProtocol = async (message, options) => {
    try {
      const result = await execProtocol(message, options);
      for (const m of result.messages) if (m.name === 'error') look(m);
      return result;
    } catch (err) {
      look(err);
      throw err;
    }
  };
  const execProtocolStream = client.execProtocolStream.bind(client);
  client.execProtocolStream = async (message, options) => {
    try {
      const messages = await execProtocolStream(message, options);
      for (const m of messages) if (m.name === 'error') look(m);
      return messages;
    } catch (err) {
      look(err);
      throw err;
    }
  };

  return {
    get failure() {
      return failure;
    },
    failed,
  };
}
