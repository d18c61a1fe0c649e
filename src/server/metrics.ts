// Prometheus metrics (prom-client): the one place Keyhold's instruments are
// made. Everything that measures gets them from here — the request tracker
// (requests.ts: calls by service, method, protocol and code, latency, in
// flight), the store through its observer port (store/observer.ts: appends,
// group-commit transaction sizes, database errors by kind), the verification
// threads (queue depth) — and GET /metrics (app.ts) renders them.
//
// And what an identity provider's operator alerts on (`identity`): logins and
// their failures by reason, second factors, tokens issued by grant and app
// type, refresh-token (and code) reuse — the login (src/commands/login/check-password.ts,
// src/login/) and the provider's events (oidc/provider-metrics.ts) report
// them; and the housekeeping sweep's backlog of expired rows (`sweep`).
//
// Each Keyhold has a registry of its own, Node's default process metrics
// included, so two Keyholds in one process (tests) never share or collide.
// Label values are bounded enumerations: the schema's services and methods,
// four protocols, the gRPC codes, and the closed sets of kinds, reasons, grant
// and app types below — never an id, a client id, a user name, an address or
// anything else a client sent (cardinality, and privacy: docs/security.md).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { LOGIN_FAILURES, type LoginFailure } from '../commands/login/check-password.js';
import { SECOND_FACTORS, type LoginObserver, type SecondFactorKind, type SecondFactorOutcome } from '../login/observer.js';
import type { DatabaseErrorKind, StoreObserver } from '../store/observer.js';
import type { StatementCount } from '../store/statement-count.js';

/** How a call arrived: the `protocol` label. */
export type Protocol = 'grpc' | 'grpc_web' | 'connect' | 'rest';

/** Why a login's password step failed: the `reason` label of a failed login (the password-check command's). */
export { LOGIN_FAILURES, type LoginFailure };
/** The second factors a login takes and how each ended: the labels of keyhold_second_factors_total (the login's). */
export { SECOND_FACTORS, type SecondFactorKind, type SecondFactorOutcome };
/** How tokens were obtained: the token endpoint's grant types, and `implicit` for tokens the authorization endpoint answered. */
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', 'device_code', 'implicit', 'other'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];
/** Who obtained them: an app by its type, or a machine user's client credentials. */
export const APP_TYPES = ['web', 'user_agent', 'native', 'machine', 'other'] as const;
export type AppType = (typeof APP_TYPES)[number];
/** What was presented a second time. */
export const REUSED_TOKENS = ['refresh_token', 'authorization_code', 'device_code'] as const;
export type ReusedToken = (typeof REUSED_TOKENS)[number];
/** The tables the housekeeping sweep deletes expired rows from. */
export const SWEPT_TABLES = ['oidc_payloads', 'attempt_budgets', 'idempotent_answers', 'email_codes', 'u2f_tokens'] as const;
export type SweptTable = (typeof SWEPT_TABLES)[number];

/** What the login (src/login/observer.ts) and the OpenID Provider report. */
export interface IdentityObserver extends LoginObserver {
  /** A token response (the token endpoint's, or the authorization endpoint's with tokens in it). */
  tokensIssued(grantType: GrantType, appType: AppType): void;
  /** A spent refresh token, code or device code presented again (its grant is revoked). */
  reuseDetected(token: ReusedToken): void;
}

/** What the housekeeping sweep reports, per table. */
export interface SweepObserver {
  /** Expired rows still present, as the sweep last knew. */
  backlog(table: SweptTable, rows: number): void;
  /** A sweep of the table ran to its end. */
  swept(table: SweptTable): void;
}

export interface Metrics {
  readonly registry: Registry;
  /** What the store reports (appends, transactions, database errors). */
  readonly store: StoreObserver;
  /** What the login and the OpenID Provider report. */
  readonly identity: IdentityObserver;
  /** What the housekeeping sweep reports. */
  readonly sweep: SweepObserver;
  /** A request began / was answered (or abandoned): the in-flight gauge. */
  requestStarted(): void;
  requestEnded(): void;
  /** An RPC was answered with `code` (the gRPC code name, e.g. OK, INVALID_ARGUMENT) after `seconds`. */
  rpcAnswered(service: string, method: string, protocol: Protocol, code: string, seconds: number): void;
  /** An RPC refused by the rate limit (rate-limit.ts), by which bucket: the client address's or the token's. */
  rateLimited(by: 'address' | 'token'): void;
  /** Where the verification threads' queue depth is read at each scrape. */
  watchVerificationQueue(depth: () => number): void;
  /** Where the database's statement and transaction totals are read at each scrape. */
  watchStatements(count: Readonly<StatementCount>): void;
  /** The text exposition format and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** Seconds: a cached read is well under a millisecond, a write a few, an overloaded one seconds. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Appends per transaction: group commit takes at most 64 (store/event-store.ts). */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requests = new Counter({
    name: 'keyhold_requests_total',
    help: 'RPCs answered, by service, method, protocol (grpc, grpc_web, connect, rest) and gRPC code (REST: the code of the Status it answered)',
    labelNames: ['service', 'method', 'protocol', 'code'] as const,
    registers,
  });
  const latency = new Histogram({
    name: 'keyhold_request_duration_seconds',
    help: 'Time from the arrival of a request to its answer, per RPC and protocol',
    labelNames: ['service', 'method', 'protocol'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const inFlight = new Gauge({
    name: 'keyhold_requests_in_flight',
    help: 'Requests being served on the listener, over every protocol (this scrape included)',
    registers,
  });
  const appends = new Counter({ name: 'keyhold_event_appends_total', help: 'Appends committed to the event store', registers });
  const events = new Counter({ name: 'keyhold_events_appended_total', help: 'Events committed to the event store', registers });
  const batches = new Histogram({
    name: 'keyhold_group_commit_batch_size',
    help: 'Appends per transaction sent by group commit (one when alone; more under load)',
    buckets: BATCH_BUCKETS,
    registers,
  });
  const databaseErrors = new Counter({
    name: 'keyhold_database_errors_total',
    help: 'Database operations (reads, appends, pings) that failed, by kind: unavailable, storage_full, storage_unavailable, conflict, unique_violation, other',
    labelNames: ['kind'] as const,
    registers,
  });
  // Every kind shown from the start (at 0): a rate over a series that appears only with its first error misses that error.
  const KINDS: readonly DatabaseErrorKind[] = ['unavailable', 'storage_full', 'storage_unavailable', 'conflict', 'unique_violation', 'other'];
  for (const kind of KINDS) databaseErrors.labels(kind).inc(0);
  let queueDepth: () => number = () => 0;
  new Gauge({
    name: 'keyhold_verification_queue_depth',
    help: 'Security-key registrations sent to the verification threads and not yet answered',
    registers,
    collect() {
      this.set(queueDepth());
    },
  });

  // Totals the store counts itself (two increments per statement, no label):
  // copied into the counters at each scrape rather than counted through prom-client on the hot path.
  let statementCount: Readonly<StatementCount> = { statements: 0, transactions: 0 };
  const total = (counter: Counter, value: number) => {
    counter.reset();
    counter.inc(value);
  };
  new Counter({
    name: 'keyhold_sql_statements_total',
    help: 'SQL statements sent to the database (reads and writes; BEGIN and COMMIT not counted)',
    registers,
    collect() {
      total(this, statementCount.statements);
    },
  });
  new Counter({
    name: 'keyhold_sql_transactions_total',
    help: 'Explicit database transactions begun (each a durable commit when it writes)',
    registers,
    collect() {
      total(this, statementCount.transactions);
    },
  });

  const limited = new Counter({
    name: 'keyhold_rate_limited_total',
    help: 'RPCs refused by KEYHOLD_RATE_LIMIT_PER_SECOND (RESOURCE_EXHAUSTED), by the bucket that was empty: address or token',
    labelNames: ['by'] as const,
    registers,
  });
  const limitedBy = { address: limited.labels('address'), token: limited.labels('token') };
  limitedBy.address.inc(0);
  limitedBy.token.inc(0);
  const identity = identityInstruments(registers);
  const sweep = sweepInstruments(registers);

  // Label children are looked up once per combination, not hashed on every call.
  const counted = new Map<string, { count: ReturnType<typeof requests.labels>; time: ReturnType<typeof latency.labels> }>();

  return {
    registry,
    store: {
      appended(n: number) {
        appends.inc();
        events.inc(n);
      },
      transaction(n: number) {
        batches.observe(n);
      },
      databaseError(kind: DatabaseErrorKind) {
        databaseErrors.inc({ kind });
      },
    },
    identity,
    sweep,
    rateLimited: (by) => limitedBy[by].inc(),
    requestStarted: () => inFlight.inc(),
    requestEnded: () => inFlight.dec(),
    rpcAnswered(service, method, protocol, code, seconds) {
      const key = `${service}/${method}\u0000${protocol}\u0000${code}`;
      let children = counted.get(key);
      if (!children) {
        children = { count: requests.labels(service, method, protocol, code), time: latency.labels(service, method, protocol) };
        counted.set(key, children);
      }
      children.count.inc();
      children.time.observe(seconds);
    },
    watchVerificationQueue(depth) {
      queueDepth = depth;
    },
    watchStatements(count) {
      statementCount = count;
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** Every label combination that can occur, shown from the start at 0: a rate over a series that appears with its first count misses that count. */
function identityInstruments(registers: Registry[]): IdentityObserver {
  const logins = new Counter({
    name: 'keyhold_logins_total',
    help: 'Logins at the login UI by outcome: succeeded (signed in, every factor passed; reason none), failed (the password step refused; reason wrong_password, unknown_user, locked, inactive, no_password), throttled (a guessing budget spent; reason attempt_budget)',
    labelNames: ['outcome', 'reason'] as const,
    registers,
  });
  const secondFactors = new Counter({
    name: 'keyhold_second_factors_total',
    help: 'Second factors at the login by kind (security_key, recovery_code, one_time_code) and outcome (succeeded, failed, throttled)',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  });
  const tokens = new Counter({
    name: 'keyhold_tokens_issued_total',
    help: 'Token responses by grant type (authorization_code, refresh_token, client_credentials, device_code, implicit) and app type (web, user_agent, native, machine)',
    labelNames: ['grant_type', 'app_type'] as const,
    registers,
  });
  const reuse = new Counter({
    name: 'keyhold_token_reuse_detected_total',
    help: 'Spent one-time tokens presented again (refresh_token, authorization_code, device_code): each revokes its grant',
    labelNames: ['token'] as const,
    registers,
  });
  const succeeded = logins.labels('succeeded', 'none');
  const throttled = logins.labels('throttled', 'attempt_budget');
  const failed = new Map(LOGIN_FAILURES.map((r) => [r, logins.labels('failed', r)]));
  succeeded.inc(0);
  throttled.inc(0);
  for (const child of failed.values()) child.inc(0);
  for (const kind of SECOND_FACTORS) for (const outcome of ['succeeded', 'failed', 'throttled'] as const) secondFactors.labels(kind, outcome).inc(0);
  // The combinations Keyhold's clients can make: apps never get client credentials, machines nothing else.
  for (const app of ['web', 'user_agent', 'native'] as const) for (const grant of ['authorization_code', 'refresh_token', 'device_code', 'implicit'] as const) tokens.labels(grant, app).inc(0);
  tokens.labels('client_credentials', 'machine').inc(0);
  for (const token of REUSED_TOKENS) reuse.labels(token).inc(0);
  return {
    loginSucceeded: () => succeeded.inc(),
    loginFailed: (reason) => failed.get(reason)?.inc(),
    loginThrottled: () => throttled.inc(),
    secondFactor: (kind, outcome) => secondFactors.labels(kind, outcome).inc(),
    tokensIssued: (grantType, appType) => tokens.labels(grantType, appType).inc(),
    reuseDetected: (token) => reuse.labels(token).inc(),
  };
}

function sweepInstruments(registers: Registry[]): SweepObserver {
  const backlog = new Gauge({
    name: 'keyhold_expired_rows',
    help: 'Expired rows still present, per table the housekeeping sweep deletes from, as its last sweep knew: counted at its start (at most 1 000 000), less what it deleted',
    labelNames: ['table'] as const,
    registers,
  });
  const lastSwept = new Gauge({
    name: 'keyhold_sweep_last_success_timestamp_seconds',
    help: 'When the housekeeping sweep last ran to its end, per table (Unix seconds; 0 before its first)',
    labelNames: ['table'] as const,
    registers,
  });
  for (const table of SWEPT_TABLES) {
    backlog.labels(table).set(0);
    lastSwept.labels(table).set(0);
  }
  return {
    backlog: (table, rows) => backlog.labels(table).set(rows),
    swept: (table) => lastSwept.labels(table).set(Date.now() / 1000),
  };
}
