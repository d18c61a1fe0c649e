// One port for every protocol. Plaintext: the first bytes of each connection
// decide — the HTTP/2 connection preface goes to an h2c server (gRPC with prior
// knowledge), anything else to an HTTP/1.1 server (REST, gRPC-Web, Connect).
// With TLS, ALPN picks h2 or http/1.1 inside one secure server.
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import type { FastifyServerFactoryHandler } from 'fastify';
import { headRefusal, type RawAnswer, type RefusedRequest, type Refusal } from './request-head.js';

const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export interface ListenerLimits {
  /** Idle keep-alive on HTTP/1.1 and idle sessions on HTTP/2. */
  keepAliveTimeoutMs: number;
  /** Time for a client to send complete request headers (slow-loris bound). */
  headersTimeoutMs: number;
  /** Time for a whole request, body included. */
  requestTimeoutMs: number;
  maxHeaderBytes: number;
  maxConcurrentStreams: number;
}

export const DEFAULT_LIMITS: ListenerLimits = {
  keepAliveTimeoutMs: 65_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxHeaderBytes: 16 * 1024,
  maxConcurrentStreams: 256,
};

/** The server fastify listens on, plus a way to end every open connection. */
export interface Listener {
  server: net.Server;
  /** Graceful: idle HTTP/1.1 connections end, HTTP/2 sessions send GOAWAY. Forced: every socket is destroyed. */
  closeConnections(force?: boolean): void;
  /** The client's IP address for a request on either protocol (for per-IP limits). */
  remoteAddress(req: http.IncomingMessage | http2.Http2ServerRequest): string | undefined;
  /** The same for an HTTP/2 stream. */
  streamAddress(stream: http2.ServerHttp2Stream): string | undefined;
  /**
   * Offers every HTTP/2 stream whose head passed the checks (request-head.ts)
   * to `handler` first; streams it declines (returns false) go on to the
   * request handler (fastify) as before. Used by the gRPC unary fast path
   * (grpc-unary.ts).
   */
  interceptStreams(handler: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => boolean): void;
}

/** How the listener's caller answers a request refused before any handler (app.ts: refusals.ts). */
export type Refuse = (refusal: Refusal, request: RefusedRequest) => RawAnswer;

/** Without a caller's shape: the status alone. */
const bareRefusal: Refuse = (refusal) => ({
  status: { HEADERS_TOO_LARGE: 431, REPEATED_HEADER: 400, REQUEST_MALFORMED: 400, REQUEST_TIMEOUT: 408 }[refusal.kind],
  headers: {},
});

type StreamHandler = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => boolean;

function refusedRequest(path: string | undefined, headers: http.IncomingHttpHeaders, peer: string | undefined): RefusedRequest {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  return {
    path,
    contentType: one(headers['content-type']),
    acceptLanguage: one(headers['accept-language']),
    requestId: one(headers['x-request-id']),
    peer,
    headers,
    userAgent: headers['user-agent'],
  };
}

/**
 * Attaches the request handler (fastify's) to an HTTP/2 server and returns the
 * compatibility layer's 'stream' listener it brings. Node's HTTP/2 server turns
 * a stream into a compat request/response pair in one 'stream' listener, which
 * it adds when the first 'request' listener is added; no public API runs
 * anything before it. So the listener is found as the one that appears when the
 * handler is attached (not by its private function name), and a start fails
 * loudly here if Node ever sets the layer up differently — rather than serving
 * with the request gate silently bypassed.
 */
export function attachRequestHandler(server: Pick<http2.Http2Server, 'listeners' | 'on'>, handler: (...args: never[]) => void): (...args: unknown[]) => void {
  const before = new Set(server.listeners('stream'));
  server.on('request', handler as never);
  const added = server.listeners('stream').filter((l) => !before.has(l));
  if (added.length !== 1) {
    throw new Error(
      `node:http2 changed: attaching a 'request' listener added ${added.length} 'stream' listeners, not the one compatibility layer ` +
        `Keyhold's request gate goes in front of (src/server/http/listener.ts); this Node version (${process.version}) needs a new gate`,
    );
  }
  return added[0] as (...args: unknown[]) => void;
}

/**
 * Puts a gate in front of the compatibility layer (attachRequestHandler): the
 * request head is checked first (request-head.ts: size — Node enforces it only
 * after the client acknowledged SETTINGS — and repeated singleton headers),
 * then the stream is offered to the intercepting handler (the gRPC fast path),
 * then to the compat layer. The server's other 'stream' listeners (deadlines)
 * stay as they are. Returns the setter of the intercepting handler.
 */
function gateStreams(
  server: http2.Http2Server | http2.Http2SecureServer,
  handler: FastifyServerFactoryHandler,
  maxHeaderBytes: number,
  refuse: Refuse,
  streamAddress: (stream: http2.ServerHttp2Stream) => string | undefined,
) {
  const compat = attachRequestHandler(server, handler as never);
  let intercept: StreamHandler | undefined;
  server.removeListener('stream', compat);
  server.prependListener(
    'stream',
    function (this: unknown, stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, flags: number, rawHeaders: string[], ...rest: unknown[]) {
      const refusal = headRefusal(rawHeaders ?? [], maxHeaderBytes);
      if (refusal) return refuseStream(stream, refuse(refusal, refusedRequest(headers[':path'], headers, streamAddress(stream))));
      if (intercept?.(stream, headers)) return;
      compat.call(this, stream, headers, flags, rawHeaders, ...rest);
    },
  );
  return (handler: StreamHandler) => {
    intercept = handler;
  };
}

function refuseStream(stream: http2.ServerHttp2Stream, answer: RawAnswer): void {
  stream.on('error', () => {}); // a client reset must not become an uncaught error
  stream.resume(); // whatever body follows is read and dropped
  if (stream.destroyed || stream.closed) return;
  stream.respond({ ':status': answer.status, ...answer.headers }, { endStream: answer.body === undefined });
  if (answer.body !== undefined) stream.end(answer.body);
}

/** HTTP/1.1 requests (plain or over TLS) pass the same head check before fastify; HTTP/2 ones were checked at their stream. */
function gateRequests(handler: FastifyServerFactoryHandler, refuse: Refuse): FastifyServerFactoryHandler {
  return (req, res) => {
    if (req.httpVersionMajor < 2) {
      const refusal = headRefusal(req.rawHeaders);
      if (refusal) {
        const answer = refuse(refusal, refusedRequest(req.url, req.headers, req.socket?.remoteAddress));
        res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body?.byteLength ?? 0) });
        res.end(answer.body);
        return;
      }
    }
    handler(req, res);
  };
}

/** How long a refused HTTP/1.1 connection is kept to deliver its answer before it is cut. */
const LINGER_MS = 2_000;

/**
 * HTTP/1.1 the parser refuses (headers over the limit, a repeated
 * Content-Length, a bad line, the headers timeout) is answered in the same
 * shape as every other error instead of Node's bare status line — only when no
 * answer is under way on the connection, as Node does.
 */
function answerClientErrors(server: http.Server | http2.Http2SecureServer, limits: ListenerLimits, refuse: Refuse): void {
  // Sockets already given a refusal. Node's parser, fed the rest of a refused
  // head, reports the same error again for each chunk that arrives (over TLS a
  // 64 KiB head comes in 16 KiB records); destroying the socket then would
  // reset the connection under the answer still on its way.
  const answered = new WeakSet<net.Socket>();
  server.on('clientError', (err: NodeJS.ErrnoException, socket: net.Socket) => {
    if (answered.has(socket)) return;
    const inFlight = (socket as net.Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
    if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
      const refusal: Refusal =
        err.code === 'HPE_HEADER_OVERFLOW'
          ? { kind: 'HEADERS_TOO_LARGE', limit: limits.maxHeaderBytes }
          : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? { kind: 'REQUEST_TIMEOUT' }
            : { kind: 'REQUEST_MALFORMED' };
      const answer = refuse(refusal, { peer: socket.remoteAddress });
      const body = answer.body ?? new Uint8Array(0);
      const head = [`HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status] ?? ''}`];
      for (const [name, value] of Object.entries(answer.headers)) head.push(`${name}: ${value}`);
      head.push(`content-length: ${body.byteLength}`, 'connection: close', '', '');
      // A lingering close, not write-then-destroy: over TLS the answer is
      // still being encrypted when destroy() would drop it, and bytes the
      // client is still sending (the rest of a 64 KiB header) would be met
      // with a reset that can overtake the answer. So: read and discard what
      // arrives, end after the answer, and destroy once the client has closed
      // too — or after a grace period if it never does.
      answered.add(socket);
      socket.on('data', () => {});
      socket.resume();
      socket.end(Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), body]));
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
      return;
    }
    socket.destroy(err);
  });
}

export function createListener(
  fastifyHandler: FastifyServerFactoryHandler,
  tls: { certFile: string; keyFile: string } | undefined,
  limits: ListenerLimits = DEFAULT_LIMITS,
  refuse: Refuse = bareRefusal,
): Listener {
  const handler = gateRequests(fastifyHandler, refuse);
  const h2Settings = { maxConcurrentStreams: limits.maxConcurrentStreams, maxHeaderListSize: limits.maxHeaderBytes };
  const sessions = new Set<http2.ServerHttp2Session>();
  // A session's client address. When the session runs over a JS stream (the
  // replayed plaintext socket) its socket reports none, so the front hands the
  // address over while it emits the connection (the session is made synchronously).
  const sessionAddress = new WeakMap<http2.Http2Session, string | undefined>();
  let connectingAddress: string | undefined;
  const remoteAddress = (req: http.IncomingMessage | http2.Http2ServerRequest) =>
    ('stream' in req && req.stream?.session ? sessionAddress.get(req.stream.session) : undefined) ?? req.socket?.remoteAddress;
  const streamAddress = (stream: http2.ServerHttp2Stream) =>
    (stream.session ? sessionAddress.get(stream.session) : undefined) ?? stream.session?.socket?.remoteAddress;
  const trackSessions = (s: http2.Http2Server | http2.Http2SecureServer) => {
    s.on('session', (session) => {
      sessionAddress.set(session, connectingAddress ?? session.socket?.remoteAddress);
      sessions.add(session);
      session.setTimeout(limits.keepAliveTimeoutMs, () => session.close());
      // Slow loris on HTTP/2: a session whose first request headers are not
      // complete within the headers timeout is closed (the idle timeout alone
      // resets on every trickled byte). GOAWAY, not a reset: a client that merely
      // connected early reconnects for its first call.
      const firstHeaders = setTimeout(() => session.close(), limits.headersTimeoutMs);
      session.once('stream', () => clearTimeout(firstHeaders));
      session.on('close', () => {
        clearTimeout(firstHeaders);
        sessions.delete(session);
      });
    });
    // Each HTTP/2 request must arrive whole within the request timeout, as on HTTP/1.1.
    s.on('stream', (stream) => {
      const deadline = setTimeout(() => {
        if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
      }, limits.requestTimeoutMs);
      const done = () => clearTimeout(deadline);
      stream.once('end', done);
      stream.once('close', done);
    });
  };

  if (tls) {
    const secure = http2.createSecureServer(
      {
        cert: fs.readFileSync(tls.certFile),
        key: fs.readFileSync(tls.keyFile),
        allowHTTP1: true,
        settings: h2Settings,
        maxSessionMemory: 64,
      },
    );
    trackSessions(secure);
    const interceptStreams = gateStreams(secure, handler, limits.maxHeaderBytes, refuse, streamAddress);
    answerClientErrors(secure, limits, refuse);
    secure.setTimeout(limits.requestTimeoutMs);
    // Idle timeouts: an HTTP/1.1 socket is destroyed (as without this listener),
    // an HTTP/2 session is closed gracefully as on h2c (GOAWAY: open streams such
    // as a quiet health Watch finish; Node would otherwise destroy the session).
    secure.on('timeout', (idle: net.Socket | http2.Http2Session) => {
      if (idle instanceof net.Socket) idle.destroy();
      else idle.close();
    });
    const sockets = trackSockets(secure);
    return {
      server: secure,
      remoteAddress,
      streamAddress,
      interceptStreams,
      closeConnections: (force) => {
        sessions.forEach((s) => s.close());
        if (force) sockets.forEach((s) => s.destroy());
      },
    };
  }

  const h1 = http.createServer(
    {
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      // Node enforces both timeouts only on this sweep (default every 30 s);
      // sweep often enough that a slow client is cut close to its deadline.
      connectionsCheckingInterval: Math.max(50, Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4),
    },
    handler as never,
  );
  const h2 = http2.createServer({ settings: h2Settings, maxSessionMemory: 64 });
  trackSessions(h2);
  const interceptStreams = gateStreams(h2, handler, limits.maxHeaderBytes, refuse, streamAddress);
  answerClientErrors(h1, limits, refuse);

  const front = net.createServer({ noDelay: true }, (socket) => {
    // Until the first bytes name the protocol, the headers timeout is a deadline
    // (an idle timeout would restart with every byte a slow client trickles).
    const deadline = setTimeout(() => socket.destroy(), limits.headersTimeoutMs);
    socket.once('close', () => clearTimeout(deadline));
    let seen = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      const n = Math.min(seen.length, H2_PREFACE.length);
      const isH2 = seen.subarray(0, n).equals(H2_PREFACE.subarray(0, n));
      if (isH2 && seen.length < H2_PREFACE.length) return; // wait for the whole preface
      socket.off('data', onData);
      clearTimeout(deadline);
      if (isH2) {
        connectingAddress = socket.remoteAddress;
        // Paused with the peeked bytes put back: Node's HTTP/2 session takes the
        // socket over and reads what is buffered before reading from the handle.
        // (Resuming it here would lose bytes to the stream's own flowing mode.)
        socket.pause();
        socket.unshift(seen);
        h2.emit('connection', socket);
        connectingAddress = undefined;
      } else {
        // The HTTP/1.1 parser reads through the stream, so unshifted bytes reach it.
        socket.pause();
        socket.unshift(seen);
        h1.emit('connection', socket);
        socket.resume();
      }
    };
    socket.on('data', onData);
    socket.on('error', () => socket.destroy());
  });
  // h1 never listens itself (front hands it its sockets), and Node tracks an HTTP
  // server's connections — closeIdleConnections() on stop, and the headers and
  // request timeouts above — only once it has seen 'listening'. Without this, a
  // stop waits on idle keep-alives and a slow client is never timed out.
  front.on('listening', () => h1.emit('listening'));
  front.on('close', () => h1.close(() => {})); // stops h1's connection checker
  const sockets = trackSockets(front);
  return {
    server: front,
    remoteAddress,
    streamAddress,
    interceptStreams,
    closeConnections: (force) => {
      h1.closeIdleConnections();
      sessions.forEach((s) => s.close());
      if (force) sockets.forEach((s) => s.destroy());
    },
  };
}

function trackSockets(server: net.Server): Set<net.Socket> {
  const sockets = new Set<net.Socket>();
  server.on(server instanceof net.Server && !('setSecureContext' in server) ? 'connection' : 'secureConnection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return sockets;
}
