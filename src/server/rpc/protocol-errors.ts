// Errors that connect raises itself while reading a request — before any
// interceptor runs — carry no details, and a binary message that does not parse
// leaves as INTERNAL ("parse binary: …"), a server fault, although the client
// sent the bad bytes. This wraps each universal handler so that such errors, in
// all three protocols (gRPC trailers, gRPC-Web trailer frame, Connect error
// JSON), pass the one Status function (status.ts) like every other error and
// leave with a client-side code and Keyhold's details: MALFORMED_BODY,
// BODY_TOO_LARGE or NOT_IMPLEMENTED. This file only finds them in each
// protocol's response and writes the Status back in the same shape.
import type { DescMethod } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';
import { codeToHttpStatus, errorFromJsonBytes, errorToJsonBytes } from '@connectrpc/connect/protocol-connect';
import { findTrailerError, setTrailerStatus } from '@connectrpc/connect/protocol-grpc';
import { trailerFlag, trailerParse, trailerSerialize } from '@connectrpc/connect/protocol-grpc-web';
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import { negotiateLanguage, type Language } from '../../domain/i18n/language.js';
import type { JsonValue } from '../../domain/json/strict-json.js';
import { withStrictJson } from './connect-json.js';
import { jsonDecodeError } from './json-fields.js';
import { requestKey, type RequestRecord } from '../http/requests.js';
import { statusJsonOf, toStatus } from './status.js';

function isAsyncIterable(body: UniversalServerResponse['body']): body is AsyncIterable<Uint8Array> {
  return typeof body === 'object' && body !== null && Symbol.asyncIterator in body;
}

/**
 * connect's "cannot decode …" for a JSON message names one field by its proto
 * name and quotes the value; with the JSON at hand, name every bad field by its
 * path instead, as REST does (json-fields.ts).
 */
function namedFieldsError(err: ConnectError, json: JsonValue | undefined, method: DescMethod, lang: Language, request: RequestRecord | undefined): ConnectError | undefined {
  if (json === undefined || err.code !== Code.InvalidArgument || err.details.length > 0 || !/^cannot decode/.test(err.rawMessage)) return undefined;
  return toStatus(jsonDecodeError(method.input, json), lang, {}, request).error;
}

export function withProtocolErrors(handler: UniversalHandler, readMaxBytes: number): UniversalHandler {
  const wrapped = async (original: UniversalServerRequest): Promise<UniversalServerResponse> => {
    const lang = negotiateLanguage(original.header.get('accept-language'));
    const request = original.contextValues?.get(requestKey);
    const checked = await withStrictJson(original, readMaxBytes, lang);
    const req = checked.req;
    const res = await handler(req);
    const contentType = req.header.get('content-type') ?? '';
    const fix = (err: ConnectError) => namedFieldsError(err, checked.json(), handler.method, lang, request) ?? toStatus(err, lang, { readMaxBytes }, request).error;
    const body = res.body;
    if (!isAsyncIterable(body)) {
      // connect's bodiless refusals (unsupported content type, wrong HTTP method) as Status JSON,
      // naming the method's path (not the URL the client sent, which may carry a query).
      const reason = res.status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : res.status === 405 ? 'METHOD_NOT_ALLOWED' : undefined;
      if (!reason || body !== undefined) return res;
      const json = Buffer.from(JSON.stringify(statusJsonOf(toStatus(new KeyholdError(reason, { endpoint: handler.requestPath }), lang, {}, request).error)));
      const header = new Headers(res.header);
      if (reason === 'METHOD_NOT_ALLOWED') header.set('allow', handler.allowedMethods.join(', '));
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
