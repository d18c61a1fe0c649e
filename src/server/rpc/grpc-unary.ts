// gRPC unary calls straight off the HTTP/2 stream: the common case of the
// gRPC protocol (binary, uncompressed, no deadline) answered without Node's
// HTTP/2 compatibility layer, fastify and connect's streaming pipeline.
//
// Why: a no-op over that stack cost the server ~0.5 ms of CPU per call against
// 0.09 ms for a REST no-op (bench/results), mostly per-request objects —
// compat request/response, async iterables, abort signals, header copies.
// Here the request is one buffer, decoded once, run through the SAME
// interceptors and implementation (connect's invokeUnaryImplementation, as
// REST does), and answered with one DATA frame and the grpc-status trailers
// connect's own setTrailerStatus writes — so what a client sees is the same,
// errors and their details included (test/server/rpc/protocols.test.ts, the fuzz
// tests over raw HTTP/2).
//
// Response compression is negotiated as connect does (grpc-accept-encoding;
// gzip or br for messages of 1 KiB and more). Anything else — gRPC-Web,
// Connect, REST, JSON-coded gRPC, a compressed request, a grpc-timeout, a
// streaming method, a server shutting down — goes the general way (`false`
// from the handler), unchanged. test/server/rpc/grpc-unary.test.ts sends every
// case both ways and compares what a client sees.
import http2 from 'node:http2';
import { toBinary, type DescMethod, type DescService } from '@bufbuild/protobuf';
import {
  Code,
  ConnectError,
  createHandlerContext,
  createServiceImplSpec,
  type ContextValues,
  type Interceptor,
  type ServiceImpl,
} from '@connectrpc/connect';
import { invokeUnaryImplementation } from '@connectrpc/connect/protocol';
import { setTrailerStatus } from '@connectrpc/connect/protocol-grpc';
import { compressionBrotli, compressionGzip } from '@connectrpc/connect-node';
import { negotiateLanguage } from '../../domain/i18n/language.js';
import { API_RESPONSE_HEADERS } from '../http/response-headers.js';
import { headersOf, type RegisteredService } from './rest.js';
import { REQUEST_ID_HEADER, requestKey, userAgentOf, type RequestRecord, type RequestTracker } from '../http/requests.js';
import { clientAddressKey } from '../http/rate-limit.js';
import { toStatus } from './status.js';
import { decodeRequest } from './request-decode.js';

/** Handles the stream and returns true, or returns false and leaves it alone. */
export type StreamHandler = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => boolean;

export interface GrpcUnaryOptions {
  services: readonly RegisteredService[];
  interceptors: Interceptor[];
  readMaxBytes: number;
  contextValuesOf: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => ContextValues;
  /** While true (shutdown), every call goes the general way. */
  closing: () => boolean;
  /** Each call's record: its id, log line and metrics (requests.ts). */
  tracker: RequestTracker;
}

type UnarySpec = Parameters<typeof invokeUnaryImplementation>[0];

interface Route {
  service: DescService;
  method: DescMethod;
  spec: UnarySpec;
}

/** Probes: their calls are logged at debug, and do not keep the server from being idle (requests.ts). */
const HEALTH_SERVICE = 'grpc.health.v1.Health';

// What connect's gRPC handler answers with (handler-factory.js), so both paths agree.
const RESPONSE_CONTENT_TYPE = 'application/grpc+proto';
const BINARY_CONTENT_TYPE = /^application\/grpc(\+proto)?$/i;
// connect-node's server defaults: these encodings, used from this size on.
const COMPRESSIONS = [compressionGzip, compressionBrotli];
const COMPRESS_MIN_BYTES = 1024;

/** The response compression connect would pick: the first of the client's accepted encodings it supports. */
function responseCompression(accepted: string | string[] | undefined) {
  if (typeof accepted !== 'string' || accepted === '') return undefined;
  for (const name of accepted.split(',')) {
    const found = COMPRESSIONS.find((c) => c.name === name.trim());
    if (found) return found;
  }
  return undefined;
}

export function createGrpcUnaryHandler(options: GrpcUnaryOptions): StreamHandler {
  const routes = new Map<string, Route>();
  for (const { desc, impl } of options.services) {
    const spec = createServiceImplSpec(desc, impl as ServiceImpl<DescService>);
    for (const method of desc.methods) {
      const methodSpec = spec.methods[method.localName];
      if (methodSpec?.kind === 'unary') routes.set(`/${desc.typeName}/${method.name}`, { service: desc, method, spec: methodSpec as UnarySpec });
    }
  }

  return (stream, headers) => {
    const route = routes.get(headers[':path'] ?? '');
    if (
      !route ||
      headers[':method'] !== 'POST' ||
      !BINARY_CONTENT_TYPE.test(headers['content-type'] ?? '') ||
      headers['grpc-timeout'] !== undefined ||
      (headers['grpc-encoding'] !== undefined && headers['grpc-encoding'] !== 'identity') ||
      options.closing()
    ) {
      return false;
    }
    // Without a listener, a client's RST_STREAM with an error code (connect-node
    // sends INTERNAL_ERROR when a call is aborted) is emitted as an uncaught
    // 'error' and ends the process. The compat layer adds one for the general path.
    stream.on('error', () => {});
    const request = options.tracker.begin(headers[REQUEST_ID_HEADER]);
    request.protocol = 'grpc';
    request.service = route.service.typeName;
    request.method = route.method.name;
    request.quiet = route.service.typeName === HEALTH_SERVICE;
    stream.once('close', () => options.tracker.end(request, 200, stream.headersSent));
    // Read while the stream is alive: a reset clears stream.session.
    const contextValues = (request.context = options.contextValuesOf(stream, headers).set(requestKey, request));
    request.clientAddress = contextValues.get(clientAddressKey);
    request.userAgent = userAgentOf(headers['user-agent']);
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    stream.on('data', (chunk: Buffer) => {
      if (refused) return; // drained and dropped
      size += chunk.length;
      if (size > options.readMaxBytes + 5) {
        refused = true;
        chunks.length = 0;
        const lang = negotiateLanguage(headers['accept-language']);
        const err = new ConnectError(`message size ${size - 5} is larger than configured readMaxBytes ${options.readMaxBytes}`, Code.ResourceExhausted);
        const header = new Headers({ 'content-type': RESPONSE_CONTENT_TYPE, [REQUEST_ID_HEADER]: request.id });
        const compression = responseCompression(headers['grpc-accept-encoding']);
        if (compression) header.set('grpc-encoding', compression.name);
        respond(stream, header, undefined, setTrailerStatus(new Headers(), toStatus(err, lang, { readMaxBytes: options.readMaxBytes }, request).error));
        return;
      }
      chunks.push(chunk);
    });
    stream.on('end', () => {
      if (refused) return;
      call(route, stream, headers, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), contextValues, request, options).catch(() => {
        // Only respond() itself can throw here (e.g. a header Node refuses); never leave the stream open.
        if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      });
    });
    return true;
  };
}

/**
 * The one message of a unary request, or the error connect's reader raises
 * for the same bytes (its codes; toStatus turns them into
 * MALFORMED_BODY like on the general path).
 */
function unwrapEnvelope(body: Buffer): Buffer | ConnectError {
  if (body.length === 0) return new ConnectError('protocol error: missing input message for unary method', Code.Unimplemented);
  if (body.length < 5) return new ConnectError('protocol error: incomplete envelope', Code.InvalidArgument);
  if (body[0] & 0b01) return new ConnectError('received compressed envelope, but do not know how to decompress', Code.Internal);
  if (body[0] !== 0) return new ConnectError(`protocol error: invalid envelope flags ${body[0]}`, Code.InvalidArgument);
  const length = body.readUInt32BE(1);
  if (body.length < 5 + length) return new ConnectError('protocol error: incomplete envelope', Code.InvalidArgument);
  const rest = body.length - 5 - length;
  if (rest > 0 && (rest < 5 || rest < 5 + body.readUInt32BE(5 + length + 1))) {
    return new ConnectError('protocol error: incomplete envelope', Code.InvalidArgument);
  }
  if (rest > 0) return new ConnectError('protocol error: received extra input message for unary method', Code.Unimplemented);
  return body.subarray(5, 5 + length);
}

async function call(
  route: Route,
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  body: Buffer,
  contextValues: ContextValues,
  request: RequestRecord,
  options: GrpcUnaryOptions,
): Promise<void> {
  const lang = negotiateLanguage(headers['accept-language']);
  const abort = new AbortController();
  const onClose = () => abort.abort(new ConnectError('client closed the request', Code.Canceled));
  stream.once('close', onClose);
  const ctx = createHandlerContext({
    service: route.service,
    method: route.method,
    protocolName: 'grpc',
    requestMethod: 'POST',
    url: `http://${headers[':authority'] ?? 'localhost'}${headers[':path']}`,
    requestHeader: headersOf(headers),
    requestSignal: abort.signal,
    contextValues,
    responseHeader: { 'content-type': RESPONSE_CONTENT_TYPE, [REQUEST_ID_HEADER]: request.id },
  });
  const compression = responseCompression(headers['grpc-accept-encoding']);
  if (compression) ctx.responseHeader.set('grpc-encoding', compression.name);
  try {
    const message = unwrapEnvelope(body);
    if (message instanceof ConnectError) throw message;
    let input;
    try {
      input = decodeRequest(route.method.input, message);
    } catch (e) {
      throw new ConnectError(`parse binary: ${e instanceof Error ? e.message : String(e)}`, Code.Internal);
    }
    const output = await invokeUnaryImplementation(route.spec, ctx, input as never, options.interceptors);
    let bytes = toBinary(route.method.output, output as never);
    let flags = 0;
    if (compression && bytes.length >= COMPRESS_MIN_BYTES) {
      bytes = await compression.compress(bytes);
      flags = 0b01;
    }
    const frame = Buffer.allocUnsafe(5 + bytes.length);
    frame[0] = flags;
    frame.writeUInt32BE(bytes.length, 1);
    frame.set(bytes, 5);
    ctx.responseTrailer.set('grpc-status', '0');
    respond(stream, ctx.responseHeader, frame, ctx.responseTrailer);
  } catch (thrown) {
    // The interceptors already mapped handler errors; this maps the reading ones.
    const err = toStatus(thrown, lang, { readMaxBytes: options.readMaxBytes }, request).error;
    respond(stream, ctx.responseHeader, undefined, setTrailerStatus(ctx.responseTrailer, err));
  } finally {
    stream.off('close', onClose);
  }
}

/** Response headers, at most one DATA frame, then the trailers: what connect sends for a unary call. */
function respond(stream: http2.ServerHttp2Stream, header: Headers, frame: Buffer | undefined, trailer: Headers): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  const out: http2.OutgoingHttpHeaders = { ':status': 200, ...API_RESPONSE_HEADERS };
  header.forEach((value, name) => (out[name] = value));
  stream.respond(out, { waitForTrailers: true });
  stream.once('wantTrailers', () => {
    const trailers: http2.OutgoingHttpHeaders = {};
    trailer.forEach((value, name) => (trailers[name] = value));
    stream.sendTrailers(trailers);
  });
  stream.end(frame);
}
