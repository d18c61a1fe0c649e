// Configuration from the environment (README "Configuration"). Parsed once at
// start; a bad value stops the process with a message naming the variable.
import path from 'node:path';
import { DEFAULT_LIMITS, type ListenerLimits } from './listener.js';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  adminPatFile: string;
  webauthn: {
    rpIds: string[];
    origins: string[];
    rpName: string;
    attestation: 'none' | 'direct';
    timeoutMs: number;
    /** Worker threads that verify registrations; 0 verifies on the event loop (server/verification-threads.ts). */
    verifyThreads: number;
    /** True when origins were not configured: start.ts fills in the real port once listening. */
    originsDefaulted: boolean;
  };
  corsOrigins: string[];
  tls?: { certFile: string; keyFile: string };
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Largest accepted request body; must exceed the 1 MiB credential bound plus framing. */
  bodyLimitBytes: number;
  /** Requests per second and burst per token and per client IP; 0 disables. */
  rateLimit: { perSecond: number; burst: number };
  /** Connection limits of the listener: timeouts, header size, HTTP/2 streams. */
  limits: ListenerLimits;
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function origin(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `"${value}" is not an origin like https://login.example.com`);
  }
  if (url.origin === 'null' || url.origin !== value.replace(/\/$/, '')) {
    throw new ConfigError(name, `"${value}" must be a bare origin (scheme://host[:port]) without path`);
  }
  return url.origin;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'KEYHOLD_PORT', 8080, 0, 65535);
  const dataDir = path.resolve(env.KEYHOLD_DATA_DIR || '.keyhold');
  const rpIds = list(env.KEYHOLD_WEBAUTHN_RP_IDS);
  for (const id of rpIds) {
    if (!/^[a-z0-9.-]+$/i.test(id)) throw new ConfigError('KEYHOLD_WEBAUTHN_RP_IDS', `"${id}" is not a domain name`);
  }
  const origins = list(env.KEYHOLD_WEBAUTHN_ORIGINS).map((o) => origin('KEYHOLD_WEBAUTHN_ORIGINS', o));
  const corsOrigins = list(env.KEYHOLD_CORS_ORIGINS).map((o) => (o === '*' ? o : origin('KEYHOLD_CORS_ORIGINS', o)));
  const certFile = env.KEYHOLD_TLS_CERT || undefined;
  const keyFile = env.KEYHOLD_TLS_KEY || undefined;
  if (!!certFile !== !!keyFile) {
    throw new ConfigError(certFile ? 'KEYHOLD_TLS_KEY' : 'KEYHOLD_TLS_CERT', 'TLS needs both KEYHOLD_TLS_CERT and KEYHOLD_TLS_KEY');
  }
  const logLevel = (env.KEYHOLD_LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('KEYHOLD_LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const attestation = (env.KEYHOLD_WEBAUTHN_ATTESTATION || 'none') as 'none' | 'direct';
  if (attestation !== 'none' && attestation !== 'direct') {
    throw new ConfigError('KEYHOLD_WEBAUTHN_ATTESTATION', 'must be "none" or "direct"');
  }
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
  }
  const scheme = certFile ? 'https' : 'http';
  return {
    port,
    host: env.KEYHOLD_HOST || '127.0.0.1',
    dataDir,
    databaseUrl,
    adminPatFile: path.resolve(env.KEYHOLD_ADMIN_PAT_FILE || path.join(dataDir, 'admin.pat')),
    webauthn: {
      rpIds: rpIds.length ? rpIds : ['localhost'],
      origins: origins.length ? origins : [`${scheme}://localhost:${port}`],
      rpName: env.KEYHOLD_WEBAUTHN_RP_NAME || 'Keyhold',
      attestation,
      timeoutMs: integer(env, 'KEYHOLD_WEBAUTHN_TIMEOUT_MS', 300_000, 1_000, 600_000),
      verifyThreads: integer(env, 'KEYHOLD_WEBAUTHN_VERIFY_THREADS', 1, 0, 64),
      originsDefaulted: origins.length === 0,
    },
    corsOrigins,
    tls: certFile && keyFile ? { certFile, keyFile } : undefined,
    logLevel,
    bodyLimitBytes: 2 * 1024 * 1024,
    rateLimit: {
      perSecond: integer(env, 'KEYHOLD_RATE_LIMIT_PER_SECOND', 0, 0, 1_000_000),
      burst: integer(env, 'KEYHOLD_RATE_LIMIT_BURST', 0, 0, 1_000_000),
    },
    limits: {
      keepAliveTimeoutMs: integer(env, 'KEYHOLD_KEEP_ALIVE_TIMEOUT_MS', DEFAULT_LIMITS.keepAliveTimeoutMs, 100, 3_600_000),
      headersTimeoutMs: integer(env, 'KEYHOLD_HEADERS_TIMEOUT_MS', DEFAULT_LIMITS.headersTimeoutMs, 100, 600_000),
      requestTimeoutMs: integer(env, 'KEYHOLD_REQUEST_TIMEOUT_MS', DEFAULT_LIMITS.requestTimeoutMs, 100, 3_600_000),
      maxHeaderBytes: integer(env, 'KEYHOLD_MAX_HEADER_BYTES', DEFAULT_LIMITS.maxHeaderBytes, 1024, 1_048_576),
      maxConcurrentStreams: integer(env, 'KEYHOLD_MAX_CONCURRENT_STREAMS', DEFAULT_LIMITS.maxConcurrentStreams, 1, 100_000),
    },
  };
}
