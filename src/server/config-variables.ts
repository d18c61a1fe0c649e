// Every environment variable Keyhold reads, documented once: `keyhold --help`
// prints the one-line summaries, docs/configuration.md is this table rendered
// (scripts/config-reference.ts writes it), and `keyhold config` lists every
// setting in this order (test/server/config-variables.test.ts fails when the
// page, this table or the variables config.ts really reads disagree).
// Texts are Markdown: `code` in backticks (stripped for the terminal).

export interface ConfigVariable {
  /** One variable, or a pair documented together. */
  names: readonly string[];
  /** The default, as a user reads it ("—" for none). */
  default: string;
  /** One line: what it sets. */
  summary: string;
  /** More for docs/configuration.md (not in --help), appended as it is: starts with its own separator. */
  more?: string;
  /**
   * The value holds a secret: `keyhold config` never prints it (`url-password`:
   * a URL printed without its password), and `<NAME>_FILE` may name a file
   * holding it instead (a row of its own, `fileOf` this name).
   */
  secret?: 'whole' | 'url-password';
  /** This row is `<fileOf>_FILE`: the variable's value read from a file (config.ts secretsFromFiles). */
  fileOf?: string;
}

/** The row of `<name>_FILE` for a secret-bearing variable. */
function fileRow(name: string): ConfigVariable {
  return {
    names: [`${name}_FILE`],
    default: '—',
    summary: `a file holding \`${name}\` (a mounted container secret); its content without one trailing newline`,
    more: `. Set \`${name}\` or \`${name}_FILE\`, not both; an unreadable or empty file stops the start naming the variable and the path, never the content`,
    fileOf: name,
  };
}

export const CONFIG_VARIABLES: readonly ConfigVariable[] = [
  { names: ['KEYHOLD_PORT'], default: '`8080`', summary: 'the one port for every protocol (`0` picks a free one)' },
  { names: ['KEYHOLD_HOST'], default: '`127.0.0.1`', summary: 'listen address' },
  { names: ['KEYHOLD_DATA_DIR'], default: '`./.keyhold`', summary: 'PGlite data and lock file; one process per directory' },
  {
    names: ['DATABASE_URL'],
    default: '—',
    summary: '`postgres://…`: use PostgreSQL instead of PGlite (several Keyholds may share it)',
    more: '. A Unix socket the libpq way: `postgres://user@/db?host=/var/run/postgresql` (cheaper than loopback TCP, see Performance)',
    secret: 'url-password',
  },
  fileRow('DATABASE_URL'),
  {
    names: ['KEYHOLD_PGLITE_SHARED_BUFFERS'],
    default: '`16MB`',
    summary: "PGlite's buffer pool (PostgreSQL's `shared_buffers`), all of it resident from the start",
    more: '. More keeps more of a large database in memory (faster reads and writes), less keeps the idle process small; see Operations',
  },
  {
    names: ['KEYHOLD_DATABASE_POOL_SIZE'],
    default: '`20`',
    summary: 'PostgreSQL connections each Keyhold process keeps (1…1000)',
    more: '. A request waits at most 5 s for one of them and its answer, then answers 503 with `Retry-After`; see Operations',
  },
  {
    names: ['KEYHOLD_SHUTDOWN_TIMEOUT_SECONDS'],
    default: '`8`',
    summary: 'how long draining after SIGTERM or SIGINT may take before the process exits anyway, with status 1 (1…3600)',
    more: ". The default fits in Docker's 10 s; a second signal exits at once",
  },
  {
    names: ['KEYHOLD_IDLE_COLLECT_SECONDS'],
    default: '`20`',
    summary: 'quiet period after which one full garbage collection gives the heap a burst grew back to the system (`0`: never; 0…3600)',
    more: '. Quiet: no request served but probes and scrapes (`/healthz`, `/readyz`, `/metrics`, gRPC health); the collection comes one to two periods after the last request, at most once per quiet period, and only when the heap grew by 16 MiB or more since the last one. It holds the process for up to ~130 ms (measured); see Performance',
  },
  { names: ['KEYHOLD_ADMIN_PAT_FILE'], default: '`<dataDir>/admin.pat`', summary: "where bootstrap writes the admin's token" },
  {
    names: ['KEYHOLD_WEBAUTHN_RP_IDS'],
    default: "the issuer's host",
    summary: 'comma-separated relying party ids; the first is the default',
    more: ' (`localhost` without `KEYHOLD_ISSUER`). Each needs an origin on its host or below it; the login uses the keys of the RP ids its issuer\'s host belongs to',
  },
  { names: ['KEYHOLD_WEBAUTHN_RP_NAME'], default: '`Keyhold`', summary: 'relying party name shown by authenticators' },
  {
    names: ['KEYHOLD_WEBAUTHN_ORIGINS'],
    default: "the issuer's origin",
    summary: 'comma-separated origins allowed in WebAuthn client data',
    more: ' (`http://localhost:<port>` without `KEYHOLD_ISSUER`)',
  },
  { names: ['KEYHOLD_WEBAUTHN_ATTESTATION'], default: '`none`', summary: '`none` or `direct` attestation requested from authenticators' },
  { names: ['KEYHOLD_WEBAUTHN_TIMEOUT_MS'], default: '`300000`', summary: 'how long a security-key registration may take (1000…600000)' },
  {
    names: ['KEYHOLD_WEBAUTHN_MAX_PENDING'],
    default: '`5`',
    summary: 'security-key registrations one user may have pending at once; one more ends the oldest',
    more: ' (it then answers `U2F_REGISTRATION_REPLACED`)',
  },
  {
    names: ['KEYHOLD_WEBAUTHN_EXPIRED_KEPT_MS'],
    default: '`3600000`',
    summary: 'how long an expired, never completed registration stays listed (`U2F_STATE_EXPIRED`)',
    more: ' before a background sweep deletes its read-model row (its events stay)',
  },
  {
    names: ['KEYHOLD_WEBAUTHN_VERIFY_THREADS'],
    default: '`1`',
    summary: 'worker threads that verify security-key registrations (`0`: on the event loop)',
    more: '. They check signatures, CBOR and certificates beside the event loop; more than one helps only with more than two cores',
  },
  {
    names: ['KEYHOLD_ISSUER'],
    default: '`http://localhost:<port>`',
    summary: 'the OpenID Provider\'s issuer URL (discovery at `<issuer>/.well-known/openid-configuration`)',
    more: '; set it to the public URL when Keyhold is behind a proxy or on another host. Every URL Keyhold advertises or redirects to is made from it, never from the request\'s `Host`; an origin, no path. https: every cookie `Secure`, the session cookie `__Host-`',
  },
  {
    names: ['KEYHOLD_TRUSTED_PROXIES'],
    default: '—',
    summary: 'comma-separated addresses and CIDR ranges (IPv4, IPv6) of proxies whose `X-Forwarded-For` is believed',
    more: ': the client address of throttles and rate limits. Nobody else\'s; without it every request\'s address is its peer\'s',
  },
  {
    names: ['KEYHOLD_MASTERKEY'],
    default: '`<dataDir>/masterkey`',
    summary: 'at least 32 characters; encrypts the OpenID signing keys at rest',
    more: '. Required with `DATABASE_URL` (every process on the database needs the same one); on the embedded default it is generated into the data directory (mode 0600)',
    secret: 'whole',
  },
  fileRow('KEYHOLD_MASTERKEY'),
  { names: ['KEYHOLD_ACCESS_TOKEN_LIFETIME_SECONDS'], default: '`43200`', summary: 'lifetime of OpenID access tokens (12 h, ZITADEL\'s default)' },
  { names: ['KEYHOLD_ID_TOKEN_LIFETIME_SECONDS'], default: '`43200`', summary: 'lifetime of ID tokens (12 h; an app\'s `clockSkew` is added)' },
  { names: ['KEYHOLD_REFRESH_TOKEN_IDLE_SECONDS'], default: '`2592000`', summary: 'a refresh token unused this long expires (30 days)' },
  { names: ['KEYHOLD_REFRESH_TOKEN_ABSOLUTE_SECONDS'], default: '`7776000`', summary: 'a grant and all its refresh tokens end this long after the login (90 days)' },
  { names: ['KEYHOLD_LOGIN_SESSION_SECONDS'], default: '`1209600`', summary: 'how long the login session lasts before the user signs in again (14 days)' },
  { names: ['KEYHOLD_DEVICE_CODE_LIFETIME_SECONDS'], default: '`300`', summary: 'how long a device code (device sign-in, RFC 8628) waits for the user to enter it (5 min, ZITADEL\'s default)' },
  { names: ['KEYHOLD_DEVICE_POLL_INTERVAL_SECONDS'], default: '`5`', summary: 'the least time between a device\'s polls of the token endpoint; polling faster answers `slow_down` and adds 5 s to it' },
  {
    names: ['KEYHOLD_SIGNING_KEY_ROTATION_SECONDS'],
    default: '`21600`',
    summary: 'how long an OpenID signing key signs before its successor takes over (6 h, ZITADEL\'s private-key lifetime)',
    more: '; the predecessor stays published until the tokens it signed expired',
  },
  {
    names: ['KEYHOLD_SIGNING_KEY_PUBLISH_AHEAD_SECONDS'],
    default: '`3600`',
    summary: 'how long before use a new signing key is published at `/oauth/v2/keys` (less than the rotation)',
  },
  {
    names: ['KEYHOLD_SMTP_URL'],
    default: '—',
    summary: '`smtp://[user@]host[:port]` (STARTTLS, port 587) or `smtps://[user@]host[:port]` (TLS from the start, port 465): the server Keyhold sends mail through',
    more: '. Without it nothing is mailed: what needs mail says so and the console offers the link to hand over instead. A password in the URL stops the start: give it in `KEYHOLD_SMTP_PASSWORD_FILE`',
  },
  {
    names: ['KEYHOLD_SMTP_PASSWORD'],
    default: '—',
    summary: "the SMTP user's password (the user is the URL's)",
    secret: 'whole',
  },
  fileRow('KEYHOLD_SMTP_PASSWORD'),
  {
    names: ['KEYHOLD_SMTP_FROM'],
    default: '—',
    summary: 'the sender of every mail, `Keyhold <login@example.com>` or an address; required with `KEYHOLD_SMTP_URL`',
  },
  {
    names: ['KEYHOLD_SMTP_TLS'],
    default: "the URL's scheme",
    summary: '`starttls` (required, never falls back to plaintext), `implicit` (`smtps://`), or `none`: plaintext, only to a loopback address',
    more: '. The server\'s certificate is checked against the system\'s CAs (`NODE_EXTRA_CA_CERTS` adds one)',
  },
  {
    names: ['KEYHOLD_IDP_PRIVATE_NETWORKS'],
    default: '`refuse`',
    summary: '`allow` lets Keyhold reach other identity providers over http and at addresses that are not public (loopback, private, link-local)',
    more: '. By default every request to a provider an administrator configured goes over https to a public address only, checked when the connection opens: the endpoints are set by org administrators, and would otherwise reach the host\'s own network. Allow it for a provider on the company network or on the same machine',
  },
  { names: ['KEYHOLD_CORS_ORIGINS'], default: '—', summary: 'comma-separated browser origins allowed to call the API (`*` for any)' },
  { names: ['KEYHOLD_TLS_CERT', 'KEYHOLD_TLS_KEY'], default: '—', summary: 'PEM files; with both set, the port speaks TLS (h2 and http/1.1 by ALPN)' },
  {
    names: ['KEYHOLD_LOG_LEVEL'],
    default: '`info`',
    summary: '`fatal`…`trace`, or `silent`',
    more: '. At `info` one line per request (probes and scrapes at `debug`), see Operations',
  },
  {
    names: ['KEYHOLD_METRICS'],
    default: '`on`',
    summary: '`off` stops serving Prometheus metrics at `GET /metrics` (unauthenticated on the port; see Operations)',
  },
  {
    names: ['KEYHOLD_RATE_LIMIT_PER_SECOND', 'KEYHOLD_RATE_LIMIT_BURST'],
    default: '`0` (off)',
    summary: 'token bucket per client IP and per token on every RPC and protocol (burst `0` = the rate)',
    more: '. The IP bucket counts before authentication, and each pushed authorization request (`/oauth/v2/par`: 429 `slow_down`) takes from it too; over it: 429 / `RESOURCE_EXHAUSTED` `RATE_LIMITED` with `retry-after` and `RetryInfo`. **Switch it on for any deployment reachable from the internet**',
  },
  {
    names: ['KEYHOLD_HEADERS_TIMEOUT_MS'],
    default: '`10000`',
    summary: "deadline for a connection's request headers (slow-loris bound)",
    more: ' on HTTP/1.1, and for the HTTP/2 preface and first HEADERS; at most `KEYHOLD_REQUEST_TIMEOUT_MS`',
  },
  {
    names: ['KEYHOLD_REQUEST_TIMEOUT_MS'],
    default: '`30000`',
    summary: 'deadline for a whole request to arrive, body included',
    more: ' (HTTP/1.1 and per HTTP/2 stream)',
  },
  {
    names: ['KEYHOLD_KEEP_ALIVE_TIMEOUT_MS'],
    default: '`65000`',
    summary: 'idle HTTP/1.1 keep-alive and idle HTTP/2 session',
    more: ' (Node adds 1 s to the first); an idle HTTP/2 session is closed gracefully, its open streams (a health Watch) go on',
  },
  {
    names: ['KEYHOLD_MAX_HEADER_BYTES'],
    default: '`16384`',
    summary: 'request header size',
    more: ', on every stream: 431 / `RESOURCE_EXHAUSTED` `HEADERS_TOO_LARGE` (HTTP/2 also advertises it as `SETTINGS_MAX_HEADER_LIST_SIZE`; once a client has acknowledged it, Node resets a larger stream with `ENHANCE_YOUR_CALM`)',
  },
  { names: ['KEYHOLD_MAX_CONCURRENT_STREAMS'], default: '`256`', summary: 'HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS`' },
];

/** The variables whose value may come from `<NAME>_FILE` instead. */
export const SECRET_FILE_VARIABLES: readonly string[] = CONFIG_VARIABLES.flatMap((v) => (v.fileOf ? [v.fileOf] : []));

/** docs/configuration.md's table. */
export function configTableMarkdown(): string {
  const rows = CONFIG_VARIABLES.map((v) => {
    return `| ${v.names.map((n) => `\`${n}\``).join(', ')} | ${v.default} | ${v.summary}${v.more ?? ''} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** docs/configuration.md, whole: written by scripts/config-reference.ts, compared by test/server/config-variables.test.ts. */
export function configurationReference(): string {
  const secrets = SECRET_FILE_VARIABLES.map((n) => `\`${n}\``).join(' and ');
  return `# Configuration

<!-- Generated from src/server/config-variables.ts by \`npm run docs:config\`: edit the table there, not this page. -->

Keyhold is configured by environment variables, nothing else. \`keyhold --help\` lists the same
variables as this page, one line each.

- **A bad value stops the start** with one line naming the variable and the problem
  (\`keyhold: invalid configuration: KEYHOLD_PORT: expected a whole number, got "eighty"\`), exit code 2.
- **Secrets from files.** ${secrets} may be given as files instead, the way container secrets are
  mounted: \`KEYHOLD_MASTERKEY_FILE=/run/secrets/keyhold_masterkey\`. The value is the file's content
  with one trailing newline removed. Setting a variable and its \`_FILE\` both stops the start, naming both;
  an unreadable or empty file stops it naming the variable and the path. The content is never printed
  or logged, also not in an error about the value (which names the file instead).
- **A \`KEYHOLD_*\` variable that is no setting** is a warning at start naming the closest setting
  (\`KEYHOLD_ISUER is not a Keyhold setting; did you mean KEYHOLD_ISSUER?\`): a misspelt variable
  otherwise leaves the default in force without a word. It does not stop the start.
- **Settings that disagree** are warnings at start naming both: WebAuthn RP ids or origins that
  the issuer's host or origin does not match (the login then cannot use security keys),
  \`KEYHOLD_PGLITE_SHARED_BUFFERS\` with \`DATABASE_URL\`, \`KEYHOLD_DATABASE_POOL_SIZE\` without it,
  a burst without a rate, and a console app registered for an earlier issuer.
- **\`keyhold config\`** prints every setting below, its effective value and where it came from
  (\`environment\`, \`file\` with the \`_FILE\` variable and path, or \`default\`), then the warnings a
  start would log (on stderr), and exits 0. Secrets are redacted: the master key entirely, the
  password of \`DATABASE_URL\`. A configuration a start would refuse prints the same error and exits 2.
- **The start-up line** names the console's URL: \`<issuer>/console/\`, the redirect URI the
  console app is registered for (with the default issuer, \`http://localhost:<port>/console/\`).

## Variables

${configTableMarkdown()}
`;
}

/** The variables for a terminal: one line each, summaries aligned (a long pair of names gets a line of its own). */
export function configVariablesText(): string {
  const plain = (s: string) => s.replaceAll('`', '');
  const width = Math.max(...CONFIG_VARIABLES.flatMap((v) => v.names.map((n) => n.length)));
  return CONFIG_VARIABLES.map((v) => {
    const names = v.names.join(', ');
    const text = `${plain(v.summary)}${v.default === '—' ? '' : ` (default: ${plain(v.default)})`}`;
    return names.length <= width ? `  ${names.padEnd(width)}  ${text}` : `  ${names}\n  ${' '.repeat(width)}  ${text}`;
  }).join('\n');
}
