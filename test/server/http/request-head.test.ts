// The request head is checked before any handler, on HTTP/1.1 and HTTP/2 and
// for every protocol (src/server/http/request-head.ts): a singleton header sent twice
// (Authorization, Content-Type, Host, x-service-orgid, x-zitadel-orgid, grpc-timeout…) is a 400 /
// INVALID_ARGUMENT REPEATED_HEADER in the protocol's shape, whichever copy is
// the valid one; a header list over KEYHOLD_MAX_HEADER_BYTES on HTTP/2 is
// refused even on a connection's first stream. Nothing refused reaches a
// handler: the writes asked for never happen. Raw TCP for HTTP/1.1, the raw
// HTTP/2 client of test/support for repeats node:http2 will not send.
import http2 from 'node:http2';
import net from 'node:net';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../../gen/google/rpc/status_pb.js';
import { AddProjectRequestSchema, ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { headerListBytes, headRefusal, repeatedSingleton } from '../../../src/server/http/request-head.js';
import { restReason } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { rawH2Request } from '../../support/raw-h2.js';
import { grpcFrame, h2Session, rawGrpc } from '../../reliability/support.js';

let kh: TestKeyhold;
let orgId: string;
beforeAll(async () => {
  kh = await startTestKeyhold();
  orgId = (await kh.client(ManagementService).addProject({ name: 'head' })).details!.resourceOwner;
});
afterAll(async () => kh?.close());

const projectNames = async () => (await kh.client(ManagementService).listProjects({})).result.map((p) => p.name);

/** One HTTP/1.1 request written as is; the status, headers and body of the answer. */
function rawHttp1(head: string[], body = ''): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: kh.port }, () => {
      socket.write(`${head.join('\r\n')}\r\nConnection: close\r\n\r\n${body}`);
    });
    let data = '';
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const split = data.indexOf('\r\n\r\n');
      let text = data.slice(split + 4);
      if (/transfer-encoding: chunked/i.test(data.slice(0, split))) text = text.replace(/^[0-9a-f]+\r\n/, '').replace(/\r\n0\r\n\r\n$/, '');
      resolve({ status: Number(data.slice(9, 12)), headers: data.slice(0, split), body: text });
    });
  });
}

const json = (text: string | Buffer) => JSON.parse(text.toString());
const body = JSON.stringify({ name: 'x' });

describe('a singleton header sent twice', () => {
  const auth = () => `Authorization: Bearer ${kh.adminToken}`;

  it('HTTP/1.1 REST: Authorization twice, the valid one first or last → 400 REPEATED_HEADER; no project', async () => {
    for (const [label, first, second] of [['valid first', auth(), 'Authorization: Bearer kh_other'], ['valid last', 'Authorization: Bearer kh_other', auth()]]) {
      const name = `dup auth ${label}`;
      const res = await rawHttp1(['POST /management/v1/projects HTTP/1.1', 'Host: localhost', first, second, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(JSON.stringify({ name }))}`], JSON.stringify({ name }));
      expect(res.status, label).toBe(400);
      expect(restReason(json(res.body)), label).toBe('REPEATED_HEADER');
      // The request id is one made for it (none was sent), in the header and the Status alike.
      const requestId = /^x-request-id: (\S+)$/im.exec(res.headers)?.[1];
      expect(json(res.body).details[0].metadata).toEqual({ header: 'authorization', requestId });
      expect(res.headers).toMatch(/cache-control: no-store/i);
      expect(await projectNames()).not.toContain(name);
    }
  });

  it('HTTP/1.1: Content-Type, Host, x-service-orgid, x-zitadel-orgid, grpc-timeout, connect-timeout-ms twice → 400 each', async () => {
    const cases = [
      ['Content-Type: application/json', 'Content-Type: text/plain'],
      ['Host: a.example', 'Host: b.example'],
      [`x-service-orgid: ${orgId}`, `X-Service-OrgID: ${orgId}`],
      [`x-zitadel-orgid: ${orgId}`, `X-Zitadel-OrgID: ${orgId}`],
      ['grpc-timeout: 10S', 'grpc-timeout: 20S'],
      ['connect-timeout-ms: 1000', 'connect-timeout-ms: 2000'],
    ];
    for (const repeated of cases) {
      const head = ['POST /management/v1/projects HTTP/1.1', auth(), `Content-Length: ${body.length}`];
      if (!repeated[0].startsWith('Host')) head.push('Host: localhost');
      if (!repeated[0].startsWith('Content-Type')) head.push('Content-Type: application/json');
      const res = await rawHttp1([...head, ...repeated], body);
      expect(res.status, repeated[0]).toBe(400);
      expect(json(res.body).details[0].metadata.header, repeated[0]).toBe(repeated[0].split(':')[0].toLowerCase());
    }
  });

  it('HTTP/1.1: Content-Length twice → 400 as a google.rpc.Status (the parser refuses it; no bare status line)', async () => {
    const res = await rawHttp1(['POST /management/v1/projects HTTP/1.1', 'Host: localhost', auth(), 'Content-Type: application/json', `Content-Length: ${body.length}`, `Content-Length: ${body.length}`], body);
    expect(res.status).toBe(400);
    expect(restReason(json(res.body))).toBe('REQUEST_MALFORMED');
  });

  it('HTTP/1.1 Connect and gRPC-Web: Authorization twice → invalid_argument in each shape', async () => {
    const connect = await rawHttp1(['POST /keyhold.management.v1.ManagementService/AddProject HTTP/1.1', 'Host: localhost', auth(), 'Authorization: Bearer kh_other', 'Content-Type: application/json', `Content-Length: ${body.length}`], body);
    expect(connect.status).toBe(400);
    expect(json(connect.body).code).toBe('invalid_argument');
    expect(json(connect.body).details[0].debug.reason).toBe('REPEATED_HEADER');
    const frame = grpcFrame(toBinary(AddProjectRequestSchema, create(AddProjectRequestSchema, { name: 'dup grpc-web' })));
    const web = await rawHttp1(['POST /keyhold.management.v1.ManagementService/AddProject HTTP/1.1', 'Host: localhost', auth(), 'Authorization: Bearer kh_other', 'Content-Type: application/grpc-web+proto', `Content-Length: ${frame.length}`], frame.toString('latin1'));
    expect(web.status).toBe(200);
    expect(web.headers).toMatch(/^grpc-status: 3$/im);
    const bin = /^grpc-status-details-bin: (\S+)$/im.exec(web.headers)![1];
    const info = fromBinary(StatusSchema, Buffer.from(bin, 'base64')).details.find((d) => d.typeUrl.endsWith('ErrorInfo'))!;
    expect(fromBinary(ErrorInfoSchema, info.value).reason).toBe('REPEATED_HEADER');
    expect(await projectNames()).not.toContain('dup grpc-web');
  });

  it('HTTP/2: Authorization twice on a connection\'s first stream → 400 REPEATED_HEADER; no project', async () => {
    const name = 'dup auth h2';
    const res = await rawH2Request(
      kh.port,
      [
        [':method', 'POST'],
        [':scheme', 'http'],
        [':path', '/management/v1/projects'],
        [':authority', 'localhost'],
        ['authorization', `Bearer ${kh.adminToken}`],
        ['authorization', 'Bearer kh_other'],
        ['content-type', 'application/json'],
      ],
      Buffer.from(JSON.stringify({ name })),
    );
    expect(res.status).toBe(400);
    expect(restReason(json(res.body))).toBe('REPEATED_HEADER');
    expect(await projectNames()).not.toContain(name);
  });

  it('HTTP/2 gRPC (the fast path\'s methods): x-service-orgid twice → INVALID_ARGUMENT REPEATED_HEADER; no project', async () => {
    const session = h2Session(kh.port);
    try {
      const frame = grpcFrame(toBinary(AddProjectRequestSchema, create(AddProjectRequestSchema, { name: 'dup grpc' })));
      const res = await rawGrpc(session, '/keyhold.management.v1.ManagementService/AddProject', frame, {
        authorization: `Bearer ${kh.adminToken}`,
        'x-service-orgid': [orgId, orgId] as unknown as string,
      });
      expect([res.grpcStatus, res.reason]).toEqual([3, 'REPEATED_HEADER']);
      // One copy is fine.
      const ok = await rawGrpc(session, '/keyhold.management.v1.ManagementService/AddProject', grpcFrame(toBinary(AddProjectRequestSchema, create(AddProjectRequestSchema, { name: 'single orgid' }))), {
        authorization: `Bearer ${kh.adminToken}`,
        'x-service-orgid': orgId,
      });
      expect(ok.grpcStatus).toBe(0);
    } finally {
      session.close();
    }
    expect(await projectNames()).not.toContain('dup grpc');
    expect(await projectNames()).toContain('single orgid');
  });

  it('list headers may repeat (Accept-Language, TE)', async () => {
    const res = await rawHttp1(['GET /auth/v1/users/me HTTP/1.1', 'Host: localhost', auth(), 'Accept-Language: de', 'Accept-Language: en;q=0.5']);
    expect(res.status).toBe(200);
  });
});

describe('HTTP/2 header size (KEYHOLD_MAX_HEADER_BYTES) holds on every stream', () => {
  const big = 'a'.repeat(20 * 1024);

  it('a 20 KiB header on a connection\'s first stream (sent before SETTINGS are acknowledged) → 431 as a Status; no project', async () => {
    const name = 'big head';
    const res = await rawH2Request(
      kh.port,
      [
        [':method', 'POST'],
        [':scheme', 'http'],
        [':path', '/management/v1/projects'],
        [':authority', 'localhost'],
        ['authorization', `Bearer ${kh.adminToken}`],
        ['content-type', 'application/json'],
        ['x-big', big],
      ],
      Buffer.from(JSON.stringify({ name })),
    );
    expect(res.status).toBe(431);
    expect(restReason(json(res.body))).toBe('HEADERS_TOO_LARGE');
    expect(await projectNames()).not.toContain(name);
  });

  it('node:http2, gRPC on the fast path: refused on the first stream and on later ones; never reaches a handler', async () => {
    const session = h2Session(kh.port);
    try {
      for (let i = 0; i < 3; i++) {
        const frame = grpcFrame(toBinary(AddProjectRequestSchema, create(AddProjectRequestSchema, { name: `big grpc ${i}` })));
        const outcome = await rawGrpc(session, '/keyhold.management.v1.ManagementService/AddProject', frame, { authorization: `Bearer ${kh.adminToken}`, 'x-big': big }).then(
          (r) => `grpc-status ${r.grpcStatus} ${r.reason}`,
          (e: Error) => `refused: ${e.message}`,
        );
        // The first stream meets Keyhold's check; once SETTINGS are acknowledged Node resets the stream itself.
        expect(outcome, `stream ${i}`).toMatch(/^(grpc-status 8 HEADERS_TOO_LARGE|refused: .*ENHANCE_YOUR_CALM)/);
      }
    } finally {
      session.close();
    }
    expect((await projectNames()).filter((n) => n.startsWith('big grpc'))).toEqual([]);
  });

  it('node:http2 REST: the first stream gets 431, and a header list under the limit passes', async () => {
    const session = http2.connect(`http://127.0.0.1:${kh.port}`);
    session.on('error', () => {});
    const ask = (headers: http2.OutgoingHttpHeaders) =>
      new Promise<string>((resolve) => {
        const req = session.request({ ':path': '/auth/v1/users/me', authorization: `Bearer ${kh.adminToken}`, ...headers });
        req.on('response', (h) => resolve(`status ${h[':status']}`));
        req.on('error', (e: NodeJS.ErrnoException) => resolve(`refused: ${e.message}`));
        req.resume();
        req.end();
      });
    expect(await ask({ 'x-big': big })).toBe('status 431');
    expect(await ask({ 'x-small': 'a'.repeat(8 * 1024) })).toBe('status 200');
    expect(await ask({ 'x-big': big })).toMatch(/^(status 431|refused: .*ENHANCE_YOUR_CALM)/);
    session.destroy();
  });
});

describe('the checks themselves', () => {
  it('find a repeated singleton in any letter case, and let list headers repeat', () => {
    expect(repeatedSingleton(['Host', 'a', 'AUTHORIZATION', 'x', 'accept', '1', 'Authorization', 'y'])).toBe('authorization');
    expect(repeatedSingleton(['Accept-Language', 'de', 'accept-language', 'en', 'TE', 'trailers', 'te', 'x'])).toBeUndefined();
    expect(repeatedSingleton(['content-type', 'a', 'content-length', '1', 'grpc-timeout', '1S', 'connect-timeout-ms', '5'])).toBeUndefined();
  });

  it('count a header list as HTTP/2 does (name + value + 32 per field)', () => {
    expect(headerListBytes([':path', '/', 'a', 'bc'])).toBe(5 + 1 + 32 + 1 + 2 + 32);
    expect(headRefusal(['x', 'a'.repeat(100)], 133)).toBeUndefined();
    expect(headRefusal(['x', 'a'.repeat(101)], 133)).toEqual({ kind: 'HEADERS_TOO_LARGE', limit: 133 });
  });
});

