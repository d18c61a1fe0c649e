// The load process's gRPC client: unary calls over node:http2 directly, the way
// h2load or ghz drive a server. Why not connect-node's client (used for the
// fixtures and by every test): it spent ~0.5 ms of CPU per call in the load
// process (bench/results/steps: client CPU 56% at 1,063 no-op calls/s), and the
// load process shares the machine's 2 cores with the server and PostgreSQL —
// the benchmark would measure the client. This client still checks every answer:
// HTTP 200, grpc-status 0, and the decoded response message.
import http2 from 'node:http2';
import { fromBinary, toBinary, type DescMessage, type DescMethodUnary, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { create } from '@bufbuild/protobuf';

export interface GrpcH2Client {
  unary<I extends DescMessage, O extends DescMessage>(method: DescMethodUnary<I, O>, request: MessageInitShape<I>): Promise<MessageShape<O>>;
  close(): void;
}

const pathOf = (method: DescMethodUnary) => `/${method.parent.typeName}/${method.name}`;

/** A gRPC length-prefixed message: flag 0 (not compressed), 4-byte big-endian length, bytes. */
export function grpcFrame(bytes: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + bytes.length);
  frame[0] = 0;
  frame.writeUInt32BE(bytes.length, 1);
  frame.set(bytes, 5);
  return frame;
}

export function connectGrpcH2(baseUrl: string, token: string, sessions = 2): GrpcH2Client {
  // Several sessions: one HTTP/2 connection serializes its frames on one socket.
  const gone = new WeakSet<http2.ClientHttp2Session>();
  const open = () => {
    const session = http2.connect(baseUrl);
    session.on('error', () => {}); // surfaced on the streams
    session.once('goaway', () => gone.add(session)); // no new streams on it
    return session;
  };
  const pool = Array.from({ length: sessions }, open);
  let next = 0;
  const authorization = `Bearer ${token}`;

  function unaryEncoded<O extends DescMessage>(path: string, frame: Buffer, output: O): Promise<MessageShape<O>> {
    // The server closes idle sessions (keep-alive timeout, or no first request
    // within its headers timeout): open a new one in their place.
    const slot = next++ % pool.length;
    if (gone.has(pool[slot]) || pool[slot].closed || pool[slot].destroyed) pool[slot] = open();
    const session = pool[slot];
    return new Promise((resolve, reject) => {
      const stream = session.request({
        ':method': 'POST',
        ':path': path,
        'content-type': 'application/grpc+proto',
        te: 'trailers',
        authorization,
      });
      const chunks: Buffer[] = [];
      let httpStatus = 0;
      stream.on('response', (headers) => {
        httpStatus = Number(headers[':status']);
        // A trailers-only answer (an error) carries grpc-status in the headers.
        if (headers['grpc-status'] !== undefined) finish(headers);
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('trailers', (trailers) => finish(trailers));
      stream.on('error', reject);
      // A lost answer fails the call (and shows in the run's errors) instead of stalling a virtual user.
      stream.setTimeout(30_000, () => {
        reject(new Error('no answer within 30 s'));
        stream.close(http2.constants.NGHTTP2_CANCEL);
      });
      stream.on('close', () => reject(new Error(`stream closed without grpc-status (HTTP ${httpStatus})`)));
      let done = false;
      function finish(meta: http2.IncomingHttpHeaders) {
        if (done) return;
        done = true;
        const status = Number(meta['grpc-status']);
        if (httpStatus !== 200 || status !== 0) {
          const message = decodeURIComponent(String(meta['grpc-message'] ?? ''));
          return reject(new Error(`HTTP ${httpStatus}, grpc-status ${status}: ${message.slice(0, 200)}`));
        }
        const body = Buffer.concat(chunks);
        if (body.length < 5 || body[0] !== 0 || body.readUInt32BE(1) !== body.length - 5) {
          return reject(new Error(`malformed response frame (${body.length} bytes)`));
        }
        try {
          resolve(fromBinary(output, body.subarray(5)));
        } catch (e) {
          reject(e);
        }
      }
      stream.end(frame);
    });
  }

  return {
    unary(method, request) {
      return unaryEncoded(pathOf(method), grpcFrame(toBinary(method.input, create(method.input, request))), method.output);
    },
    close() {
      for (const s of pool) s.close();
    },
  };
}
