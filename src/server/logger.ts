// Structured JSON logs (pino). Anything that can carry a credential is
// redacted by path; handlers never log request bodies.
import type { LoggerOptions } from 'pino';
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
