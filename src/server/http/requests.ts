// Every request's record, from its arrival to its answer: its id, how it came
// (protocol, RPC, REST route template), how it was answered (HTTP status, gRPC
// code, reason), who asked and how long it took. At the end it becomes one log
// line at info and the request metrics (metrics.ts).
//
// The id is the client's `x-request-id` when it is a plausible one (printable
// ASCII, at most 128 characters, not a Keyhold token pasted there by mistake),
// else a new UUID. Every protocol returns it in an `x-request-id` response
// header and every error carries it in ErrorInfo.metadata.requestId (status.ts),
// so a client's report and the server's log line meet.
//
// Who asked: the client's address (its peer's, or through KEYHOLD_TRUSTED_PROXIES
// the forwarded one: trusted-proxies.ts) and its User-Agent, bounded and with
// control characters escaped (a forged line break or terminal escape in a log
// viewer is not the client's to write). Nothing else the client sent is logged
// beyond that id: no URL (a query may hold id_token_hint, login_hint or a
// mistaken token; REST logs its route template), no other header (Authorization,
// Cookie), no body. Probes and scrapes (/healthz, /readyz, /metrics,
// grpc.health.v1) log at debug: a Kubernetes probe every few seconds would
// otherwise be most of the log.
import { randomUUID } from 'node:crypto';
import { Code, createContextKey, type ContextValues } from '@connectrpc/connect';
import { codeFromHttpStatus } from '@connectrpc/connect/protocol-connect';
import type { Logger } from 'pino';
import { callerKey } from '../../access/caller.js';
import type { Metrics, Protocol } from '../metrics.js';

export type { Protocol };

export const REQUEST_ID_HEADER = 'x-request-id';

export interface RequestRecord {
  readonly id: string;
  /** performance.now() at arrival. */
  readonly startedAt: number;
  /** Set for RPCs (REST routes included): what the metrics count. */
  protocol?: Protocol;
  service?: string;
  method?: string;
  /** The route template answered: REST "POST /management/v1/projects/{project_id}/apps/oidc", else e.g. "GET /healthz". */
  route?: string;
  /** The code of the Status the request was answered with (status.ts notes it); undefined when none was made. */
  code?: Code;
  /** The Status's reason, or the OpenID Provider's OAuth error (`invalid_grant`; oidc/error-notes.ts). */
  reason?: string;
  /** The OAuth error's description (the provider's text, bounded). */
  description?: string;
  /** The OpenID client the request concerned (a known client: oidc/error-notes.ts), when there is one. */
  clientId?: string;
  /** The client's address (through the trusted proxies). */
  clientAddress?: string;
  /** The client's User-Agent, as userAgentOf made it loggable. */
  userAgent?: string;
  /** The call's context values (the authenticated caller is read from them at the end). */
  context?: ContextValues;
  /** Probes and scrapes: logged at debug, and not counted as served (the idle collection's activity). */
  quiet?: boolean;
  ended?: boolean;
}

/** The record of the request being served, for interceptors and the error mapping. */
export const requestKey = createContextKey<RequestRecord | undefined>(undefined, { description: 'the request being served' });

const PLAUSIBLE_ID = /^[\x21-\x7e]{1,128}$/;
/** A personal access token (domain/identity/tokens.ts) must not be logged, even as an id. */
const TOKEN_LIKE = /kh_/i;

/** The client's request id when it is a plausible one, else a new one. */
export function requestIdOf(given: string | string[] | null | undefined): string {
  const value = Array.isArray(given) ? undefined : given;
  return value && PLAUSIBLE_ID.test(value) && !TOKEN_LIKE.test(value) ? value : randomUUID();
}

/** The longest User-Agent a line carries (escapes included); real ones are well under it. */
export const MAX_USER_AGENT = 256;

/**
 * Control characters (C0, DEL, C1), line and paragraph separators and bidi
 * controls: what would break a line or rearrange what an operator reads; lone
 * surrogates; and the backslash, so an escape in the line is always Keyhold's.
 */
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\\\ud800-\udfff]/;

/** One code point (a surrogate pair whole, a lone surrogate escaped). */
const escapeOne = (c: string): string => {
  if (c.length > 1 || !UNSAFE.test(c)) return c;
  if (c === '\\') return '\\\\';
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** A User-Agent as it may be logged: unsafe characters escaped (\xNN, \uNNNN, \\), at most MAX_USER_AGENT characters, never cut inside an escape. */
export function userAgentOf(given: string | string[] | null | undefined): string | undefined {
  const value = Array.isArray(given) ? given.join(', ') : given;
  if (!value) return undefined;
  if (value.length <= MAX_USER_AGENT && !UNSAFE.test(value)) return value;
  let out = '';
  for (const c of value.slice(0, MAX_USER_AGENT)) {
    const piece = escapeOne(c);
    if (out.length + piece.length > MAX_USER_AGENT) break;
    out += piece;
  }
  return out;
}

/** The gRPC code names (google.rpc.Code), as the metrics label them and the log says them. */
const CODE_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

/**
 * An error answered without a Status (the OpenID Provider's, the login pages'):
 * its code by the HTTP status, as grpc-gateway maps them the other way (design
 * §2). Connect's own mapping (the rest) reads a 400 as INTERNAL: right for a
 * Connect client's transport, wrong for a refused OAuth request.
 */
const CODE_OF_HTTP_STATUS: Readonly<Record<number, Code>> = {
  400: Code.InvalidArgument,
  401: Code.Unauthenticated,
  403: Code.PermissionDenied,
  404: Code.NotFound,
  409: Code.Aborted,
  413: Code.ResourceExhausted,
  429: Code.ResourceExhausted,
  500: Code.Internal,
  501: Code.Unimplemented,
  503: Code.Unavailable,
};

export function codeName(code: number): string {
  return CODE_NAMES[code] ?? 'UNKNOWN';
}

export interface RequestTracker {
  /** A request arrived (counted in flight until `end`). */
  begin(requestId: string | string[] | null | undefined): RequestRecord;
  /**
   * The request is over: `httpStatus` is what was sent, `answered` false when
   * the connection or stream closed before the answer was complete. Logs and
   * counts it once; later calls do nothing.
   */
  end(record: RequestRecord, httpStatus: number, answered: boolean): void;
  /**
   * Requests ended since the start, probes and scrapes (`quiet`) left out: what
   * tells the idle collection (idle-collection.ts) that the server is serving.
   */
  served(): number;
}

export function requestTracker(log: Logger, metrics: Metrics): RequestTracker {
  let served = 0;
  return {
    served: () => served,
    begin(requestId) {
      metrics.requestStarted();
      return { id: requestIdOf(requestId), startedAt: performance.now() };
    },
    end(record, httpStatus, answered) {
      if (record.ended) return;
      record.ended = true;
      if (!record.quiet) served++;
      metrics.requestEnded();
      const ms = performance.now() - record.startedAt;
      const rpc = record.service !== undefined && record.method !== undefined;
      // Every error answer passed the one mapping (status.ts), which noted its
      // code; what remains is a success, or a request given up half-way.
      const code =
        record.code ?? (!answered ? Code.Canceled : httpStatus < 400 ? (rpc ? 0 : undefined) : (CODE_OF_HTTP_STATUS[httpStatus] ?? codeFromHttpStatus(httpStatus)));
      if (rpc && record.protocol) metrics.rpcAnswered(record.service!, record.method!, record.protocol, codeName(code ?? 0), ms / 1000);
      const level = record.quiet ? 'debug' : 'info';
      if (!log.isLevelEnabled(level)) return;
      log[level](
        {
          requestId: record.id,
          protocol: record.protocol,
          rpc: rpc ? `/${record.service}/${record.method}` : undefined,
          route: record.route,
          httpStatus,
          code: code === undefined ? undefined : codeName(code),
          reason: record.reason,
          description: record.description,
          clientId: record.clientId,
          clientAddress: record.clientAddress,
          userAgent: record.userAgent,
          durationMs: Math.round(ms * 1000) / 1000,
          userId: record.context?.get(callerKey)?.userId,
        },
        'request',
      );
    },
  };
}
