// Server-side errors, logged once per interval per kind, with a count.
//
// Why: with the disk full, every write failed the same way and each failure
// logged a full stack — 15.7 MB of log in 15 s, onto the full disk. During a
// database outage it was the same flood. An operator needs the first
// occurrence (with its stack) and how often it recurred, not every copy.
//
// A kind is (what failed, the error's name and message up to a driver's code): the first of a kind is
// logged at once; further ones within `intervalMs` are counted, and at the end
// of the interval one line says how many there were (without a stack). A kind
// that recurs keeps getting one line per interval; one that stopped is
// forgotten. At most `maxKinds` kinds are tracked: past that, errors are logged
// one by one again (kinds are bounded by code paths, so this is a safety net).
import type { Logger } from 'pino';

/** How often a recurring kind of error gets its count line, unless the caller says otherwise. */
export const REPEATED_ERROR_INTERVAL_MS = 10_000;

export interface RepeatedErrorLog {
  /** Logs `err` at error level with `fields`, or counts it when its kind was logged within the interval. */
  error(err: unknown, fields: Record<string, unknown>, msg: string): void;
  /** Logs the counts still pending (at shutdown) and forgets every kind. */
  flush(): void;
}

export interface RepeatedErrorLogOptions {
  intervalMs?: number;
  maxKinds?: number;
}

interface Kind {
  fields: Record<string, unknown>;
  err: { type: string; message: string };
  msg: string;
  repeated: number;
  timer: NodeJS.Timeout;
}

function describe(err: unknown): { type: string; message: string } {
  if (err instanceof Error) return { type: err.name, message: err.message };
  return { type: typeof err, message: String(err) };
}

/**
 * The message as a kind: up to a driver's code ("… (ECONNRESET: read
 * ECONNRESET 127.0.0.1:5432)" → "… (ECONNRESET)"), since the detail after it
 * (read or write, the connection's port) differs from one failure to the next.
 */
const kindOf = (message: string) => message.replace(/ \(([A-Z0-9_]+): [^()]*\)$/, ' ($1)');

export function repeatedErrorLog(log: Logger, options: RepeatedErrorLogOptions = {}): RepeatedErrorLog {
  const intervalMs = options.intervalMs ?? REPEATED_ERROR_INTERVAL_MS;
  const maxKinds = options.maxKinds ?? 1_000;
  const kinds = new Map<string, Kind>();

  function summarize(key: string, kind: Kind): void {
    // Without a constructor, pino's serializer types it by `name`, as it typed the first line; no stack.
    const err = Object.assign(Object.create(null) as object, { name: kind.err.type, message: kind.err.message });
    log.error(
      { ...kind.fields, err, repeated: kind.repeated, intervalMs },
      `${kind.msg} (${kind.repeated} more time${kind.repeated === 1 ? '' : 's'} in the last ${intervalMs / 1000} s)`,
    );
    kind.repeated = 0;
  }

  function endOfInterval(key: string): void {
    const kind = kinds.get(key);
    if (!kind) return;
    if (kind.repeated === 0) {
      kinds.delete(key);
      return;
    }
    summarize(key, kind);
    kind.timer = setTimeout(endOfInterval, intervalMs, key).unref();
  }

  return {
    error(err, fields, msg) {
      const described = describe(err);
      const key = `${msg}\u0000${JSON.stringify(fields)}\u0000${described.type}\u0000${kindOf(described.message)}`;
      const kind = kinds.get(key);
      if (kind) {
        kind.repeated++;
        return;
      }
      log.error({ ...fields, err }, msg);
      if (kinds.size >= maxKinds) return;
      kinds.set(key, { fields, err: described, msg, repeated: 0, timer: setTimeout(endOfInterval, intervalMs, key).unref() });
    },
    flush() {
      for (const [key, kind] of kinds) {
        clearTimeout(kind.timer);
        if (kind.repeated > 0) summarize(key, kind);
      }
      kinds.clear();
    },
  };
}
