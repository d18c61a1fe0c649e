// THE one function that turns anything thrown — by a command, a query, the
// store, the database driver, connect while it reads a request, fastify while
// it routes or reads a body — into what a client sees: a google.rpc.Status
// (carried as a ConnectError) with ErrorInfo (reason, domain "keyhold"),
// BadRequest for field violations and LocalizedMessage, plus RetryInfo and
// retry-after for retryable refusals. Every protocol (gRPC, the gRPC fast
// path, gRPC-Web, Connect, REST, the listener's refusals) serializes this same
// Status in its own shape; the shapes are below (REST JSON) or connect's.
import { Code, ConnectError } from '@connectrpc/connect';
import { create, toJson, type DescMessage, type JsonObject } from '@bufbuild/protobuf';
import { BadRequestSchema, ErrorInfoSchema, LocalizedMessageSchema, RetryInfoSchema } from '../../../gen/google/rpc/error_details_pb.js';
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import { REASONS, renderMessage, type Reason } from '../../domain/errors/reasons.js';
import type { Language } from '../../domain/i18n/language.js';
import {
  ConcurrencyConflict,
  DatabaseUnavailable,
  databaseUnavailable,
  isStorageRefusal,
  isUnavailable,
  StorageUnavailable,
  storageUnavailable,
} from '../../store/errors.js';
import type { RequestRecord } from '../http/requests.js';

export const ERROR_DOMAIN = 'keyhold';

export interface MappedError {
  error: ConnectError;
  /** True when the error is the server's fault and deserves an error log line. */
  internal: boolean;
  /** What to log for it, when not the thrown value itself (which may quote SQL and its parameters). */
  logged?: unknown;
}

/** Limits some reasons name. */
export interface StatusLimits {
  /** The largest request body (BODY_TOO_LARGE). */
  readMaxBytes?: number;
  /** The longest path parameter fastify routes (REQUEST_MALFORMED). */
  maxParamLength?: number;
}

/** Store and runtime failures that have a reason of their own. */
const INFRASTRUCTURE_REASONS: ReadonlyArray<[new (...args: never[]) => Error, Reason]> = [
  [ConcurrencyConflict, 'CONCURRENT_MODIFICATION'],
  [DatabaseUnavailable, 'DATABASE_UNAVAILABLE'],
];

/** Messages of connect's own request-reading failures: the client's fault, whatever code connect chose. */
const CLIENT_FAULT = /^(parse binary|received compressed envelope|invalid envelope|protocol error|decompress)/i;

/** fastify's own failures while routing a request or reading its body, by error code. */
const FRAMEWORK_REASONS: Readonly<Record<string, { reason: Reason; problem: (limits: StatusLimits) => string; routing?: true }>> = {
  FST_ERR_BAD_URL: { reason: 'REQUEST_MALFORMED', problem: () => 'the path is not valid percent-encoded UTF-8', routing: true },
  FST_ERR_MAX_PARAM_LENGTH: { reason: 'REQUEST_MALFORMED', problem: (l) => `a path parameter is longer than ${l.maxParamLength} characters`, routing: true },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { reason: 'UNSUPPORTED_MEDIA_TYPE', problem: () => 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_TYPE: { reason: 'UNSUPPORTED_MEDIA_TYPE', problem: () => 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { reason: 'MALFORMED_BODY', problem: () => 'the body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { reason: 'MALFORMED_BODY', problem: () => 'the body is not valid JSON' },
  FST_ERR_CTP_INVALID_JSON_BODY: { reason: 'MALFORMED_BODY', problem: () => 'the body is not valid JSON' },
  FST_ERR_CTP_BODY_TOO_LARGE: { reason: 'BODY_TOO_LARGE', problem: () => 'body_too_large' },
};

/**
 * The Status for `thrown`. With the `request` it answers, its id goes into
 * ErrorInfo.metadata (`requestId`) and the code and reason into the request's
 * record (its log line and metrics, requests.ts); when a request's error is
 * mapped twice (an interceptor, then the protocol), the last mapping is the answer.
 */
export function toStatus(thrown: unknown, lang: Language, limits: StatusLimits = {}, request?: RequestRecord): MappedError {
  const mapped = mapError(thrown, lang, limits, request?.id);
  if (request) {
    request.code = mapped.error.code;
    request.reason = reasonOf(mapped.error);
  }
  return mapped;
}

/** The ErrorInfo reason of a Status made here. */
function reasonOf(err: ConnectError): string | undefined {
  for (const d of err.details) if ('desc' in d && d.desc === ErrorInfoSchema) return (d.value as { reason?: string }).reason;
  return undefined;
}

function mapError(thrown: unknown, lang: Language, limits: StatusLimits, requestId: string | undefined): MappedError {
  const limit = limits.readMaxBytes === undefined ? '' : String(limits.readMaxBytes);
  // A read (a query, a token lookup) that lost the database, or a statement the
  // storage refused, reaches here as the driver's error: the same 503 as a
  // failed append, not a 500. Storage first: a full disk may come as a PANIC.
  const driverLevel = !(thrown instanceof KeyholdError) && !(thrown instanceof ConnectError);
  if (driverLevel && !(thrown instanceof StorageUnavailable) && isStorageRefusal(thrown)) {
    const refused = storageUnavailable(thrown);
    return { ...mapError(refused, lang, limits, requestId), logged: refused };
  }
  if (thrown instanceof StorageUnavailable) {
    return { error: fromKeyholdError(new KeyholdError(thrown.reason), lang, requestId), internal: true };
  }
  if (driverLevel && isUnavailable(thrown)) {
    const unavailable = databaseUnavailable(thrown);
    return { ...mapError(unavailable, lang, limits, requestId), logged: unavailable };
  }
  if (thrown instanceof KeyholdError) {
    return { error: fromKeyholdError(thrown, lang, requestId), internal: thrown.reason === 'INTERNAL' };
  }
  for (const [type, reason] of INFRASTRUCTURE_REASONS) {
    if (thrown instanceof type) {
      return { error: fromKeyholdError(new KeyholdError(reason), lang, requestId), internal: reason === 'DATABASE_UNAVAILABLE' };
    }
  }
  if (thrown instanceof ConnectError) return fromConnectError(thrown, lang, limit, requestId);
  const framework = thrown as { code?: string; statusCode?: number } | null;
  if (framework && typeof framework === 'object') {
    const known = framework.code !== undefined && Object.hasOwn(FRAMEWORK_REASONS, framework.code) ? FRAMEWORK_REASONS[framework.code] : undefined;
    if (known) {
      const metadata: Record<string, string> = known.routing ? { problem: known.problem(limits) } : { problem: known.problem(limits), limit };
      return { error: fromKeyholdError(new KeyholdError(known.reason, metadata), lang, requestId), internal: false };
    }
    if (framework.statusCode !== undefined && framework.statusCode >= 400 && framework.statusCode < 500) {
      return { error: fromKeyholdError(new KeyholdError('MALFORMED_BODY', { problem: 'the request could not be read' }), lang, requestId), internal: false };
    }
  }
  return { error: fromKeyholdError(new KeyholdError('INTERNAL'), lang, requestId), internal: true };
}

/**
 * An error connect raised itself (reading a request, before any interceptor)
 * carries no details, and a binary message that does not parse leaves as
 * INTERNAL ("parse binary: …"), a server fault, although the client sent the
 * bad bytes: such errors get a client-side code and Keyhold's details.
 */
function fromConnectError(err: ConnectError, lang: Language, limit: string, requestId: string | undefined): MappedError {
  if (err.details.length > 0) return { error: err, internal: false };
  // connect says UNIMPLEMENTED for a unary request with no or two messages ("protocol error: …"): the client's bytes, not a missing feature.
  const misread = err.code === Code.Internal || err.code === Code.Unknown || (err.code === Code.Unimplemented && /^protocol error/i.test(err.rawMessage));
  const code = misread && CLIENT_FAULT.test(err.rawMessage) ? Code.InvalidArgument : err.code;
  const problem = err.rawMessage.slice(0, 200);
  switch (code) {
    case Code.InvalidArgument:
      return { error: fromKeyholdError(new KeyholdError('MALFORMED_BODY', { problem }), lang, requestId), internal: false };
    case Code.ResourceExhausted:
      return { error: fromKeyholdError(new KeyholdError('BODY_TOO_LARGE', { limit }), lang, requestId), internal: false };
    case Code.Unimplemented:
      return { error: fromKeyholdError(new KeyholdError('NOT_IMPLEMENTED'), lang, requestId), internal: false };
    case Code.Unauthenticated:
      return { error: fromKeyholdError(new KeyholdError('UNAUTHENTICATED'), lang, requestId), internal: false };
    default:
      return { error: err, internal: code === Code.Internal || code === Code.Unknown };
  }
}

function fromKeyholdError(err: KeyholdError, lang: Language, requestId: string | undefined): ConnectError {
  const entry = REASONS[err.reason];
  const metadata = requestId === undefined ? err.metadata : { ...err.metadata, requestId };
  const details: ConstructorParameters<typeof ConnectError>[3] = [
    { desc: ErrorInfoSchema, value: { reason: err.reason, domain: ERROR_DOMAIN, metadata } },
  ];
  if (err.violations.length > 0) {
    details.push({
      desc: BadRequestSchema,
      value: { fieldViolations: err.violations.map((v) => ({ field: v.field, description: v.describe(lang) })) },
    });
  }
  details.push({ desc: LocalizedMessageSchema, value: { locale: lang, message: renderMessage(err.reason, lang, err.metadata) } });
  const error = new ConnectError(renderMessage(err.reason, 'en', err.metadata), entry.code as number as Code, undefined, details);
  // A fixed wait (storage) from the table, or the one the refusal computed (a rate limit).
  const retryAfter = (entry as { retryAfterSeconds?: number }).retryAfterSeconds ?? (err.metadata.retryAfterSeconds ? Number(err.metadata.retryAfterSeconds) : undefined);
  return retryAfter === undefined || !(retryAfter > 0) ? error : withRetryAfter(error, retryAfter);
}

/**
 * The same error, telling the client when to try again: a `retry-after`
 * header in whole seconds (an HTTP header on REST, a trailer on gRPC) and a
 * google.rpc.RetryInfo detail.
 */
function withRetryAfter(err: ConnectError, seconds: number): ConnectError {
  const whole = Math.max(1, Math.ceil(seconds));
  const metadata = new Headers(err.metadata);
  metadata.set('retry-after', String(whole));
  return new ConnectError(err.rawMessage, err.code, metadata, [
    ...(err.details as never[]),
    { desc: RetryInfoSchema, value: { retryDelay: { seconds: BigInt(whole), nanos: 0 } } },
  ]);
}

// --- REST's shape of a Status --------------------------------------------------

/** The HTTP status grpc-gateway uses for each gRPC code. */
const HTTP_STATUS_BY_CODE: Record<Code, number> = {
  [Code.Canceled]: 499,
  [Code.Unknown]: 500,
  [Code.InvalidArgument]: 400,
  [Code.DeadlineExceeded]: 504,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.PermissionDenied]: 403,
  [Code.ResourceExhausted]: 429,
  [Code.FailedPrecondition]: 400,
  [Code.Aborted]: 409,
  [Code.OutOfRange]: 400,
  [Code.Unimplemented]: 501,
  [Code.Internal]: 500,
  [Code.Unavailable]: 503,
  [Code.DataLoss]: 500,
  [Code.Unauthenticated]: 401,
};

export function httpStatusOf(code: Code): number {
  return HTTP_STATUS_BY_CODE[code] ?? 500;
}

/** REST's status for an error: its reason's own where the table names one (reasons.ts httpStatus), else the code's. */
export function restStatusOf(err: ConnectError): number {
  const reason = reasonOf(err);
  const own = reason !== undefined && Object.hasOwn(REASONS, reason) ? (REASONS[reason as Reason] as { httpStatus?: number }).httpStatus : undefined;
  return own ?? httpStatusOf(err.code);
}

export interface StatusJson {
  code: number;
  message: string;
  details: JsonObject[];
}

/** google.rpc.Status JSON: details as Any with "@type", fields in lowerCamelCase. */
export function statusJsonOf(err: ConnectError): StatusJson {
  const details: JsonObject[] = [];
  for (const d of err.details) {
    if ('desc' in d) {
      const desc = d.desc as DescMessage;
      const msg = create(desc, d.value as never);
      details.push({ '@type': `type.googleapis.com/${desc.typeName}`, ...(toJson(desc, msg) as JsonObject) });
    }
  }
  return { code: err.code, message: err.rawMessage, details };
}
