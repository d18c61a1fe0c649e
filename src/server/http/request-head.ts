// What the listener checks in every request's head before any protocol or
// handler sees it (HTTP/1.1 and HTTP/2 alike, the gRPC fast path included).
//
// - Size, on HTTP/2. Node enforces SETTINGS_MAX_HEADER_LIST_SIZE only once the
//   client has acknowledged the server's SETTINGS; a client that sends its first
//   request right after the preface (curl, Node's own client) got a 64 KB header
//   list through. HTTP/1.1's parser enforces the size itself (431).
// - Singleton headers sent more than once. Node keeps the first Authorization
//   and drops the rest, and joins other repeats with ", " — so two
//   `authorization` headers authenticated as the first, and a proxy or a log
//   reading the last saw another caller. The raw header list still has them all.
//
// The answer to a refused head is the listener's caller's to shape (app.ts,
// refusals.ts); this file only finds the problem.
import type { ForwardingHeaders } from './trusted-proxies.js';
import { ORG_HEADER, ZITADEL_ORG_HEADER } from '../../api/context.js';

/**
 * Headers Keyhold or its protocols read as one value. `content-encoding`,
 * `accept-language`, `te` and the like are lists by definition and may repeat.
 */
export const SINGLETON_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  // RFC 9449 §4.3: one DPoP proof per request.
  'dpop',
  'content-length',
  'content-type',
  'host',
  ORG_HEADER,
  ZITADEL_ORG_HEADER,
  // One key per request (interceptors/idempotency.ts): two would name two executions.
  'idempotency-key',
  'grpc-timeout',
  'grpc-encoding',
  'connect-timeout-ms',
  'connect-protocol-version',
]);

export type Refusal =
  | { kind: 'HEADERS_TOO_LARGE'; limit: number }
  | { kind: 'REPEATED_HEADER'; header: string }
  /** HTTP/1.1 the parser could not read (llhttp: a repeated Content-Length, a bad header line…). */
  | { kind: 'REQUEST_MALFORMED' }
  | { kind: 'REQUEST_TIMEOUT' };

/** What is known of a refused request, to answer in its protocol's shape. */
export interface RefusedRequest {
  path?: string;
  contentType?: string;
  acceptLanguage?: string;
  /** The client's x-request-id, as sent (requests.ts decides whether to keep it). */
  requestId?: string;
  /** The connection's peer address, and the request's headers (what a trusted proxy forwarded: trusted-proxies.ts). */
  peer?: string;
  headers?: ForwardingHeaders;
  /** As sent (requests.ts makes it loggable). */
  userAgent?: string | string[];
}

/** An answer written as is (status, headers, optional body) by the listener. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body?: Uint8Array;
}

/** Octets HTTP/2 counts for a header list: name + value + 32 per field (RFC 9113 §6.5.2). */
export function headerListBytes(rawHeaders: readonly string[]): number {
  let size = 0;
  for (let i = 0; i < rawHeaders.length; i++) size += rawHeaders[i].length;
  return size + 16 * rawHeaders.length;
}

// Runs on every request: a bit per singleton, and names of other lengths skipped
// before any lower-casing (HTTP/1.1 names arrive as sent, e.g. "Content-Type").
const SINGLETON_BIT = new Map([...SINGLETON_HEADERS].map((name, i) => [name, 1 << i]));
const SINGLETON_LENGTHS = new Set([...SINGLETON_HEADERS].map((name) => name.length));

/** The first singleton header that appears more than once (any letter case), if any. */
export function repeatedSingleton(rawHeaders: readonly string[]): string | undefined {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const raw = rawHeaders[i];
    if (!SINGLETON_LENGTHS.has(raw.length)) continue;
    const name = raw.toLowerCase();
    const bit = SINGLETON_BIT.get(name);
    if (bit === undefined) continue;
    if (seen & bit) return name;
    seen |= bit;
  }
  return undefined;
}

/** The problem with a request head, or undefined. `maxBytes` only where the transport does not enforce it (HTTP/2). */
export function headRefusal(rawHeaders: readonly string[], maxBytes?: number): Refusal | undefined {
  if (maxBytes !== undefined && headerListBytes(rawHeaders) > maxBytes) return { kind: 'HEADERS_TOO_LARGE', limit: maxBytes };
  const header = repeatedSingleton(rawHeaders);
  return header ? { kind: 'REPEATED_HEADER', header } : undefined;
}
