// JSON messages on the Connect router (Connect `application/json`, gRPC-Web and
// gRPC `+json`) pass the same strict reader as REST bodies before connect sees
// them: connect decodes JSON with a lenient TextDecoder and JSON.parse (U+FFFD
// for bad bytes, the last of two equal keys). Wrapping the universal handler's
// request is the seam: connect reads `req.body` after its own header checks, so
// a refusal put into the body comes out in each protocol's own error shape
// (Connect error JSON, gRPC-Web trailer frame, gRPC trailers).
//
// Connect unary JSON, the common case, is read (and decompressed) here once and
// handed to connect already parsed (connect's handler takes a parsed JSON body
// as is); an empty body is the empty message, as on REST. Enveloped gRPC and
// gRPC-Web JSON is checked and then passed on as the same bytes.
import { ConnectError } from '@connectrpc/connect';
import { readAllBytes, type UniversalServerRequest } from '@connectrpc/connect/protocol';
import { parseContentType as connectContentType } from '@connectrpc/connect/protocol-connect';
import { parseContentType as grpcContentType } from '@connectrpc/connect/protocol-grpc';
import { parseContentType as grpcWebContentType } from '@connectrpc/connect/protocol-grpc-web';
import { compressionBrotli, compressionGzip } from '@connectrpc/connect-node';
import type { JsonValue } from '../../domain/json/strict-json.js';
import type { Language } from '../../domain/i18n/language.js';
import { readJsonBody } from './json-body.js';
import { requestKey } from '../http/requests.js';
import { toStatus } from './status.js';

/** The encodings connect-node's server accepts (its defaults, as in grpc-unary.ts). */
const COMPRESSIONS = [compressionGzip, compressionBrotli];
const ENVELOPE_HEADER = 5;

export interface CheckedRequest {
  req: UniversalServerRequest;
  /** The request's JSON value once read (for naming bad fields when connect cannot decode it). */
  json(): JsonValue | undefined;
}

function isByteStream(body: UniversalServerRequest['body']): body is AsyncIterable<Uint8Array> {
  return typeof body === 'object' && body !== null && Symbol.asyncIterator in body;
}

/** A body that fails with `err` when connect reads it: connect answers it in the protocol's shape. */
function failingBody(err: ConnectError): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(err) }),
  };
}

function asConnectError(e: unknown, lang: Language, req: UniversalServerRequest): ConnectError {
  return e instanceof ConnectError ? e : toStatus(e, lang, {}, req.contextValues?.get(requestKey)).error;
}

export async function withStrictJson(req: UniversalServerRequest, readMaxBytes: number, lang: Language): Promise<CheckedRequest> {
  let json: JsonValue | undefined;
  const result = (r: UniversalServerRequest): CheckedRequest => ({ req: r, json: () => json });
  if (req.method !== 'POST' || !isByteStream(req.body)) return result(req);
  const contentType = req.header.get('content-type');
  const connect = connectContentType(contentType);
  const grpcWeb = connect ? undefined : grpcWebContentType(contentType);
  const grpc = connect || grpcWeb ? undefined : grpcContentType(contentType);
  const body = req.body;

  if (connect && !connect.binary && !connect.stream) {
    const encoding = req.header.get('content-encoding');
    const compression = encoding === null || encoding === 'identity' ? undefined : COMPRESSIONS.find((c) => c.name === encoding);
    // An encoding connect does not know: connect refuses it itself, before reading the body.
    if (encoding !== null && encoding !== 'identity' && !compression) return result(req);
    try {
      let bytes = await readAllBytes(body, readMaxBytes, req.header.get('content-length'));
      if (compression) bytes = await compression.decompress(bytes, readMaxBytes);
      // Handed over parsed: connect does not decompress or parse a body that is not a byte stream.
      json = readJsonBody(bytes) ?? {};
      return result({ ...req, body: json });
    } catch (e) {
      return result({ ...req, body: failingBody(asConnectError(e, lang, req)) });
    }
  }

  if ((grpcWeb && !grpcWeb.binary && !grpcWeb.text) || (grpc && !grpc.binary)) {
    try {
      // Unary calls only: one envelope (plus its 5-byte header) at most.
      const bytes = await readAllBytes(body, readMaxBytes + ENVELOPE_HEADER);
      const compression = COMPRESSIONS.find((c) => c.name === req.header.get('grpc-encoding'));
      for (let at = 0; at + ENVELOPE_HEADER <= bytes.length; ) {
        const flags = bytes[at];
        const length = new DataView(bytes.buffer, bytes.byteOffset + at + 1, 4).getUint32(0);
        const end = at + ENVELOPE_HEADER + length;
        if (end > bytes.length) break; // incomplete: connect says so itself
        let message = bytes.subarray(at + ENVELOPE_HEADER, end);
        if (flags === 0b01 && compression) message = await compression.decompress(message, readMaxBytes);
        if (flags === 0 || (flags === 0b01 && compression)) json = readJsonBody(message);
        at = end;
      }
      return result({ ...req, body: (async function* () { yield bytes; })() });
    } catch (e) {
      return result({ ...req, body: failingBody(asConnectError(e, lang, req)) });
    }
  }
  return result(req);
}
