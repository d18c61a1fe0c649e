// Errors that connect raises itself while reading a request — before any
// interceptor runs — carry no details, and a binary message that does not parse
// leaves as INTERNAL ("parse binary: …"), a server fault, although the client
// sent the bad bytes. This wraps each universal handler so that such errors, in
// all three protocols (gRPC trailers, gRPC-Web trailer frame, Connect error
// JSON), leave with a client-side code and Keyhold's details like every other
// error: MALFORMED_BODY, BODY_TOO_LARGE or NOT_IMPLEMENTED.
import { Code, ConnectError } from '@connectrpc/connect';
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';
import { codeToHttpStatus, errorFromJsonBytes, errorToJsonBytes } from '@connectrpc/connect/protocol-connect';
import { findTrailerError, setTrailerStatus } from '@connectrpc/connect/protocol-grpc';
import { trailerFlag, trailerParse, trailerSerialize } from '@connectrpc/connect/protocol-grpc-web';
import { toConnectError } from '../api/errors.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import { negotiateLanguage, type Language } from '../domain/i18n/language.js';
import { statusJsonOf } from './status.js';

/** Messages of connect's own request-reading failures: the client's fault, whatever code connect chose. */
const CLIENT_FAULT = /^(parse binary|received compressed envelope|invalid envelope|protocol error|decompress)/i;

/** The same error, with a client-side code where the client was at fault, and Keyhold's details. */
export function withKeyholdDetails(err: ConnectError, lang: Language, readMaxBytes: number): ConnectError {
  if (err.details.length > 0) return err;
  // connect says UNIMPLEMENTED for a unary request with no or two messages ("protocol error: …"): the client's bytes, not a missing feature.
  const misread = err.code === Code.Internal || err.code === Code.Unknown || (err.code === Code.Unimplemented && /^protocol error/i.test(err.rawMessage));
  const code = misread && CLIENT_FAULT.test(err.rawMessage) ? Code.InvalidArgument : err.code;
  const problem = err.rawMessage.slice(0, 200);
  switch (code) {
    case Code.InvalidArgument:
      return toConnectError(new KeyholdError('MALFORMED_BODY', { problem }), lang).error;
    case Code.ResourceExhausted:
      return toConnectError(new KeyholdError('BODY_TOO_LARGE', { limit: String(readMaxBytes) }), lang).error;
    case Code.Unimplemented:
      return toConnectError(new KeyholdError('NOT_IMPLEMENTED'), lang).error;
    default:
      return err;
  }
}

function isAsyncIterable(body: UniversalServerResponse['body']): body is AsyncIterable<Uint8Array> {
  return typeof body === 'object' && body !== null && Symbol.asyncIterator in body;
}

export function withProtocolErrors(handler: UniversalHandler, readMaxBytes: number): UniversalHandler {
  const wrapped = async (req: UniversalServerRequest): Promise<UniversalServerResponse> => {
    const res = await handler(req);
    const contentType = req.header.get('content-type') ?? '';
    const lang = negotiateLanguage(req.header.get('accept-language'));
    const fix = (err: ConnectError) => withKeyholdDetails(err, lang, readMaxBytes);
    const body = res.body;
    if (!isAsyncIterable(body)) {
      // connect's bodiless refusals (unsupported content type, wrong HTTP method) as Status JSON.
      const reason = res.status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : res.status === 405 ? 'METHOD_NOT_ALLOWED' : undefined;
      if (!reason || body !== undefined) return res;
      const path = new URL(req.url).pathname.slice(0, 256);
      const json = Buffer.from(JSON.stringify(statusJsonOf(toConnectError(new KeyholdError(reason, { method: req.method, path }), lang).error)));
      const header = new Headers(res.header);
      header.set('content-type', 'application/json; charset=utf-8');
      header.set('content-length', String(json.byteLength));
      return { ...res, header, body: (async function* () { yield json; })() };
    }

    if (/^application\/grpc-web/i.test(contentType)) {
      // The status travels in the last frame of the body (flag 0x80, uncompressed).
      return {
        ...res,
        body: (async function* () {
          for await (const chunk of body) {
            if (chunk.length >= 5 && chunk[0] === trailerFlag) {
              const trailer = trailerParse(chunk.subarray(5));
              const err = findTrailerError(trailer);
              if (err && err.details.length === 0) {
                const fixed = new Headers();
                setTrailerStatus(fixed, fix(err));
                const data = trailerSerialize(fixed);
                const frame = new Uint8Array(5 + data.length);
                frame[0] = trailerFlag;
                new DataView(frame.buffer).setUint32(1, data.length);
                frame.set(data, 5);
                yield frame;
                continue;
              }
            }
            yield chunk;
          }
        })(),
      };
    }

    if (/^application\/grpc/i.test(contentType)) {
      // The status is written into the trailer while the body is iterated; fix it after.
      const trailer = res.trailer;
      if (!trailer) return res;
      return {
        ...res,
        body: (async function* () {
          yield* body;
          const err = findTrailerError(trailer);
          if (err && err.details.length === 0) {
            for (const name of ['grpc-status', 'grpc-message', 'grpc-status-details-bin']) trailer.delete(name);
            setTrailerStatus(trailer, fix(err));
          }
        })(),
      };
    }

    // Connect unary: an error is one uncompressed JSON body with an HTTP status.
    if (res.status === 200 || res.header?.has('content-encoding')) return res;
    const chunks: Uint8Array[] = [];
    for await (const chunk of body) chunks.push(chunk);
    const bytes = Buffer.concat(chunks);
    let err: ConnectError;
    try {
      err = errorFromJsonBytes(bytes, undefined, new ConnectError('', Code.Unknown));
    } catch {
      return { ...res, body: (async function* () { yield bytes; })() };
    }
    const fixed = err.details.length === 0 ? fix(err) : err;
    const out = fixed === err ? bytes : errorToJsonBytes(fixed, {});
    const header = new Headers(res.header);
    header.set('content-length', String(out.byteLength));
    return { ...res, status: fixed === err ? res.status : codeToHttpStatus(fixed.code), header, body: (async function* () { yield out; })() };
  };
  return Object.assign(wrapped, {
    protocolNames: handler.protocolNames,
    service: handler.service,
    method: handler.method,
    requestPath: handler.requestPath,
    allowedMethods: handler.allowedMethods,
    supportedContentType: handler.supportedContentType,
  });
}
