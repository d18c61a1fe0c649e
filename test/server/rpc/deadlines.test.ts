// A call whose deadline has already passed answers DEADLINE_EXCEEDED and
// changes nothing, on every protocol that carries a deadline: gRPC over HTTP/2
// (`grpc-timeout`, which also sends the call past the fast path), gRPC-Web
// (`grpc-timeout`) and Connect (`connect-timeout-ms`). The header is set on a
// real connect-node client (its own timer stays off, so the server's answer is
// what the client sees); raw HTTP/2 for the fast path's own route table.
import { Code, createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBinary, create } from '@bufbuild/protobuf';
import { AddProjectRequestSchema, ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { rpcError } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { grpcFrame, h2Session, rawGrpc } from '../../reliability/support.js';

let kh: TestKeyhold;
beforeAll(async () => {
  kh = await startTestKeyhold();
});
afterAll(async () => kh?.close());

function client(protocol: 'grpc' | 'grpcWeb' | 'connect', header: Record<string, string>) {
  const interceptor: Interceptor = (next) => (req) => {
    req.header.set('authorization', `Bearer ${kh.adminToken}`);
    for (const [k, v] of Object.entries(header)) req.header.set(k, v);
    return next(req);
  };
  const baseUrl = `http://localhost:${kh.port}`;
  const transport =
    protocol === 'grpc'
      ? createGrpcTransport({ baseUrl, interceptors: [interceptor] })
      : protocol === 'grpcWeb'
        ? createGrpcWebTransport({ baseUrl, httpVersion: '1.1', interceptors: [interceptor] })
        : createConnectTransport({ baseUrl, httpVersion: '1.1', interceptors: [interceptor] });
  return createClient(ManagementService, transport);
}

const projectNames = async () => (await kh.client(ManagementService).listProjects({})).result.map((p) => p.name);

describe('an expired deadline never runs the call', () => {
  const cases: [string, 'grpc' | 'grpcWeb' | 'connect', Record<string, string>][] = [
    ['gRPC grpc-timeout: 0n', 'grpc', { 'grpc-timeout': '0n' }],
    ['gRPC grpc-timeout: 0S', 'grpc', { 'grpc-timeout': '0S' }],
    ['gRPC grpc-timeout: 1n (expired on arrival)', 'grpc', { 'grpc-timeout': '1n' }],
    ['gRPC-Web grpc-timeout: 0n', 'grpcWeb', { 'grpc-timeout': '0n' }],
    ['gRPC-Web grpc-timeout: 999u', 'grpcWeb', { 'grpc-timeout': '999u' }],
    ['Connect connect-timeout-ms: 0', 'connect', { 'connect-timeout-ms': '0' }],
  ];

  it.each(cases)('%s → DEADLINE_EXCEEDED, no project', async (label, protocol, header) => {
    const name = `deadline ${label}`;
    const err = await rpcError(client(protocol, header).addProject({ name }));
    expect(err.code).toBe(Code.DeadlineExceeded);
    expect(err.reason).toBe('DEADLINE_EXCEEDED');
    expect(await projectNames()).not.toContain(name);
  });

  it('raw HTTP/2 gRPC with grpc-timeout: 0n on a fast-path method → DEADLINE_EXCEEDED, no project', async () => {
    const session = h2Session(kh.port);
    try {
      const body = grpcFrame(toBinary(AddProjectRequestSchema, create(AddProjectRequestSchema, { name: 'deadline raw' })));
      const res = await rawGrpc(session, '/keyhold.management.v1.ManagementService/AddProject', body, {
        authorization: `Bearer ${kh.adminToken}`,
        'grpc-timeout': '0n',
      });
      expect([res.grpcStatus, res.reason]).toEqual([Code.DeadlineExceeded, 'DEADLINE_EXCEEDED']);
    } finally {
      session.close();
    }
    expect(await projectNames()).not.toContain('deadline raw');
  });

  it('a deadline with time left runs the call, on every protocol', async () => {
    for (const [protocol, header] of [['grpc', { 'grpc-timeout': '10S' }], ['grpcWeb', { 'grpc-timeout': '10000m' }], ['connect', { 'connect-timeout-ms': '10000' }]] as const) {
      const res = await client(protocol, header).addProject({ name: `deadline ok ${protocol}` });
      expect(res.id).toMatch(/^[0-9a-z]{26}$/);
    }
    // And a client's own deadline option (connect-node's timeoutMs) with time left.
    const own = await client('grpc', {}).listProjects({}, { timeoutMs: 10_000 });
    expect(own.result.map((p) => p.name)).toContain('deadline ok grpc');
  });
});
