// A client that resets its gRPC stream with an error code (connect-node does,
// with INTERNAL_ERROR, when a call is aborted) must not take the server down:
// on the fast path (src/server/rpc/grpc-unary.ts) nothing else listens for the
// stream's 'error'. Without a listener the reset is an uncaught exception,
// which vitest reports as an unhandled error of this file.
import http2 from 'node:http2';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
beforeAll(async () => {
  kh = await startTestKeyhold();
});
afterAll(async () => {
  await kh?.close();
});

const healthz = `/${ManagementService.typeName}/${ManagementService.method.healthz.name}`;

function resetMidRequest(session: http2.ClientHttp2Session, code: number, afterBody: boolean): Promise<void> {
  return new Promise((resolve) => {
    const stream = session.request({ ':method': 'POST', ':path': healthz, 'content-type': 'application/grpc', te: 'trailers' });
    stream.on('error', () => {});
    stream.on('close', () => resolve());
    if (afterBody) stream.write(Buffer.from([0, 0, 0, 0, 0]));
    // Half a frame, then the reset: the server is waiting for the rest of the body.
    stream.write(Buffer.from([0, 0, 0]), () => setTimeout(() => stream.close(code), 20));
  });
}

it('survives resets with error codes in the middle of a request, and keeps answering', async () => {
  const session = http2.connect(`http://127.0.0.1:${kh.port}`);
  session.on('error', () => {});
  try {
    for (const code of [http2.constants.NGHTTP2_INTERNAL_ERROR, http2.constants.NGHTTP2_PROTOCOL_ERROR, http2.constants.NGHTTP2_CANCEL]) {
      await resetMidRequest(session, code, false);
      await resetMidRequest(session, code, true);
    }
    // Let any error the server emits surface before asserting it still serves.
    await new Promise((r) => setTimeout(r, 200));
  } finally {
    session.close();
  }
  const res = await kh.client(ManagementService).healthz({});
  expect(res).toBeDefined();
  expect(await kh.rest('GET', '/healthz')).toMatchObject({ status: 200 });
});
