// How a Keyhold process ends on SIGTERM or SIGINT: it drains (stops accepting,
// lets requests under way finish, closes the database), and exits when that is
// done. Draining waits on things outside the process — a database that stopped
// answering, a migration lock another process holds during the start — so it
// has a deadline: past KEYHOLD_SHUTDOWN_TIMEOUT_SECONDS after the first signal
// the process exits anyway, with status 1 and a line saying so. A second signal
// exits at once (128 + its number, as a shell reports it), for an operator who
// will not wait. A signal during the start is held until the start ends, and
// its deadline runs from the signal, not from the end of the start.
import { constants } from 'node:os';
import type { Logger } from 'pino';

export interface ShutdownOptions {
  log: Logger;
  timeoutMs: number;
  /** Ends the process; process.exit outside tests. */
  exit: (code: number) => void;
}

export interface Shutdown {
  /** A signal arrived: drain once there is something to drain, exit at the deadline, or at once if it is the second. */
  signal(signal: NodeJS.Signals): void;
  /** The server started: a signal held meanwhile drains it now. */
  started(stop: () => Promise<void>): void;
  /** Ends the process with `code` after draining (a storage failure); a signal still shortens it. */
  drain(code: number): void;
}

export function shutdownOnSignals({ log, timeoutMs, exit }: ShutdownOptions): Shutdown {
  let stop: (() => Promise<void>) | undefined;
  let requested: number | undefined;
  let draining = false;
  let signals = 0;

  const beginDrain = () => {
    if (draining || requested === undefined || !stop) return;
    draining = true;
    const code = requested;
    stop().then(
      () => exit(code),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        exit(code || 1);
      },
    );
  };

  const request = (code: number) => {
    if (requested !== undefined) return;
    requested = code;
    const deadline = setTimeout(() => {
      log.error({ timeoutSeconds: timeoutMs / 1000 }, 'shutdown did not finish within KEYHOLD_SHUTDOWN_TIMEOUT_SECONDS; exiting without waiting any longer');
      exit(1);
    }, timeoutMs);
    void deadline;
    beginDrain();
  };

  return {
    signal(signal) {
      signals += 1;
      if (signals > 1) {
        log.warn({ signal }, 'second signal: exiting without waiting for the drain');
        exit(128 + (constants.signals[signal] ?? 0));
        return;
      }
      log.info({ signal, timeoutSeconds: timeoutMs / 1000 }, stop ? 'draining and shutting down' : 'signal during the start: shutting down once it ends');
      request(0);
    },
    started(s) {
      stop = s;
      beginDrain();
    },
    drain(code) {
      request(code);
    },
  };
}
