// The gRPC unary fast path (src/server/rpc/grpc-unary.ts) claims that a client sees
// the same answer as on the general path (fastify + connect's gRPC handler).
// Every case here makes one call twice over a raw node:http2 client: plain —
// binary, uncompressed, no grpc-timeout, which the fast path answers — and with
// `grpc-timeout: 30S`, which the fast path declines. Then it compares what a
// gRPC client reads: HTTP status, response headers, grpc-status, grpc-message,
// the google.rpc.Status in grpc-status-details-bin, and the response message.
//
// Which path answered is observed from the test side only: the general path
// turns the stream into a node:http2 compat request (Http2ServerRequest), whose
// `headers` getter fastify and connect read; the fast path never creates one.
// The getter is wrapped (and restored) to record a per-call probe header, so a
// comparison can never pass because both calls quietly took the same path.
import http2 from 'node:http2';
import zlib from 'node:zlib';
import { create, createRegistry, fromBinary, toBinary, toJson, type DescMessage, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema, file_google_rpc_error_details, LocalizedMessageSchema } from '../../../gen/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../../gen/google/rpc/status_pb.js';
import {
  AddProjectRequestSchema,
  AddProjectResponseSchema,
  GetProjectByIDRequestSchema,
  GetProjectByIDResponseSchema,
  HealthzRequestSchema,
  HealthzResponseSchema,
  ListProjectsRequestSchema,
  ListProjectsResponseSchema,
  ManagementService,
  ProjectState,
} from '../../../gen/keyhold/management/v1/management_pb.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

const SERVICE = `/${ManagementService.typeName}`;
const PROBE = 'x-grpc-unary-test-probe';
const MISSING = '01aaaaaaaaaaaaaaaaaaaaaaaa';
const TIMEOUT_MS = 20_000;
/** grpc-status of a successful call (connect's Code enum has no OK). */
const OK = 0;

let kh: TestKeyhold;
/** Probe ids of the calls that reached the compat layer (the general path). */
const viaCompat = new Set<string>();
let restoreHeadersGetter: (() => void) | undefined;

beforeAll(async () => {
  const proto = http2.Http2ServerRequest.prototype;
  const original = Object.getOwnPropertyDescriptor(proto, 'headers');
  if (!original?.get) throw new Error('node:http2 changed: Http2ServerRequest has no headers getter to observe');
  const get = original.get;
  Object.defineProperty(proto, 'headers', {
    ...original,
    get(this: http2.Http2ServerRequest) {
      const headers = get.call(this) as http2.IncomingHttpHeaders;
      const probe = headers?.[PROBE];
      if (typeof probe === 'string') viaCompat.add(probe);
      return headers;
    },
  });
  restoreHeadersGetter = () => Object.defineProperty(proto, 'headers', original);
  kh = await startTestKeyhold();
});
afterAll(async () => {
  restoreHeadersGetter?.();
  await kh?.close();
});

// --- a raw gRPC client ------------------------------------------------------

function frame(message: Uint8Array, flags = 0, declaredLength = message.length): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flags;
  head.writeUInt32BE(declaredLength >>> 0, 1);
  return Buffer.concat([head, message]);
}

function bin<D extends DescMessage>(schema: D, init: MessageInitShape<D>): Uint8Array {
  return toBinary(schema, create(schema, init));
}

const registry = createRegistry(file_google_rpc_error_details);

interface Answer {
  /** Which path answered, as observed through the compat layer. */
  path: 'fast' | 'general';
  httpStatus: number;
  /** Response headers without :status, date and grpc-status-details-bin. */
  headers: Record<string, string>;
  /** True when grpc-status came in the headers (a trailers-only response). */
  trailersOnly: boolean;
  /** Trailers without grpc-status-details-bin ({} for a trailers-only response). */
  trailers: Record<string, string>;
  grpcStatus: number | undefined;
  /** grpc-message, percent-decoded. */
  grpcMessage: string | undefined;
  /** grpc-status-details-bin decoded as google.rpc.Status, in JSON (Any details with their @type). */
  status: unknown;
  reason: string | undefined;
  localized: { locale: string; message: string } | undefined;
  /** The DATA bytes, all of them. */
  body: Buffer;
}

interface CallOptions {
  /** Bearer token; the admin's by default, none with null. */
  token?: string | null;
  headers?: Record<string, string>;
}

let probes = 0;

/** One unary call over its own HTTP/2 connection; `body` is sent as is. */
function call(method: string, body: Uint8Array, opts: CallOptions = {}): Promise<Answer> {
  const probe = `p${++probes}`;
  const token = opts.token === undefined ? kh.adminToken : opts.token;
  return new Promise<Answer>((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${kh.port}`);
    session.on('error', () => {});
    const stream = session.request({
      ':method': 'POST',
      ':path': `${SERVICE}/${method}`,
      'content-type': 'application/grpc+proto',
      te: 'trailers',
      [PROBE]: probe,
      ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
      ...opts.headers,
    });
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error(`no answer to ${method} within ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    let response: http2.IncomingHttpHeaders | undefined;
    let trailers: http2.IncomingHttpHeaders | undefined;
    const chunks: Buffer[] = [];
    let settled = false;
    stream.on('response', (h) => (response = h));
    stream.on('trailers', (t) => (trailers = t));
    stream.on('data', (c: Buffer) => chunks.push(c));
    // The answer is complete when the server ends its side. The request side may
    // still be open (an early refusal leaves the rest of a large body unsent), so
    // a reset that follows a complete answer is not the answer.
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.close();
      if (!response) return reject(error ?? new Error(`stream closed without a response (rst code ${stream.rstCode})`));
      try {
        resolve(answerOf(probe, response, trailers, Buffer.concat(chunks)));
      } catch (e) {
        reject(e);
      }
    };
    stream.on('end', () => finish());
    stream.on('error', (e) => finish(e));
    stream.on('close', () => finish());
    stream.end(Buffer.from(body));
  });
}

function stringHeaders(h: http2.IncomingHttpHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) if (v !== undefined && !k.startsWith(':')) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
}

function answerOf(probe: string, response: http2.IncomingHttpHeaders, trailerHeaders: http2.IncomingHttpHeaders | undefined, body: Buffer): Answer {
  const headers = stringHeaders(response);
  delete headers.date;
  const trailersOnly = trailerHeaders === undefined && headers['grpc-status'] !== undefined;
  // Where the status is: the trailers, or the headers of a trailers-only response.
  const meta = trailersOnly ? { ...headers } : stringHeaders(trailerHeaders);
  const trailers = stringHeaders(trailerHeaders);
  // The details are compared decoded (below), not as base64.
  delete headers['grpc-status-details-bin'];
  delete trailers['grpc-status-details-bin'];
  let status: unknown;
  let reason: string | undefined;
  let localized: Answer['localized'];
  const details = meta['grpc-status-details-bin'];
  if (details !== undefined) {
    const decoded = fromBinary(StatusSchema, Buffer.from(details, 'base64'));
    status = toJson(StatusSchema, decoded, { registry });
    for (const any of decoded.details) {
      if (any.typeUrl.endsWith('/google.rpc.ErrorInfo')) reason ??= fromBinary(ErrorInfoSchema, any.value).reason;
      if (any.typeUrl.endsWith('/google.rpc.LocalizedMessage')) {
        const m = fromBinary(LocalizedMessageSchema, any.value);
        localized ??= { locale: m.locale, message: m.message };
      }
    }
  }
  return {
    path: viaCompat.has(probe) ? 'general' : 'fast',
    httpStatus: Number(response[':status']),
    headers,
    trailersOnly,
    trailers,
    grpcStatus: meta['grpc-status'] === undefined ? undefined : Number(meta['grpc-status']),
    grpcMessage: meta['grpc-message'] === undefined ? undefined : decodeURIComponent(meta['grpc-message']),
    status,
    reason,
    localized,
    body,
  };
}

interface Pair {
  fast: Answer;
  general: Answer;
}

/**
 * The same call without a deadline (fast path) and with `grpc-timeout: 30S`
 * (general path), with the same x-request-id: both echo it in their headers
 * and errors carry it in ErrorInfo.metadata, so the answers can be compared whole.
 */
async function both(method: string, body: Uint8Array, opts: CallOptions = {}): Promise<Pair> {
  const headers = { 'x-request-id': `grpc-unary-${++probes}`, ...opts.headers };
  const fast = await call(method, body, { ...opts, headers });
  const general = await call(method, body, { ...opts, headers: { ...headers, 'grpc-timeout': '30S' } });
  expect(fast.headers['x-request-id'], 'the fast path echoes x-request-id').toBe(headers['x-request-id']);
  expect(general.headers['x-request-id'], 'the general path echoes x-request-id').toBe(headers['x-request-id']);
  return { fast, general };
}

/** The one response message of a successful answer, decoded (and decompressed per grpc-encoding). */
function messageOf<D extends DescMessage>(schema: D, a: Answer): MessageShape<D> {
  expect(a.body.length, 'a response frame').toBeGreaterThanOrEqual(5);
  const length = a.body.readUInt32BE(1);
  expect(a.body.length, 'exactly one frame').toBe(5 + length);
  let message = a.body.subarray(5);
  if (a.body[0] === 1) {
    const encoding = a.headers['grpc-encoding'];
    expect(['gzip', 'br'], 'a compressed frame names its encoding').toContain(encoding);
    message = encoding === 'gzip' ? zlib.gunzipSync(message) : zlib.brotliDecompressSync(message);
  } else {
    expect(a.body[0], 'frame flags').toBe(0);
  }
  return fromBinary(schema, message);
}

/** The call without grpc-timeout was answered by the fast path, the one with it by the general path. */
function expectPaths(a: Pair) {
  expect(a.fast.path, 'the call without grpc-timeout is answered by the fast path').toBe('fast');
  expect(a.general.path, 'the call with grpc-timeout goes through fastify and connect').toBe('general');
}

/**
 * Response headers as compared per case. grpc-accept-encoding is left out here
 * and compared in a test of its own ('response headers …' below), so that one
 * known difference fails one test instead of masking every other check.
 */
function comparable(headers: Record<string, string>): Record<string, string> {
  const { 'grpc-accept-encoding': _ignored, ...rest } = headers;
  return rest;
}

/** What a gRPC client sees before the status: HTTP status and response headers. */
function expectSameEnvelope({ fast, general }: Pair) {
  expect(fast.httpStatus).toBe(200);
  expect(general.httpStatus).toBe(200);
  expect(comparable(fast.headers), 'response headers (date and grpc-accept-encoding aside)').toEqual(comparable(general.headers));
  expect(fast.headers['content-type']).toBe('application/grpc+proto');
  expect(fast.trailersOnly, 'a trailers-only response on one path only').toBe(general.trailersOnly);
}

/** Same status, message and details, and no message. */
function expectSameError(a: Pair, code: Code, reason: string) {
  expectSameEnvelope(a);
  expect(a.fast.grpcStatus).toBe(code);
  expect(a.general.grpcStatus).toBe(code);
  expect(a.fast.reason).toBe(reason);
  expect(a.general.reason).toBe(reason);
  expect(a.fast.trailers, 'trailers').toEqual(a.general.trailers);
  expect(a.fast.grpcMessage).toBe(a.general.grpcMessage);
  expect(a.fast.status, 'google.rpc.Status in grpc-status-details-bin').toEqual(a.general.status);
  expect(a.fast.body.length, 'no message with an error').toBe(0);
  expect(a.general.body.length, 'no message with an error').toBe(0);
}

/**
 * Same code and reason, neither OK nor a server fault. The grpc-message names the
 * reading problem and may word it differently: printed for the record, not asserted.
 */
function expectSameCodeAndReason(label: string, a: Pair) {
  if (a.fast.grpcMessage !== a.general.grpcMessage) {
    console.log(`[grpc-unary] ${label}: grpc-message differs — fast ${JSON.stringify(a.fast.grpcMessage)} / general ${JSON.stringify(a.general.grpcMessage)}`);
  }
  expectSameEnvelope(a);
  for (const x of [a.fast, a.general]) {
    expect(x.grpcStatus, `${label}, ${x.path} path: an error`).not.toBe(OK);
    expect([Code.Internal, Code.Unknown], `${label}, ${x.path} path: not a server fault`).not.toContain(x.grpcStatus);
    expect(x.reason, `${label}, ${x.path} path: an ErrorInfo reason`).toMatch(/^[A-Z][A-Z0-9_]+$/);
    expect(x.body.length, 'no message with an error').toBe(0);
  }
  const seen = (x: Answer) => ({ code: x.grpcStatus === undefined ? undefined : Code[x.grpcStatus], reason: x.reason });
  expect(seen(a.fast), `${label}: the fast path answers what the general path answers`).toEqual(seen(a.general));
  expect(a.fast.localized?.locale).toBe(a.general.localized?.locale);
}

// --- cases ------------------------------------------------------------------

describe('gRPC unary: the fast path answers what the general path answers', () => {
  it('Healthz (public, empty message): HTTP 200, same headers, grpc-status 0, the same HealthzResponse bytes', async () => {
    const a = await both('Healthz', frame(bin(HealthzRequestSchema, {})), { token: null });
    expectPaths(a);
    expectSameEnvelope(a);
    for (const x of [a.fast, a.general]) {
      expect(x.grpcStatus).toBe(OK);
      expect(x.grpcMessage ?? '').toBe('');
      expect(x.status).toBeUndefined();
      expect(messageOf(HealthzResponseSchema, x).$typeName).toBe(HealthzResponseSchema.typeName);
    }
    expect(a.fast.trailers).toEqual(a.general.trailers);
    expect(a.fast.body.equals(a.general.body), 'the same response bytes').toBe(true);
  });

  it('AddProject then GetProjectByID: same headers and trailers, the project as written', async () => {
    const added = await both('AddProject', frame(bin(AddProjectRequestSchema, { name: 'Fast path' })));
    expectPaths(added);
    expectSameEnvelope(added);
    expect(added.fast.trailers).toEqual(added.general.trailers);
    const ids: string[] = [];
    for (const x of [added.fast, added.general]) {
      expect(x.grpcStatus).toBe(OK);
      const res = messageOf(AddProjectResponseSchema, x);
      expect(res.id).toMatch(/^\w{10,}$/);
      expect(res.details?.sequence).toBeGreaterThan(0n);
      ids.push(res.id);
    }
    expect(ids[0], 'two calls, two projects').not.toBe(ids[1]);

    for (const id of ids) {
      const got = await both('GetProjectByID', frame(bin(GetProjectByIDRequestSchema, { id })));
      expectPaths(got);
      expectSameEnvelope(got);
      expect(got.fast.trailers).toEqual(got.general.trailers);
      const fast = messageOf(GetProjectByIDResponseSchema, got.fast);
      const general = messageOf(GetProjectByIDResponseSchema, got.general);
      expect(fast.project).toMatchObject({ id, name: 'Fast path', state: ProjectState.ACTIVE });
      expect(toJson(GetProjectByIDResponseSchema, fast)).toEqual(toJson(GetProjectByIDResponseSchema, general));
    }
  });

  it('an error from the implementation (unknown project → NOT_FOUND): same status, message and details', async () => {
    const a = await both('GetProjectByID', frame(bin(GetProjectByIDRequestSchema, { id: MISSING })));
    expectPaths(a);
    expectSameError(a, Code.NotFound, 'PROJECT_NOT_FOUND');
    expect(a.fast.grpcMessage).toBe(`Project ${MISSING} was not found.`);
    expect(a.fast.localized).toEqual({ locale: 'en', message: `Project ${MISSING} was not found.` });
  });

  it('the same error with accept-language: de → the German LocalizedMessage on both paths', async () => {
    const a = await both('GetProjectByID', frame(bin(GetProjectByIDRequestSchema, { id: MISSING })), { headers: { 'accept-language': 'de' } });
    expectPaths(a);
    expectSameError(a, Code.NotFound, 'PROJECT_NOT_FOUND');
    expect(a.fast.localized).toEqual({ locale: 'de', message: `Das Projekt ${MISSING} wurde nicht gefunden.` });
    expect(a.general.localized).toEqual(a.fast.localized);
  });

  it('no token → UNAUTHENTICATED with the same message and details', async () => {
    const a = await both('GetProjectByID', frame(bin(GetProjectByIDRequestSchema, { id: MISSING })), { token: null });
    expectPaths(a);
    expectSameError(a, Code.Unauthenticated, 'UNAUTHENTICATED');
    expect(a.fast.grpcMessage).toBe('A valid bearer token is required.');
  });

  it('a token that is not one → UNAUTHENTICATED with the same message and details', async () => {
    const a = await both('GetProjectByID', frame(bin(GetProjectByIDRequestSchema, { id: MISSING })), { token: 'not-a-token' });
    expectPaths(a);
    expectSameError(a, Code.Unauthenticated, 'UNAUTHENTICATED');
  });

  it('a message that is not protobuf (0xff 0xff 0xff) → INVALID_ARGUMENT, MALFORMED_BODY, the same message and details', async () => {
    const a = await both('GetProjectByID', frame(Uint8Array.from([0xff, 0xff, 0xff])));
    expectPaths(a);
    expectSameCodeAndReason('not protobuf', a);
    // Both read it with fromBinary, so even the problem they name is the same.
    expectSameError(a, Code.InvalidArgument, 'MALFORMED_BODY');
  });

  it('an empty body (no frame at all) → the same code and reason on both', async () => {
    const a = await both('GetProjectByID', Buffer.alloc(0));
    expectPaths(a);
    expectSameCodeAndReason('empty body', a);
  });

  it('a frame followed by extra bytes → the same code and reason on both', async () => {
    const a = await both('GetProjectByID', Buffer.concat([frame(bin(GetProjectByIDRequestSchema, { id: MISSING })), Buffer.from([1, 2, 3])]));
    expectPaths(a);
    expectSameCodeAndReason('trailing bytes', a);
    expect(a.general.reason).toBe('MALFORMED_BODY');
  });

  it('two whole frames in a unary call → the same code and reason on both', async () => {
    const one = frame(bin(GetProjectByIDRequestSchema, { id: MISSING }));
    const a = await both('GetProjectByID', Buffer.concat([one, one]));
    expectPaths(a);
    expectSameCodeAndReason('two frames', a);
  });

  it('a frame shorter than its declared length → the same code and reason on both', async () => {
    const a = await both('GetProjectByID', frame(bin(GetProjectByIDRequestSchema, { id: MISSING }), 0, 4096));
    expectPaths(a);
    expectSameCodeAndReason('short frame', a);
    expect(a.general.reason).toBe('MALFORMED_BODY');
  });

  it('a message over the body limit (declared and sent) → RESOURCE_EXHAUSTED, BODY_TOO_LARGE, the same message and details', async () => {
    const limit = kh.config.bodyLimitBytes;
    const message = bin(AddProjectRequestSchema, { name: 'x'.repeat(limit + 1024 * 1024) });
    expect(message.length).toBeGreaterThan(limit);
    const a = await both('AddProject', frame(message));
    expectPaths(a);
    expectSameError(a, Code.ResourceExhausted, 'BODY_TOO_LARGE');
    expect(a.fast.grpcMessage).toBe(`The request body is larger than the limit of ${limit} bytes.`);
    // The refusal left no project behind on either path.
    const list = await call('ListProjects', frame(bin(ListProjectsRequestSchema, {})));
    expect(messageOf(ListProjectsResponseSchema, list).result.some((p) => p.name.length > limit)).toBe(false);
  });

  it('an unknown method is declined by the fast path: both answers come from the general path and agree', async () => {
    const a = await both('Nope', frame(new Uint8Array(0)));
    expect(a.fast.path, 'the fast path declines an unknown method').toBe('general');
    expect(a.general.path).toBe('general');
    // The code a gRPC client reports: grpc-status, or the one it derives from a non-200 HTTP status.
    const clientCode = (x: Answer) => x.grpcStatus ?? (x.httpStatus === 404 ? Code.Unimplemented : x.httpStatus === 200 ? undefined : Code.Unknown);
    expect(clientCode(a.general), 'the general path refuses the call').toBeDefined();
    expect(clientCode(a.fast)).toBe(clientCode(a.general));
    expect(a.fast.httpStatus).toBe(a.general.httpStatus);
    expect(a.fast.headers).toEqual(a.general.headers);
    expect(a.fast.reason).toBe(a.general.reason);
    expect(a.fast.body.toString()).toBe(a.general.body.toString());
  });

  it('response headers, grpc-accept-encoding included: identical on both paths, for an answer and for an error', async () => {
    const ok = await both('Healthz', frame(bin(HealthzRequestSchema, {})), { token: null });
    const err = await both('GetProjectByID', frame(bin(GetProjectByIDRequestSchema, { id: MISSING })));
    expectPaths(ok);
    expectPaths(err);
    expect.soft(ok.fast.headers, 'headers of a successful call').toEqual(ok.general.headers);
    expect.soft(err.fast.headers, 'headers of a failed call').toEqual(err.general.headers);
  });

  it('a client that accepts gzip (grpc-accept-encoding as grpc-js sends it) gets the same headers and message on both', async () => {
    // Enough projects for a response over connect's 1 KiB compression threshold.
    const client = kh.client(ManagementService);
    for (let i = 0; i < 20; i++) await client.addProject({ name: `Compressible project ${i}` });
    const a = await both('ListProjects', frame(bin(ListProjectsRequestSchema, {})), { headers: { 'grpc-accept-encoding': 'identity,deflate,gzip' } });
    expectPaths(a);
    for (const x of [a.fast, a.general]) expect(x.grpcStatus).toBe(OK);
    const fast = messageOf(ListProjectsResponseSchema, a.fast);
    const general = messageOf(ListProjectsResponseSchema, a.general);
    expect(fast.result.length).toBeGreaterThanOrEqual(20);
    // The same list; only the time each view was read differs (ListDetails.viewTimestamp).
    const listed = (m: typeof fast) => ({ ...(toJson(ListProjectsResponseSchema, m) as object), details: undefined });
    expect(listed(fast)).toEqual(listed(general));
    expect.soft(comparable(a.fast.headers), 'response headers (grpc-encoding included)').toEqual(comparable(a.general.headers));
    expect.soft(a.fast.body[0], 'compressed flag of the response frame').toBe(a.general.body[0]);
  });

  it('the encodings the fast path advertises in grpc-accept-encoding are accepted for requests', async () => {
    const a = await call('GetProjectByID', frame(bin(GetProjectByIDRequestSchema, { id: MISSING })));
    expect(a.path).toBe('fast');
    const advertised = (a.headers['grpc-accept-encoding'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const message = bin(HealthzRequestSchema, {});
    for (const encoding of advertised) {
      const compressed = encoding === 'gzip' ? zlib.gzipSync(message) : encoding === 'br' ? zlib.brotliCompressSync(message) : undefined;
      expect(compressed, `a test compressor for ${encoding}`).toBeDefined();
      const r = await call('Healthz', frame(compressed!, 1), { token: null, headers: { 'grpc-encoding': encoding } });
      expect(r.path, 'a compressed request goes the general way').toBe('general');
      expect({ encoding, status: r.grpcStatus, message: r.grpcMessage ?? '' }).toEqual({ encoding, status: OK, message: '' });
    }
  });
});
