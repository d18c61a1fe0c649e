// Prometheus metrics (prom-client): the one place Keyhold's instruments are
// made. Everything that measures gets them from here — the request tracker
// (requests.ts: calls by service, method, protocol and code, latency, in
// flight), the store through its observer port (store/observer.ts: appends,
// group-commit transaction sizes, database errors by kind), the verification
// threads (queue depth) — and GET /metrics (app.ts) renders them.
//
// Each Keyhold has a registry of its own, Node's default process metrics
// included, so two Keyholds in one process (tests) never share or collide.
// Label values are bounded by the schema (services, methods), four protocols,
// the gRPC codes and a handful of error kinds: no ids, no user input.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabaseErrorKind, StoreObserver } from '../store/observer.js';

/** How a call arrived: the `protocol` label. */
export type Protocol = 'grpc' | 'grpc_web' | 'connect' | 'rest';

export interface Metrics {
  readonly registry: Registry;
  /** What the store reports (appends, transactions, database errors). */
  readonly store: StoreObserver;
  /** A request began / was answered (or abandoned): the in-flight gauge. */
  requestStarted(): void;
  requestEnded(): void;
  /** An RPC was answered with `code` (the gRPC code name, e.g. OK, INVALID_ARGUMENT) after `seconds`. */
  rpcAnswered(service: string, method: string, protocol: Protocol, code: string, seconds: number): void;
  /** Where the verification threads' queue depth is read at each scrape. */
  watchVerificationQueue(depth: () => number): void;
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
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
