// Structured JSON logs (pino). Anything that can carry a credential is
// redacted by path; handlers never log request bodies.
import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import type { Config } from './config.js';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.token',
  '*.clientSecret',
  '*.client_secret',
  '*.secret',
  '*.challenge',
  '*.password',
  // Node's URL errors (ERR_INVALID_URL) carry the whole string: a DATABASE_URL with its password.
  '*.input',
];

export function loggerOptions(config: Pick<Config, 'logLevel'>): LoggerOptions {
  return {
    level: config.logLevel,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { service: 'keyhold' },
  };
}

/**
 * Where a Keyhold process writes its log: standard output, in batches
 * (docs/performance.md, "Log lines written in batches"). A write per line,
 * each a system call handed to the thread pool, took 8% of the main thread at
 * VerifyU2FRegistration (PostgreSQL, c=64); lines now wait until 4 KiB are
 * pending or 100 ms have passed. pino writes what is pending synchronously
 * when the process exits (at its end, on process.exit after a fatal line); a
 * process killed outright loses at most its last 100 ms.
 */
export function logDestination(): DestinationStream {
  return pino.destination({ dest: 1, minLength: LOG_BATCH.bytes, periodicFlush: LOG_BATCH.ms });
}

export const LOG_BATCH = { bytes: 4096, ms: 100 } as const;
