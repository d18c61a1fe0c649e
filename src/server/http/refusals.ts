// The answer to a request the listener refuses before any handler (request-head.ts),
// in the shape its protocol reads: gRPC and gRPC-Web get a trailers-only
// response (HTTP 200, grpc-status in the headers), Connect its error JSON, REST
// and anything unknown a google.rpc.Status with the sharpest HTTP status. The
// details are Keyhold's (reason, localized message) as everywhere else, and
// with the request's record its id (x-request-id header, ErrorInfo.metadata).
import { ConnectError } from '@connectrpc/connect';
import { codeToHttpStatus, errorToJsonBytes, parseContentType as connectContentType } from '@connectrpc/connect/protocol-connect';
import { setTrailerStatus } from '@connectrpc/connect/protocol-grpc';
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import { negotiateLanguage } from '../../domain/i18n/language.js';
import type { RawAnswer, RefusedRequest, Refusal } from './request-head.js';
import { API_RESPONSE_HEADERS } from './response-headers.js';
import { REQUEST_ID_HEADER, type RequestRecord } from './requests.js';
import { statusJsonOf, toStatus } from '../rpc/status.js';

const REST_STATUS: Record<Refusal['kind'], number> = {
  HEADERS_TOO_LARGE: 431,
  REPEATED_HEADER: 400,
  REQUEST_MALFORMED: 400,
  REQUEST_TIMEOUT: 408,
};

/** Connect's request paths: /<package>.<Service>/<Method>. */
const CONNECT_PATH = /^\/[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\/[A-Za-z_]\w*(?:\?|$)/;

function errorOf(refusal: Refusal): KeyholdError {
  switch (refusal.kind) {
    case 'HEADERS_TOO_LARGE':
      return new KeyholdError('HEADERS_TOO_LARGE', { limit: String(refusal.limit) });
    case 'REPEATED_HEADER':
      return new KeyholdError('REPEATED_HEADER', { header: refusal.header });
    case 'REQUEST_MALFORMED':
      return new KeyholdError('REQUEST_MALFORMED', { problem: 'the request line or a header is malformed' });
    case 'REQUEST_TIMEOUT':
      return new KeyholdError('REQUEST_TIMEOUT');
  }
}

export function refusalAnswer(refusal: Refusal, request: RefusedRequest, record?: RequestRecord): RawAnswer {
  const err: ConnectError = toStatus(errorOf(refusal), negotiateLanguage(request.acceptLanguage), {}, record).error;
  const contentType = request.contentType ?? '';
  const common = record ? { ...API_RESPONSE_HEADERS, [REQUEST_ID_HEADER]: record.id } : API_RESPONSE_HEADERS;
  if (/^application\/grpc/i.test(contentType)) {
    const trailer = setTrailerStatus(new Headers(), err);
    const headers: Record<string, string> = {
      ...common,
      'content-type': /^application\/grpc-web/i.test(contentType) ? 'application/grpc-web+proto' : 'application/grpc+proto',
    };
    trailer.forEach((value, name) => (headers[name] = value));
    return { status: 200, headers };
  }
  if (request.path && CONNECT_PATH.test(request.path) && connectContentType(contentType)) {
    const body = errorToJsonBytes(err, {});
    return { status: codeToHttpStatus(err.code), headers: { ...common, 'content-type': 'application/json' }, body };
  }
  const body = Buffer.from(JSON.stringify(statusJsonOf(err)));
  return { status: REST_STATUS[refusal.kind], headers: { ...common, 'content-type': 'application/json; charset=utf-8' }, body };
}
