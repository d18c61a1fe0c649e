// What an operator is told about the configuration: `keyhold config` (every
// setting of config-variables.ts, its effective value and where it came from,
// secrets redacted) and the warnings a start logs (a KEYHOLD_* variable that
// is no setting, settings that disagree). Nothing here starts anything.
import { CONFIG_VARIABLES, type ConfigVariable } from './config-variables.js';
import { loadConfigAndFiles, type Config, type Env, type ReadFile, type SecretFile } from './config.js';
import { relyingPartyWarnings } from '../login/relying-parties.js';

export interface ConfigWarning {
  message: string;
  /** Structured fields for the log line (names and settings only, never a secret). */
  fields: Record<string, unknown>;
}

/** Every variable name Keyhold knows, the `_FILE` ones included. */
export const KNOWN_VARIABLES: readonly string[] = CONFIG_VARIABLES.flatMap((v) => v.names);

/** Levenshtein distance (names are short: the plain two-row table). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known variable nearest to `name`, when it is near enough to be what was meant (a third of its length at most). */
export function closestVariable(name: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const known of KNOWN_VARIABLES) {
    const distance = editDistance(name, known);
    if (!best || distance < best.distance) best = { name: known, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined;
}

/** A KEYHOLD_* variable that no setting reads: a typo would otherwise leave the default in force silently. */
export function unknownVariableWarnings(env: Env): ConfigWarning[] {
  const known = new Set(KNOWN_VARIABLES);
  return Object.keys(env)
    .filter((name) => name.startsWith('KEYHOLD_') && !known.has(name))
    .sort()
    .map((variable) => {
      const suggestion = closestVariable(variable);
      return {
        message: `${variable} is not a Keyhold setting; ${suggestion ? `did you mean ${suggestion}?` : '`keyhold --help` lists the settings'}`,
        fields: { variable, ...(suggestion ? { suggestion } : {}) },
      };
    });
}

/** Settings given together that cannot both take effect: the one that is ignored is named with the one that makes it so. */
export function disagreementWarnings(env: Env, config: Config): ConfigWarning[] {
  const warnings: ConfigWarning[] = [];
  const set = (name: string) => Boolean(env[name]) || Boolean(env[`${name}_FILE`]);
  if (config.databaseUrl && set('KEYHOLD_PGLITE_SHARED_BUFFERS')) {
    warnings.push({
      message: 'KEYHOLD_PGLITE_SHARED_BUFFERS is ignored: DATABASE_URL is set, so Keyhold uses PostgreSQL, not the embedded PGlite',
      fields: { variable: 'KEYHOLD_PGLITE_SHARED_BUFFERS', because: 'DATABASE_URL' },
    });
  }
  if (!config.databaseUrl && set('KEYHOLD_DATABASE_POOL_SIZE')) {
    warnings.push({
      message: 'KEYHOLD_DATABASE_POOL_SIZE is ignored: DATABASE_URL is not set, so Keyhold uses the embedded PGlite (one connection)',
      fields: { variable: 'KEYHOLD_DATABASE_POOL_SIZE', because: 'DATABASE_URL' },
    });
  }
  if (config.rateLimit.perSecond === 0 && config.rateLimit.burst > 0) {
    warnings.push({
      message: `KEYHOLD_RATE_LIMIT_BURST (${config.rateLimit.burst}) is ignored: KEYHOLD_RATE_LIMIT_PER_SECOND is 0, which switches rate limiting off`,
      fields: { variable: 'KEYHOLD_RATE_LIMIT_BURST', because: 'KEYHOLD_RATE_LIMIT_PER_SECOND' },
    });
  }
  return warnings;
}

/**
 * The warnings of a start, logged before it opens the database. The issuer
 * against the WebAuthn settings is checked later in the start, once the port
 * is known (start.ts, relyingPartyWarnings).
 */
export function startWarnings(env: Env, config: Config): ConfigWarning[] {
  return [...unknownVariableWarnings(env), ...disagreementWarnings(env, config)];
}

/** Every warning a start would log about its configuration (for `keyhold config`, which starts nothing). */
export function configWarnings(env: Env, config: Config): ConfigWarning[] {
  const warnings = startWarnings(env, config);
  // Defaulted origins follow the issuer and always agree; port 0's issuer is known only once listening.
  if (config.oidc.issuer || (!config.webauthn.originsDefaulted && config.port !== 0)) {
    warnings.push(...relyingPartyWarnings(effectiveIssuer(config), config.webauthn, []));
  }
  return warnings;
}

/** The issuer in force: KEYHOLD_ISSUER, else the port's own (`0` is only known once listening). */
export function effectiveIssuer(config: Config): string {
  return config.oidc.issuer ?? `${config.tls ? 'https' : 'http'}://localhost:${config.port === 0 ? '<port>' : config.port}`;
}

/**
 * A PostgreSQL URL without its password (after the user, or a `password`
 * parameter); the rest as written. Text, not URL parsing: a URL that no parser
 * takes (a socket URL without host, a password with an unencoded `?`, `#` or
 * `/`) is redacted all the same. The user part ends at the last `@`: a
 * password may hold any of `:/?#`, and cutting too much only hides more.
 */
export function redactDatabaseUrl(value: string): string {
  const start = value.indexOf('://') + 3;
  const at = value.lastIndexOf('@');
  let head = value;
  let tail = '';
  if (start > 2 && at > start) {
    const user = value.slice(start, at);
    const colon = user.indexOf(':');
    head = colon >= 0 ? `${value.slice(0, start)}${user.slice(0, colon)}:REDACTED` : value.slice(0, at);
    tail = value.slice(at);
  } else {
    [head, tail] = ['', value];
  }
  return head + tail.replace(/([?&][^=&]*pass[^=&]*=)[^&]*/gi, '$1REDACTED');
}

const list = (values: readonly string[]) => (values.length ? values.join(',') : '—');

/** Each setting's effective value, as `keyhold config` prints it (secrets by their row's `secret` rule, below). */
export const EFFECTIVE_VALUES: Readonly<Record<string, (c: Config) => string>> = {
  KEYHOLD_PORT: (c) => String(c.port),
  KEYHOLD_HOST: (c) => c.host,
  KEYHOLD_DATA_DIR: (c) => c.dataDir,
  KEYHOLD_SHUTDOWN_TIMEOUT_SECONDS: (c) => String(c.shutdownTimeoutSeconds),
  KEYHOLD_IDLE_COLLECT_SECONDS: (c) => String(c.idleCollectSeconds),
  DATABASE_URL: (c) => c.databaseUrl ?? '— (embedded PGlite)',
  KEYHOLD_PGLITE_SHARED_BUFFERS: (c) => c.pgliteSharedBuffers,
  KEYHOLD_DATABASE_POOL_SIZE: (c) => String(c.databasePoolSize),
  KEYHOLD_ADMIN_PAT_FILE: (c) => c.adminPatFile,
  KEYHOLD_WEBAUTHN_RP_IDS: (c) => list(c.webauthn.rpIds),
  KEYHOLD_WEBAUTHN_RP_NAME: (c) => c.webauthn.rpName,
  KEYHOLD_WEBAUTHN_ORIGINS: (c) => (c.webauthn.originsDefaulted ? `${c.tls ? 'https' : 'http'}://localhost:${c.port === 0 ? '<port>' : c.port}` : list(c.webauthn.origins)),
  KEYHOLD_WEBAUTHN_ATTESTATION: (c) => c.webauthn.attestation,
  KEYHOLD_WEBAUTHN_TIMEOUT_MS: (c) => String(c.webauthn.timeoutMs),
  KEYHOLD_WEBAUTHN_MAX_PENDING: (c) => String(c.webauthn.maxPendingPerUser),
  KEYHOLD_WEBAUTHN_EXPIRED_KEPT_MS: (c) => String(c.webauthn.expiredKeptMs),
  KEYHOLD_WEBAUTHN_VERIFY_THREADS: (c) => String(c.webauthn.verifyThreads),
  KEYHOLD_ISSUER: effectiveIssuer,
  KEYHOLD_TRUSTED_PROXIES: (c) => list(c.trustedProxies.map((r) => (r.prefix === undefined ? r.address : `${r.address}/${r.prefix}`))),
  KEYHOLD_MASTERKEY: (c) => c.oidc.masterKey ?? `— (generated into ${c.oidc.masterKeyFile} on the embedded database)`,
  KEYHOLD_ACCESS_TOKEN_LIFETIME_SECONDS: (c) => String(c.oidc.lifetimes.accessToken),
  KEYHOLD_ID_TOKEN_LIFETIME_SECONDS: (c) => String(c.oidc.lifetimes.idToken),
  KEYHOLD_REFRESH_TOKEN_IDLE_SECONDS: (c) => String(c.oidc.lifetimes.refreshIdle),
  KEYHOLD_REFRESH_TOKEN_ABSOLUTE_SECONDS: (c) => String(c.oidc.lifetimes.refreshAbsolute),
  KEYHOLD_LOGIN_SESSION_SECONDS: (c) => String(c.oidc.lifetimes.session),
  KEYHOLD_DEVICE_CODE_LIFETIME_SECONDS: (c) => String(c.oidc.lifetimes.deviceCode),
  KEYHOLD_DEVICE_POLL_INTERVAL_SECONDS: (c) => String(c.oidc.lifetimes.devicePollInterval),
  KEYHOLD_SIGNING_KEY_ROTATION_SECONDS: (c) => String(c.oidc.keyRotation.rotationSeconds),
  KEYHOLD_SIGNING_KEY_PUBLISH_AHEAD_SECONDS: (c) => String(c.oidc.keyRotation.aheadSeconds),
  KEYHOLD_SMTP_URL: (c) => (c.smtp ? `${c.smtp.tls === 'implicit' ? 'smtps' : 'smtp'}://${c.smtp.user ? `${encodeURIComponent(c.smtp.user)}@` : ''}${c.smtp.host}:${c.smtp.port}` : '— (no mail)'),
  KEYHOLD_SMTP_PASSWORD: (c) => (c.smtp?.password ? '(set)' : '—'),
  KEYHOLD_SMTP_FROM: (c) => c.smtp?.from ?? '—',
  KEYHOLD_SMTP_TLS: (c) => c.smtp?.tls ?? '—',
  KEYHOLD_CORS_ORIGINS: (c) => list(c.corsOrigins),
  KEYHOLD_TLS_CERT: (c) => c.tls?.certFile ?? '—',
  KEYHOLD_TLS_KEY: (c) => c.tls?.keyFile ?? '—',
  KEYHOLD_LOG_LEVEL: (c) => c.logLevel,
  KEYHOLD_METRICS: (c) => (c.metrics ? 'on' : 'off'),
  KEYHOLD_IDP_PRIVATE_NETWORKS: (c) => (c.idpPrivateNetworks ? 'allow' : 'refuse'),
  KEYHOLD_RATE_LIMIT_PER_SECOND: (c) => String(c.rateLimit.perSecond),
  KEYHOLD_RATE_LIMIT_BURST: (c) => String(c.rateLimit.burst),
  KEYHOLD_HEADERS_TIMEOUT_MS: (c) => String(c.limits.headersTimeoutMs),
  KEYHOLD_REQUEST_TIMEOUT_MS: (c) => String(c.limits.requestTimeoutMs),
  KEYHOLD_KEEP_ALIVE_TIMEOUT_MS: (c) => String(c.limits.keepAliveTimeoutMs),
  KEYHOLD_MAX_HEADER_BYTES: (c) => String(c.limits.maxHeaderBytes),
  KEYHOLD_MAX_CONCURRENT_STREAMS: (c) => String(c.limits.maxConcurrentStreams),
};

export interface Setting {
  name: string;
  value: string;
  source: 'environment' | 'file' | 'default';
  /** For `file`: the `_FILE` variable and its path. */
  file?: SecretFile;
}

function shown(row: ConfigVariable, name: string, config: Config, given: boolean): string {
  const value = EFFECTIVE_VALUES[name]!(config);
  if (!given || row.secret === undefined) return value;
  return row.secret === 'url-password' ? redactDatabaseUrl(value) : '(set, redacted)';
}

/** Every setting (the `_FILE` rows are sources, not settings), in the table's order. */
export function effectiveSettings(env: Env, config: Config, files: Record<string, SecretFile>): Setting[] {
  return CONFIG_VARIABLES.filter((row) => !row.fileOf).flatMap((row) =>
    row.names.map((name): Setting => {
      const file = files[name];
      const source = file ? 'file' : env[name] ? 'environment' : 'default';
      return { name, value: shown(row, name, config, source !== 'default'), source, ...(file ? { file } : {}) };
    }),
  );
}

/** `keyhold config`: the settings as aligned text, and the warnings a start would log. Throws ConfigError as a start would. */
export function configReport(env: Env, readFile?: ReadFile): { text: string; warnings: ConfigWarning[] } {
  const { config, files } = loadConfigAndFiles(env, readFile);
  const settings = effectiveSettings(env, config, files);
  const nameWidth = Math.max(...settings.map((s) => s.name.length));
  const valueWidth = Math.min(40, Math.max(...settings.map((s) => s.value.length)));
  const lines = settings.map((s) => {
    const source = s.file ? `file (${s.file.variable}=${s.file.path})` : s.source;
    return `${s.name.padEnd(nameWidth)}  ${s.value.padEnd(valueWidth)}  ${source}`.trimEnd();
  });
  return { text: `${lines.join('\n')}\n`, warnings: configWarnings(env, config) };
}
