// Configuration from the environment (docs/configuration.md). Parsed once at
// start; a bad value stops the process with a message naming the variable.
import type { SmtpSettings, SmtpTls } from '../mail/smtp.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isIP } from 'node:net';
import { DEFAULT_MAX_PENDING_PER_USER } from '../domain/u2f/decider.js';
import { originsOfRpId } from '../domain/webauthn/relying-party.js';
import { DEFAULT_LIMITS, type ListenerLimits } from './http/listener.js';
import { parseProxyRange, type ProxyRange } from './http/trusted-proxies.js';
import { SECRET_FILE_VARIABLES } from './config-variables.js';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  /** KEYHOLD_PGLITE_SHARED_BUFFERS: PGlite's buffer pool, resident from the start (store/pglite-open.ts). */
  pgliteSharedBuffers: string;
  /** KEYHOLD_DATABASE_POOL_SIZE: PostgreSQL connections this process keeps (store/database.ts). */
  databasePoolSize: number;
  /** How long a SIGTERM's drain may take before the process exits anyway (server/shutdown.ts). */
  shutdownTimeoutSeconds: number;
  /** Seconds without a request after which the grown heap is collected; 0: never (idle-collection.ts). */
  idleCollectSeconds: number;
  adminPatFile: string;
  webauthn: {
    rpIds: string[];
    origins: string[];
    rpName: string;
    attestation: 'none' | 'direct';
    timeoutMs: number;
    /** Worker threads that verify registrations; 0 verifies on the event loop (server/verification-threads.ts). */
    verifyThreads: number;
    /** True when neither origins nor the issuer were configured: the WebAuthn settings name the port listened on instead (start.ts webauthnSettings). */
    originsDefaulted: boolean;
    /** Pending registrations per user; RegisterU2F beyond it replaces the oldest (domain/u2f/decider.ts). */
    maxPendingPerUser: number;
    /** How long an expired registration stays listed (EXPIRED) before the sweep deletes its row (server/housekeeping.ts). */
    expiredKeptMs: number;
  };
  corsOrigins: string[];
  /** KEYHOLD_SMTP_*: undefined without KEYHOLD_SMTP_URL (nothing is mailed; mail/smtp.ts NO_MAIL). */
  smtp?: SmtpSettings;
  /** KEYHOLD_IDP_PRIVATE_NETWORKS=allow: other identity providers may be reached over http and at addresses that are not public (server/idp/guarded-fetch.ts). */
  idpPrivateNetworks: boolean;
  /** KEYHOLD_TRUSTED_PROXIES: the only peers whose X-Forwarded-For is believed (trusted-proxies.ts); none by default. */
  trustedProxies: ProxyRange[];
  tls?: { certFile: string; keyFile: string };
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Largest accepted request body; must exceed the 1 MiB credential bound plus framing. */
  bodyLimitBytes: number;
  /** Requests per second and burst per token and per client IP; 0 disables. */
  rateLimit: { perSecond: number; burst: number };
  /** Connection limits of the listener: timeouts, header size, HTTP/2 streams. */
  limits: ListenerLimits;
  /** Whether GET /metrics answers (Prometheus, unauthenticated: README Operations). */
  metrics: boolean;
  /** Where the built console is served from (console/dist; tests serve a build of their own). Not an environment variable. */
  consoleDir?: string;
  /** The OpenID Provider (src/server/oidc). */
  oidc: {
    /** KEYHOLD_ISSUER; undefined: `http(s)://localhost:<port>` once the port is known. */
    issuer?: string;
    /** KEYHOLD_MASTERKEY; undefined on the embedded default: generated into `<dataDir>/masterkey`. */
    masterKey?: string;
    /** Where the generated master key lives (embedded default only). */
    masterKeyFile: string;
    /** Signing-key rotation: every `rotationSeconds`, the successor published `aheadSeconds` before use. */
    keyRotation: { rotationSeconds: number; aheadSeconds: number };
    /** Token and session lifetimes in seconds (ZITADEL's defaults). */
    lifetimes: { accessToken: number; idToken: number; refreshIdle: number; refreshAbsolute: number; session: number; deviceCode: number; devicePollInterval: number };
  };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

/** Reads a file named by a `<NAME>_FILE` variable (a parameter so that tests need no files). */
export type ReadFile = (file: string) => string;

/** A secret read from a file: the `_FILE` variable that named it and its path. */
export interface SecretFile {
  variable: string;
  path: string;
}

/**
 * The secret-bearing variables given as files (`KEYHOLD_MASTERKEY_FILE=/run/secrets/masterkey`,
 * as container secrets are mounted): each file's content without one trailing
 * newline (what `echo` and most editors add). Setting a variable and its file
 * both is refused: which should win is a guess, and a stale one of the two
 * would go unnoticed. Errors name the variable and the path, never the content.
 */
export function secretsFromFiles(env: Env, readFile: ReadFile = (file) => readFileSync(file, 'utf8')): { values: Record<string, string>; files: Record<string, SecretFile> } {
  const values: Record<string, string> = {};
  const files: Record<string, SecretFile> = {};
  for (const name of SECRET_FILE_VARIABLES) {
    const fileVariable = `${name}_FILE`;
    const file = env[fileVariable];
    const direct = env[name];
    if (!file) continue;
    if (direct) throw new ConfigError(fileVariable, `${name} and ${fileVariable} are both set; set only one of them`);
    let content: string;
    try {
      content = readFile(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new ConfigError(fileVariable, `cannot read "${file}"${code ? ` (${code})` : ''}`);
    }
    content = content.replace(/\r?\n$/, '');
    if (content === '') throw new ConfigError(fileVariable, `"${file}" is empty`);
    values[name] = content;
    files[name] = { variable: fileVariable, path: file };
  }
  return { values, files };
}

/** The environment with the secrets read from files in place of their variables. */
function withSecrets(env: Env, values: Record<string, string>): Env {
  return new Proxy(env, {
    get: (target, key) => (typeof key === 'string' && Object.hasOwn(values, key) ? values[key] : Reflect.get(target, key)),
  });
}

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

/** KEYHOLD_IDLE_COLLECT_SECONDS's default (idle-collection.ts). */
export const DEFAULT_IDLE_COLLECT_SECONDS = 20;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The configuration, from the environment and the files its `_FILE` variables name. */
export function loadConfig(env: Env = process.env, readFile?: ReadFile): Config {
  return loadConfigAndFiles(env, readFile).config;
}

/** loadConfig, and which secrets came from files (for `keyhold config`). */
export function loadConfigAndFiles(env: Env = process.env, readFile?: ReadFile): { config: Config; files: Record<string, SecretFile> } {
  const { values, files } = secretsFromFiles(env, readFile);
  try {
    return { config: configFrom(withSecrets(env, values)), files };
  } catch (e) {
    // A bad value read from a file: say which file (the value itself is never quoted).
    const file = e instanceof ConfigError ? files[e.variable] : undefined;
    if (file && e instanceof ConfigError) throw new ConfigError(e.variable, `${e.problem} (read from ${file.variable}, "${file.path}")`);
    throw e;
  }
}

function configFrom(env: Env): Config {
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
  const pgliteSharedBuffers = (env.KEYHOLD_PGLITE_SHARED_BUFFERS || '16MB').trim();
  const buffers = /^(\d+)(kB|MB|GB)$/.exec(pgliteSharedBuffers);
  const buffersKb = buffers ? Number(buffers[1]) * { kB: 1, MB: 1024, GB: 1024 * 1024 }[buffers[2] as 'kB' | 'MB' | 'GB'] : NaN;
  if (!(buffersKb >= 128 && buffersKb <= 4 * 1024 * 1024)) {
    throw new ConfigError('KEYHOLD_PGLITE_SHARED_BUFFERS', `must be a size from 128kB to 4GB such as 16MB or 128MB, got "${pgliteSharedBuffers}"`);
  }
  const metrics = (env.KEYHOLD_METRICS || 'on').trim().toLowerCase();
  if (metrics !== 'on' && metrics !== 'off') throw new ConfigError('KEYHOLD_METRICS', `must be "on" or "off", got "${env.KEYHOLD_METRICS}"`);
  const idpNetworks = (env.KEYHOLD_IDP_PRIVATE_NETWORKS || 'refuse').trim().toLowerCase();
  if (idpNetworks !== 'allow' && idpNetworks !== 'refuse') throw new ConfigError('KEYHOLD_IDP_PRIVATE_NETWORKS', `must be "allow" or "refuse", got "${env.KEYHOLD_IDP_PRIVATE_NETWORKS}"`);
  const scheme = certFile ? 'https' : 'http';
  const limits: ListenerLimits = {
    keepAliveTimeoutMs: integer(env, 'KEYHOLD_KEEP_ALIVE_TIMEOUT_MS', DEFAULT_LIMITS.keepAliveTimeoutMs, 100, 3_600_000),
    headersTimeoutMs: integer(env, 'KEYHOLD_HEADERS_TIMEOUT_MS', DEFAULT_LIMITS.headersTimeoutMs, 100, 600_000),
    requestTimeoutMs: integer(env, 'KEYHOLD_REQUEST_TIMEOUT_MS', DEFAULT_LIMITS.requestTimeoutMs, 100, 3_600_000),
    maxHeaderBytes: integer(env, 'KEYHOLD_MAX_HEADER_BYTES', DEFAULT_LIMITS.maxHeaderBytes, 1024, 1_048_576),
    maxConcurrentStreams: integer(env, 'KEYHOLD_MAX_CONCURRENT_STREAMS', DEFAULT_LIMITS.maxConcurrentStreams, 1, 100_000),
  };
  // The headers arrive within the request; Node's HTTP server refuses to start otherwise.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError('KEYHOLD_HEADERS_TIMEOUT_MS', `must not exceed KEYHOLD_REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs}), got ${limits.headersTimeoutMs}`);
  }
  const issuer = env.KEYHOLD_ISSUER ? issuerUrl(env.KEYHOLD_ISSUER, scheme) : undefined;
  const parties = relyingParties(rpIds, origins, issuer, `${scheme}://localhost:${port}`);
  const trustedProxies = list(env.KEYHOLD_TRUSTED_PROXIES).map((entry) => {
    const range = parseProxyRange(entry);
    if (!range) throw new ConfigError('KEYHOLD_TRUSTED_PROXIES', `"${entry}" is not an IPv4 or IPv6 address or CIDR range (e.g. 10.0.0.7, 10.0.0.0/8, fd00::/8)`);
    return range;
  });
  const masterKey = env.KEYHOLD_MASTERKEY || undefined;
  if (masterKey !== undefined && [...masterKey].length < 32) {
    throw new ConfigError('KEYHOLD_MASTERKEY', 'must be at least 32 characters (e.g. `openssl rand -base64 32`)');
  }
  if (databaseUrl && masterKey === undefined) {
    throw new ConfigError(
      'KEYHOLD_MASTERKEY',
      'required with DATABASE_URL: every Keyhold on that database needs the same key to read the OpenID signing keys (e.g. `openssl rand -base64 32`)',
    );
  }
  const keyRotation = {
    rotationSeconds: integer(env, 'KEYHOLD_SIGNING_KEY_ROTATION_SECONDS', 6 * 3600, 2, 365 * 86_400),
    aheadSeconds: integer(env, 'KEYHOLD_SIGNING_KEY_PUBLISH_AHEAD_SECONDS', 3600, 1, 30 * 86_400),
  };
  if (keyRotation.aheadSeconds >= keyRotation.rotationSeconds) {
    throw new ConfigError('KEYHOLD_SIGNING_KEY_PUBLISH_AHEAD_SECONDS', `must be less than KEYHOLD_SIGNING_KEY_ROTATION_SECONDS (${keyRotation.rotationSeconds}), got ${keyRotation.aheadSeconds}`);
  }
  const lifetimes = {
    accessToken: integer(env, 'KEYHOLD_ACCESS_TOKEN_LIFETIME_SECONDS', 12 * 3600, 10, 365 * 86_400),
    idToken: integer(env, 'KEYHOLD_ID_TOKEN_LIFETIME_SECONDS', 12 * 3600, 10, 365 * 86_400),
    refreshIdle: integer(env, 'KEYHOLD_REFRESH_TOKEN_IDLE_SECONDS', 30 * 86_400, 10, 3650 * 86_400),
    refreshAbsolute: integer(env, 'KEYHOLD_REFRESH_TOKEN_ABSOLUTE_SECONDS', 90 * 86_400, 10, 3650 * 86_400),
    session: integer(env, 'KEYHOLD_LOGIN_SESSION_SECONDS', 14 * 86_400, 10, 3650 * 86_400),
    // RFC 8628: ZITADEL's 5 minutes for the user, 5 seconds between polls.
    deviceCode: integer(env, 'KEYHOLD_DEVICE_CODE_LIFETIME_SECONDS', 300, 2, 86_400),
    devicePollInterval: integer(env, 'KEYHOLD_DEVICE_POLL_INTERVAL_SECONDS', 5, 1, 600),
  };
  if (lifetimes.refreshIdle > lifetimes.refreshAbsolute) {
    throw new ConfigError('KEYHOLD_REFRESH_TOKEN_IDLE_SECONDS', `must not exceed KEYHOLD_REFRESH_TOKEN_ABSOLUTE_SECONDS (${lifetimes.refreshAbsolute}), got ${lifetimes.refreshIdle}`);
  }
  return {
    port,
    host: env.KEYHOLD_HOST || '127.0.0.1',
    dataDir,
    databaseUrl,
    pgliteSharedBuffers,
    databasePoolSize: integer(env, 'KEYHOLD_DATABASE_POOL_SIZE', 20, 1, 1_000),
    shutdownTimeoutSeconds: integer(env, 'KEYHOLD_SHUTDOWN_TIMEOUT_SECONDS', 8, 1, 3_600),
    idleCollectSeconds: integer(env, 'KEYHOLD_IDLE_COLLECT_SECONDS', DEFAULT_IDLE_COLLECT_SECONDS, 0, 3_600),
    adminPatFile: path.resolve(env.KEYHOLD_ADMIN_PAT_FILE || path.join(dataDir, 'admin.pat')),
    webauthn: {
      rpIds: parties.rpIds,
      origins: parties.origins,
      rpName: env.KEYHOLD_WEBAUTHN_RP_NAME || 'Keyhold',
      attestation,
      timeoutMs: integer(env, 'KEYHOLD_WEBAUTHN_TIMEOUT_MS', 300_000, 1_000, 600_000),
      verifyThreads: integer(env, 'KEYHOLD_WEBAUTHN_VERIFY_THREADS', 1, 0, 64),
      originsDefaulted: parties.originsDefaulted,
      maxPendingPerUser: integer(env, 'KEYHOLD_WEBAUTHN_MAX_PENDING', DEFAULT_MAX_PENDING_PER_USER, 1, 1_000_000),
      expiredKeptMs: integer(env, 'KEYHOLD_WEBAUTHN_EXPIRED_KEPT_MS', 3_600_000, 0, 30 * 86_400_000),
    },
    corsOrigins,
    smtp: smtpSettings(env),
    trustedProxies,
    tls: certFile && keyFile ? { certFile, keyFile } : undefined,
    logLevel,
    bodyLimitBytes: 2 * 1024 * 1024,
    rateLimit: {
      perSecond: integer(env, 'KEYHOLD_RATE_LIMIT_PER_SECOND', 0, 0, 1_000_000),
      burst: integer(env, 'KEYHOLD_RATE_LIMIT_BURST', 0, 0, 1_000_000),
    },
    limits,
    metrics: metrics === 'on',
    idpPrivateNetworks: idpNetworks === 'allow',
    oidc: { issuer, masterKey, masterKeyFile: path.join(dataDir, 'masterkey'), keyRotation, lifetimes },
  };
}

/**
 * KEYHOLD_ISSUER: an http(s) origin, kept without a trailing slash. Every URL
 * Keyhold advertises or redirects to is made from it, and Keyhold serves at the
 * root of its host: a path would be advertised where nothing answers. A port
 * that speaks TLS itself is reached over https, so its issuer is https too.
 */
function issuerUrl(value: string, scheme: 'http' | 'https'): string {
  const url = URL.parse(value);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username || url.password) {
    throw new ConfigError('KEYHOLD_ISSUER', `"${value}" is not an issuer URL like https://login.example.com (http or https, no query or fragment)`);
  }
  if (url.pathname !== '/') {
    throw new ConfigError('KEYHOLD_ISSUER', `"${value}" has a path: Keyhold serves discovery, its endpoints and the login at the root of its host, so the issuer is an origin like https://login.example.com`);
  }
  if (scheme === 'https' && url.protocol === 'http:') {
    throw new ConfigError('KEYHOLD_ISSUER', `"${value}" is http while the port speaks TLS (KEYHOLD_TLS_CERT): use https://${url.host}`);
  }
  return url.origin;
}

/**
 * The WebAuthn RP ids and origins. By default the issuer's host and origin (the
 * login is served there); without an issuer, or when its host is an address
 * (no RP id can be one), `localhost` and the port's own origin. An RP id none of
 * the origins belongs to could never see its keys used: refused.
 */
function relyingParties(rpIds: string[], origins: string[], issuer: string | undefined, localOrigin: string) {
  const issuerHost = issuer ? new URL(issuer).hostname : undefined;
  const issuerDomain = issuerHost && isIP(issuerHost.replace(/^\[|\]$/g, '')) === 0 ? issuerHost : undefined;
  const ids = rpIds.length ? rpIds : [issuerDomain ?? 'localhost'];
  const allowed = origins.length ? origins : issuerDomain ? [issuer!] : [localOrigin];
  for (const id of ids) {
    if (originsOfRpId(id, allowed).length === 0) {
      throw new ConfigError(
        'KEYHOLD_WEBAUTHN_RP_IDS',
        `"${id}" has no origin on its host or below it in KEYHOLD_WEBAUTHN_ORIGINS (${origins.length ? '' : 'default: '}${allowed.join(', ')}): a key registered for it could never be used; add such an origin or remove the RP id`,
      );
    }
  }
  return { rpIds: ids, origins: allowed, originsDefaulted: origins.length === 0 && !issuerDomain };
}

const SMTP_DEFAULT_PORTS = { smtp: 587, smtps: 465 } as const;

/**
 * KEYHOLD_SMTP_*. The password never rides in the URL (URLs end up in logs,
 * process listings and `keyhold config`), the TLS mode follows the scheme unless
 * set, and plaintext is allowed only to a relay on this host: anything else
 * would carry reset links readable on the wire.
 */
function smtpSettings(env: Env): SmtpSettings | undefined {
  const raw = env.KEYHOLD_SMTP_URL || undefined;
  const password = env.KEYHOLD_SMTP_PASSWORD || undefined;
  const from = env.KEYHOLD_SMTP_FROM?.trim() || undefined;
  const tlsSetting = env.KEYHOLD_SMTP_TLS?.trim().toLowerCase() || undefined;
  if (!raw) {
    for (const name of ['KEYHOLD_SMTP_PASSWORD', 'KEYHOLD_SMTP_FROM', 'KEYHOLD_SMTP_TLS'] as const) {
      if (env[name]) throw new ConfigError(name, 'is set but KEYHOLD_SMTP_URL is not: set the URL of the mail server too');
    }
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('KEYHOLD_SMTP_URL', 'is not a URL like smtp://user@mail.example.com:587 or smtps://mail.example.com');
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== 'smtp' && scheme !== 'smtps') throw new ConfigError('KEYHOLD_SMTP_URL', `must start with smtp:// or smtps://, got ${scheme}://`);
  if (url.password) throw new ConfigError('KEYHOLD_SMTP_URL', 'holds a password: remove it from the URL and put it in the file named by KEYHOLD_SMTP_PASSWORD_FILE');
  if ((url.pathname && url.pathname !== '/') || url.search || url.hash) throw new ConfigError('KEYHOLD_SMTP_URL', 'must be only scheme, user, host and port (no path or query)');
  if (!url.hostname) throw new ConfigError('KEYHOLD_SMTP_URL', 'has no host');
  if (!from) throw new ConfigError('KEYHOLD_SMTP_FROM', 'is required with KEYHOLD_SMTP_URL: the sender of every mail, e.g. "Keyhold <login@example.com>"');
  if (!/^[^<>@\s]+@[^<>@\s]+$|^[^<>\r\n]*<[^<>@\s]+@[^<>@\s]+>$/.test(from)) {
    throw new ConfigError('KEYHOLD_SMTP_FROM', `"${from}" is not an address like login@example.com or Keyhold <login@example.com>`);
  }
  const user = url.username ? decodeURIComponent(url.username) : undefined;
  if (password && !user) throw new ConfigError('KEYHOLD_SMTP_PASSWORD', 'is set but KEYHOLD_SMTP_URL names no user (smtp://user@host)');
  const defaultTls: SmtpTls = scheme === 'smtps' ? 'implicit' : 'starttls';
  const tls = (tlsSetting ?? defaultTls) as SmtpTls;
  if (!['starttls', 'implicit', 'none'].includes(tls)) throw new ConfigError('KEYHOLD_SMTP_TLS', `must be starttls, implicit or none, got "${env.KEYHOLD_SMTP_TLS}"`);
  if ((tls === 'implicit') !== (scheme === 'smtps')) {
    throw new ConfigError('KEYHOLD_SMTP_TLS', tls === 'implicit' ? 'implicit TLS goes with smtps://' : `${tls} goes with smtp://, not smtps://`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (tls === 'none' && !isLoopback(host)) {
    throw new ConfigError('KEYHOLD_SMTP_TLS', `none (plaintext) is only for a relay on this host (localhost, 127.0.0.1, ::1), not ${host}: reset links would cross the network readable`);
  }
  const port = url.port ? Number(url.port) : SMTP_DEFAULT_PORTS[scheme];
  return { host, port, user, password, from, tls };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
