// One port for every protocol. Plaintext: the first bytes of each connection
// decide — the HTTP/2 connection preface goes to an h2c server (gRPC with prior
// knowledge), anything else to an HTTP/1.1 server (REST, gRPC-Web, Connect).
// With TLS, ALPN picks h2 or http/1.1 inside one secure server.
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import type { FastifyServerFactoryHandler } from 'fastify';

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
   * Offers every HTTP/2 stream to `handler` first; streams it declines (returns
   * false) go on to the request handler (fastify) as before. Used by the gRPC
   * unary fast path (grpc-unary.ts).
   */
  interceptStreams(handler: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => boolean): void;
}

/**
 * Node's HTTP/2 server turns a stream into a compat request/response pair in
 * one 'stream' listener it adds with the 'request' listener. Put `handler` in
 * front of it; the server's other 'stream' listeners (deadlines) stay as they are.
 */
function interceptStreamsOf(server: http2.Http2Server | http2.Http2SecureServer) {
  return (handler: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => boolean) => {
    const compat = server.listeners('stream').find((l) => l.name === 'bound onServerStream') as
      | ((...args: unknown[]) => void)
      | undefined;
    if (!compat) throw new Error("node:http2 changed: no compat 'stream' listener to put the gRPC fast path in front of");
    server.removeListener('stream', compat);
    server.prependListener('stream', function (this: unknown, stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, ...rest: unknown[]) {
      if (!handler(stream, headers)) compat.call(this, stream, headers, ...rest);
    });
  };
}

export function createListener(
  handler: FastifyServerFactoryHandler,
  tls: { certFile: string; keyFile: string } | undefined,
  limits: ListenerLimits = DEFAULT_LIMITS,
): Listener {
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
      handler as never,
    );
    trackSessions(secure);
    secure.setTimeout(limits.requestTimeoutMs);
    const sockets = trackSockets(secure);
    return {
      server: secure,
      remoteAddress,
      streamAddress,
      interceptStreams: interceptStreamsOf(secure),
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
  const h2 = http2.createServer({ settings: h2Settings, maxSessionMemory: 64 }, handler as never);
  trackSessions(h2);

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
    interceptStreams: interceptStreamsOf(h2),
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
