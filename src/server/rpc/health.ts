// grpc.health.v1.Health: what Kubernetes gRPC probes, load balancers and
// grpc-js health clients ask (grpc/grpc doc/health-checking.md). It reports
// what /readyz reports — SERVING while the database answers, NOT_SERVING while
// it does not — for the server as a whole ("") and for each API service (all
// of them need the database). Health and reflection need no database: they are
// SERVING while the process runs. Everything is NOT_SERVING once shutdown
// begins, so a balancer drains the instance before it goes.
//
// Check asks the database each time (as /readyz does; concurrent asks share
// one probe). Watch answers at once, then polls readiness on an interval and
// sends a message when the status changes; the poller runs only while someone
// watches. Unknown services: Check fails with NOT_FOUND, Watch answers
// SERVICE_UNKNOWN and stays open, as the protocol says.
import type { DescService } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import {
  Health,
  HealthCheckResponse_ServingStatus as Status,
  type HealthCheckRequest,
} from '../../../gen/grpc/health/v1/health_pb.js';
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import type { RegisteredService } from './rest.js';

/** How often Watch asks the database while anyone watches. */
export const HEALTH_POLL_INTERVAL_MS = 1_000;

export interface HealthOptions {
  /** Resolves when the database answers (the /readyz probe). */
  ready: () => Promise<void>;
  /** Services whose status follows the database. */
  needDatabase: readonly DescService[];
  /** Services that serve without the database (reflection). Health itself is always added. */
  independent?: readonly DescService[];
  pollIntervalMs?: number;
}

export interface HealthService extends RegisteredService {
  /** Shutdown: every status becomes NOT_SERVING and open watches end after saying so. */
  close(): void;
}

interface Watcher {
  /** The newest status not yet seen by this watcher's stream. */
  next?: Status;
  wake?: () => void;
}

export function createHealthService(opts: HealthOptions): HealthService {
  const pollMs = opts.pollIntervalMs ?? HEALTH_POLL_INTERVAL_MS;
  // "" is the server as a whole; it follows the database like the API.
  const followsDatabase = new Set(['', ...opts.needDatabase.map((s) => s.typeName)]);
  const independent = new Set([Health.typeName, ...(opts.independent ?? []).map((s) => s.typeName)]);
  const known = (name: string) => followsDatabase.has(name) || independent.has(name);

  let closed = false;
  let probing: Promise<Status> | undefined;
  /** The database's status: one probe at a time, shared by everyone asking meanwhile. */
  const databaseStatus = (): Promise<Status> =>
    (probing ??= opts
      .ready()
      .then(
        () => Status.SERVING,
        () => Status.NOT_SERVING,
      )
      .finally(() => (probing = undefined)));
  const statusOf = async (name: string): Promise<Status> => {
    if (closed) return Status.NOT_SERVING;
    if (independent.has(name)) return Status.SERVING;
    const status = await databaseStatus();
    return closed ? Status.NOT_SERVING : status;
  };

  // Watchers by the service they watch; one poller for all of them.
  const watchers = new Map<Watcher, string>();
  let timer: NodeJS.Timeout | undefined;
  const publish = (watcher: Watcher, status: Status) => {
    watcher.next = status;
    watcher.wake?.();
  };
  const poll = async () => {
    const status = await databaseStatus();
    for (const [watcher, name] of watchers) publish(watcher, closed ? Status.NOT_SERVING : independent.has(name) ? Status.SERVING : status);
  };
  const watchStarted = (watcher: Watcher, name: string) => {
    watchers.set(watcher, name);
    timer ??= setInterval(() => void poll(), pollMs);
  };
  const watchEnded = (watcher: Watcher) => {
    watchers.delete(watcher);
    if (watchers.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  const impl = {
    async check(req: HealthCheckRequest) {
      if (!known(req.service)) throw new KeyholdError('HEALTH_SERVICE_UNKNOWN', { service: req.service.slice(0, 200) });
      return { status: await statusOf(req.service) };
    },

    async list() {
      const names = [...followsDatabase, ...independent];
      const statuses = await Promise.all(names.map(statusOf));
      return { statuses: Object.fromEntries(names.map((name, i) => [name, { status: statuses[i] }])) };
    },

    async *watch(req: HealthCheckRequest, ctx: HandlerContext) {
      const signal = ctx.signal;
      if (!known(req.service)) {
        // The protocol keeps the stream open: the service might be added later (here it never is).
        yield { status: Status.SERVICE_UNKNOWN };
        if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        return;
      }
      const watcher: Watcher = {};
      const onAbort = () => watcher.wake?.();
      signal.addEventListener('abort', onAbort, { once: true });
      watchStarted(watcher, req.service);
      try {
        let last = await statusOf(req.service);
        yield { status: last };
        while (!signal.aborted && !(closed && last === Status.NOT_SERVING)) {
          if (watcher.next === undefined) await new Promise<void>((resolve) => (watcher.wake = resolve));
          watcher.wake = undefined;
          const next = watcher.next;
          watcher.next = undefined;
          if (next === undefined || next === last || signal.aborted) continue;
          last = next;
          yield { status: last };
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        watchEnded(watcher);
      }
    },
  };

  return {
    desc: Health,
    impl,
    close() {
      if (closed) return;
      closed = true;
      for (const watcher of watchers.keys()) publish(watcher, Status.NOT_SERVING);
    },
  };
}
