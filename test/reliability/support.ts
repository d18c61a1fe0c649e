// Shared by the reliability tests: the event count (the "a rejected request
// changes nothing" invariant) and a raw HTTP/2 gRPC call that can send any
// bytes as the message. The Status-shape checks are test/support/errors.ts'.
import http2 from 'node:http2';
import { fromBinary } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { count } from 'drizzle-orm';
import fc from 'fast-check';
import { expect } from 'vitest';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../gen/google/rpc/status_pb.js';
import { events } from '../../src/store/schema.js';
import type { TestKeyhold } from '../support/keyhold.js';

export async function eventCount(kh: TestKeyhold): Promise<number> {
  const [row] = await kh.database.db.select({ n: count() }).from(events);
  return Number(row.n);
}

export { assertRestStatus, assertRpcError } from '../support/errors.js';

export interface RawGrpcResult {
  httpStatus: number;
  grpcStatus: number | undefined;
  grpcMessage: string;
  reason: string | undefined;
  /** Response message bytes (after the 5-byte prefix), when the call succeeded. */
  body: Buffer;
}

/** One gRPC session per test file is plenty; the caller closes it. */
export function h2Session(port: number): http2.ClientHttp2Session {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on('error', () => {});
  return session;
}

export function grpcFrame(message: Uint8Array, flags = 0, declaredLength = message.length): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flags;
  head.writeUInt32BE(declaredLength >>> 0, 1);
  return Buffer.concat([head, message]);
}

/**
 * A unary gRPC call with `body` sent as is (already framed or not: the caller
 * decides), reading grpc-status from headers or trailers.
 */
/** Short, readable counterexamples: fast-check prints `label(value)` instead of a megabyte of input. */
export function labelled<T extends object>(arb: fc.Arbitrary<T>, label: (v: T) => string): fc.Arbitrary<T> {
  return arb.map((v) => (fc.toStringMethod in v ? v : Object.defineProperty(v, fc.toStringMethod, { value: () => label(v), enumerable: false, configurable: true })));
}

/** A one-line size summary of a value: strings by length, arrays by count, objects by key. */
export function sizeSummary(v: unknown, depth = 0): string {
  if (typeof v === 'string') return v.length <= 40 ? JSON.stringify(v) : `str(${v.length})`;
  if (Array.isArray(v)) return v.length <= 3 && depth < 2 ? `[${v.map((x) => sizeSummary(x, depth + 1)).join(',')}]` : `arr(${v.length})`;
  if (typeof v === 'bigint') return `${v}n`;
  if (v && typeof v === 'object') {
    if (depth >= 2) return 'obj';
    return `{${Object.entries(v).map(([k, x]) => `${k}:${sizeSummary(x, depth + 1)}`).join(' ')}}`;
  }
  return String(v);
}

export function rawGrpc(
  session: http2.ClientHttp2Session,
  path: string,
  body: Uint8Array,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<RawGrpcResult> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc+proto',
      te: 'trailers',
      ...headers,
    });
    const timer = setTimeout(() => {
      stream.close(http2.constants.NGHTTP2_CANCEL);
      reject(new Error(`no answer to ${path} within ${timeoutMs} ms`));
    }, timeoutMs);
    let httpStatus = 0;
    let meta: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => {
      httpStatus = Number(h[':status']);
      meta = { ...h };
    });
    stream.on('trailers', (t) => {
      meta = { ...meta, ...t };
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    // The answer is complete when the server ends its side; the request side may
    // still be open (an early error leaves the rest of the body unread), so cancel it.
    const done = () => {
      clearTimeout(timer);
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
      const grpcStatus = meta['grpc-status'] === undefined ? undefined : Number(meta['grpc-status']);
      let reason: string | undefined;
      const bin = meta['grpc-status-details-bin'];
      if (typeof bin === 'string') {
        const status = fromBinary(StatusSchema, Buffer.from(bin, 'base64'));
        const any = status.details.find((d) => d.typeUrl.endsWith('/google.rpc.ErrorInfo'));
        if (any) reason = fromBinary(ErrorInfoSchema, any.value).reason;
      }
      const all = Buffer.concat(chunks);
      resolve({
        httpStatus,
        grpcStatus,
        grpcMessage: decodeURIComponent(String(meta['grpc-message'] ?? '')),
        reason,
        body: all.length >= 5 ? all.subarray(5) : Buffer.alloc(0),
      });
    };
    stream.on('end', done);
    stream.on('close', () => {
      if (httpStatus !== 0) return done();
      clearTimeout(timer);
      reject(new Error(`stream closed without a response (code ${stream.rstCode})`));
    });
    stream.end(Buffer.from(body));
  });
}

/** Asserts a raw gRPC answer is a client-side error (never INTERNAL/UNKNOWN) with an ErrorInfo. */
export function assertRawGrpcError(r: RawGrpcResult, what: string): string {
  const ctx = `${what}: http ${r.httpStatus} grpc-status ${r.grpcStatus} ${r.grpcMessage.slice(0, 200)}`;
  expect(r.httpStatus, ctx).toBe(200);
  expect(r.grpcStatus, ctx).toBeDefined();
  expect(r.grpcStatus, ctx).not.toBe(0);
  expect([Code.Internal, Code.Unknown, Code.DataLoss, Code.Unavailable], ctx).not.toContain(r.grpcStatus);
  expect(r.reason, ctx).toMatch(/^[A-Z][A-Z0-9_]+$/);
  return r.reason!;
}

/** Counts of reasons seen, for the printed summary. */
export class Tally {
  readonly counts = new Map<string, number>();
  add(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
  get total(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }
  toString(): string {
    return [...this.counts.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}×${v}`).join(', ');
  }
}
