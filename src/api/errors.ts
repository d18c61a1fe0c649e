// The one function that turns anything thrown below the API into what a client
// sees: a ConnectError carrying google.rpc ErrorInfo, BadRequest (on validation
// errors) and LocalizedMessage. Every transport (gRPC, gRPC-Web, Connect, REST)
// serializes this same ConnectError.
import { Code, ConnectError } from '@connectrpc/connect';
import { BadRequestSchema, ErrorInfoSchema, LocalizedMessageSchema } from '../../gen/google/rpc/error_details_pb.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import { REASONS, renderMessage, type Reason } from '../domain/errors/reasons.js';
import type { Language } from '../domain/i18n/language.js';
import { ConcurrencyConflict, DatabaseUnavailable, databaseUnavailable, isUnavailable } from '../store/errors.js';

export const ERROR_DOMAIN = 'keyhold';

/** Store and runtime failures that have a reason of their own. */
const INFRASTRUCTURE_REASONS: ReadonlyArray<[new (...args: never[]) => Error, Reason]> = [
  [ConcurrencyConflict, 'CONCURRENT_MODIFICATION'],
  [DatabaseUnavailable, 'DATABASE_UNAVAILABLE'],
];

/** Connect's own codes for errors raised by the protocol layer, to a reason. */
const CONNECT_CODE_REASONS: Partial<Record<Code, Reason>> = {
  [Code.InvalidArgument]: 'MALFORMED_BODY',
  [Code.ResourceExhausted]: 'BODY_TOO_LARGE',
  [Code.Unimplemented]: 'NOT_IMPLEMENTED',
  [Code.Unauthenticated]: 'UNAUTHENTICATED',
};

export interface MappedError {
  error: ConnectError;
  /** True when the error is the server's fault and deserves an error log line. */
  internal: boolean;
  /** What to log for it, when not the thrown value itself (which may quote SQL and its parameters). */
  logged?: unknown;
}

export function toConnectError(thrown: unknown, lang: Language): MappedError {
  // A read (a query, a token lookup) that lost the database reaches here as the
  // driver's error: it is the same 503 as a failed write, not a 500.
  if (!(thrown instanceof KeyholdError) && !(thrown instanceof ConnectError) && isUnavailable(thrown)) {
    const unavailable = databaseUnavailable(thrown);
    return { ...toConnectError(unavailable, lang), logged: unavailable };
  }
  if (thrown instanceof KeyholdError) {
    return { error: fromKeyholdError(thrown, lang), internal: thrown.reason === 'INTERNAL' };
  }
  for (const [type, reason] of INFRASTRUCTURE_REASONS) {
    if (thrown instanceof type) {
      return { error: fromKeyholdError(new KeyholdError(reason), lang), internal: reason === 'DATABASE_UNAVAILABLE' };
    }
  }
  if (thrown instanceof ConnectError) {
    if (thrown.details.length > 0) return { error: thrown, internal: false };
    // Raised by connect itself (e.g. a body it could not decode): keep its code,
    // add the details every Keyhold error carries. Its message names the problem.
    const reason = CONNECT_CODE_REASONS[thrown.code];
    if (reason) {
      const err = fromKeyholdError(new KeyholdError(reason, { problem: thrown.rawMessage, limit: '' }), lang);
      return { error: new ConnectError(thrown.rawMessage, thrown.code, undefined, err.details as never), internal: false };
    }
    return { error: thrown, internal: thrown.code === Code.Internal || thrown.code === Code.Unknown };
  }
  return { error: fromKeyholdError(new KeyholdError('INTERNAL'), lang), internal: true };
}

function fromKeyholdError(err: KeyholdError, lang: Language): ConnectError {
  const entry = REASONS[err.reason];
  const details: ConstructorParameters<typeof ConnectError>[3] = [
    { desc: ErrorInfoSchema, value: { reason: err.reason, domain: ERROR_DOMAIN, metadata: err.metadata } },
  ];
  if (err.violations.length > 0) {
    details.push({
      desc: BadRequestSchema,
      value: { fieldViolations: err.violations.map((v) => ({ field: v.field, description: v.describe(lang) })) },
    });
  }
  details.push({ desc: LocalizedMessageSchema, value: { locale: lang, message: renderMessage(err.reason, lang, err.metadata) } });
  return new ConnectError(renderMessage(err.reason, 'en', err.metadata), entry.code as number as Code, undefined, details);
}
