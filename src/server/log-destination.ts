// Where the server's log lines go: standard output, written once per turn of
// the event loop instead of once per line. Under load one turn answers many
// requests; a write(2) per line took 7% of the main thread at
// VerifyU2FRegistration (PostgreSQL, c=64). The measured gain, and why not
// pino's own batching: docs/performance.md, "Log lines written once a turn".
//
// The lines of a turn are written at its end (setImmediate), synchronously:
// a full pipe (EAGAIN) is waited on, as a write per line waited; a reader that
// has gone (EPIPE) ends the logging; any other failure (a full disk) drops
// that turn's lines and the next turn tries again. No failure is retried, so
// neither a request nor an exit loops on its log; the server keeps answering
// with its log lost, as Go's and Java's console loggers do. At process exit
// the lines still waiting are written the same way. A kill -9 or an abort
// takes the current turn's lines with it, at most.
import { writeSync } from 'node:fs';

/** What pino needs of a destination. */
export interface LogDestination {
  write(line: string): void;
  /** Writes what waits now (pino's logger.flush). */
  flush(done?: (err?: Error) => void): void;
}

/** How long a full pipe is waited on before the next try (pino's default destination waits as long). */
const FULL_PIPE_WAIT_MS = 100;

/** The system calls, replaceable in tests. */
export interface DestinationIo {
  fd: number;
  write: (fd: number, bytes: Uint8Array, offset: number) => number;
  sleep: (ms: number) => void;
}

const SYSTEM: DestinationIo = {
  fd: 1,
  write: (fd, bytes, offset) => writeSync(fd, bytes, offset),
  sleep: (ms) => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms),
};

export function turnBatchedDestination(io: Partial<DestinationIo> = {}): LogDestination {
  const { fd, write, sleep } = { ...SYSTEM, ...io };
  let waiting = '';
  let scheduled = false;
  let closed = false; // the reader went away

  /** Writes the waiting lines; the failure that dropped them, if one did. */
  function writeWaiting(): Error | undefined {
    scheduled = false;
    if (waiting.length === 0) return undefined;
    const bytes = Buffer.from(waiting);
    waiting = '';
    let at = 0;
    while (at < bytes.length && !closed) {
      try {
        at += write(fd, bytes, at);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EBUSY') sleep(FULL_PIPE_WAIT_MS);
        else {
          if (code === 'EPIPE') closed = true;
          return e as Error;
        }
      }
    }
    return undefined;
  }

  process.on('exit', writeWaiting);

  return {
    write(line) {
      if (closed) return;
      waiting += line;
      if (!scheduled) {
        scheduled = true;
        setImmediate(writeWaiting);
      }
    },
    flush(done) {
      const failed = writeWaiting();
      done?.(failed);
    },
  };
}
