// The per-IP and per-token token buckets (KEYHOLD_RATE_LIMIT_PER_SECOND/_BURST):
// the bucket arithmetic and its memory bound with a fake clock, then a real
// Keyhold answering RESOURCE_EXHAUSTED / 429 RATE_LIMITED with a retry hint on
// all four protocols. Separate client IPs come from binding the client side to
// other loopback addresses (127.0.0.x), so the IP and token limits can be told apart.
import http from 'node:http';
import type { DescService } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Client, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetryInfoSchema } from '../../gen/google/rpc/error_details_pb.js';
import { AuthService } from '../../gen/keyhold/auth/v1/auth_pb.js';
import { ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { loadConfig } from '../../src/server/config.js';
import { TokenBuckets } from '../../src/server/http/rate-limit.js';
import { rpcError } from '../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { moved, scrape } from '../support/metrics.js';
import { addApp } from '../support/oidc-login.js';
import { plainUser } from '../support/u2f.js';
import { assertRestStatus } from './support.js';

describe('token buckets (fake clock)', () => {
  it('allows a burst, then one request per 1/rate, and says when the next token comes', () => {
    let now = 0;
    const b = new TokenBuckets({ perSecond: 2, burst: 3, now: () => now });
    expect([1, 2, 3].map(() => b.take('k').ok)).toEqual([true, true, true]);
    const refused = b.take('k');
    expect(refused).toEqual({ ok: false, retryAfterMs: 500 });
    now = 499;
    expect(b.take('k').ok).toBe(false);
    now = 500;
    expect(b.take('k').ok).toBe(true);
    // Another key has its own bucket.
    expect(b.take('other').ok).toBe(true);
    // Refills up to the burst, not beyond.
    now = 60_000;
    expect([1, 2, 3, 4].map(() => b.take('k').ok)).toEqual([true, true, true, false]);
  });

  it('burst 0 means "as many as the rate", at least one', () => {
    expect(new TokenBuckets({ perSecond: 5, burst: 0 }).burst).toBe(5);
    expect(new TokenBuckets({ perSecond: 0.5, burst: 0 }).burst).toBe(1);
  });

  it('memory stays bounded: idle (refilled) buckets are dropped, and never more than maxBuckets live', () => {
    let now = 0;
    const b = new TokenBuckets({ perSecond: 10, burst: 10, maxBuckets: 1000, now: () => now });
    for (let i = 0; i < 50_000; i++) {
      b.take(`ip:${i}`);
      expect(b.size).toBeLessThanOrEqual(1000);
    }
    // One second later every bucket is full again, so none is worth keeping.
    now += 1000;
    b.take('one more');
    expect(b.size).toBe(1);
    // A busy key survives a stream of one-off keys as long as it stays recent.
    for (let i = 0; i < 5000; i++) {
      now += 1;
      b.take('busy');
      b.take(`x:${i}`);
    }
    expect(b.size).toBeLessThanOrEqual(1000);
  });
});

describe('Keyhold with KEYHOLD_RATE_LIMIT_PER_SECOND=1, KEYHOLD_RATE_LIMIT_BURST=20', () => {
  const BURST = 20;
  /** Requests served before the first refusal: the burst, plus what refilled meanwhile (1/s) on a slow machine. */
  const servedBeforeLimit = (n: number) => {
    expect(n).toBeGreaterThanOrEqual(BURST);
    expect(n).toBeLessThanOrEqual(BURST + 2);
  };
  let kh: TestKeyhold;
  let ipCounter = 10;
  /** A loopback address no other test used: its own per-IP bucket. */
  const freshIp = () => `127.0.0.${++ipCounter}`;
  /** Tokens of users made up front (the admin's own bucket allows 20 calls at once: 2 per user). */
  const tokens: string[] = [];

  beforeAll(async () => {
    kh = await startTestKeyhold({ env: { KEYHOLD_RATE_LIMIT_PER_SECOND: '1', KEYHOLD_RATE_LIMIT_BURST: String(BURST) } });
    for (let i = 0; i < 7; i++) tokens.push((await plainUser(kh)).token);
  });
  afterAll(async () => kh?.close());

  function rest(ip: string, path: string, token?: string): Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: kh.port, path, localAddress: ip, agent: false, headers: token ? { authorization: `Bearer ${token}` } : {} },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {
              /* keep text */
            }
            resolve({ status: res.statusCode ?? 0, body, headers: res.headers });
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  function client<S extends DescService>(service: S, protocol: 'grpc' | 'grpcWeb' | 'connect', ip: string, token: string): Client<S> {
    const baseUrl = `http://127.0.0.1:${kh.port}`;
    const auth: Interceptor = (next) => (req) => {
      req.header.set('authorization', `Bearer ${token}`);
      return next(req);
    };
    const transport =
      protocol === 'grpc' ? createGrpcTransport({ baseUrl, interceptors: [auth], nodeOptions: { localAddress: ip } as never }) // http2.connect passes it to net.connect; its type does not list it
      : protocol === 'grpcWeb' ? createGrpcWebTransport({ baseUrl, httpVersion: '1.1', interceptors: [auth], nodeOptions: { localAddress: ip, agent: false } as never })
      : createConnectTransport({ baseUrl, httpVersion: '1.1', interceptors: [auth], nodeOptions: { localAddress: ip, agent: false } as never });
    return createClient(service, transport);
  }

  it('is off unless configured: the default config has no limit and no limiter', async () => {
    expect(loadConfig({}).rateLimit).toEqual({ perSecond: 0, burst: 0 });
    const plain = await startTestKeyhold();
    try {
      expect(plain.app.rateLimiter).toBeUndefined();
      const results = await Promise.all(Array.from({ length: 60 }, () => plain.rest('GET', '/auth/v1/users/me')));
      expect(results.every((r) => r.status === 200)).toBe(true);
    } finally {
      await plain.close();
    }
  });

  it('REST: the burst, then 429 RATE_LIMITED with retry-after and RetryInfo; after the wait, served again', async () => {
    const ip = freshIp();
    const token = tokens[0];
    let served = 0;
    let limited: Awaited<ReturnType<typeof rest>> | undefined;
    while (served < BURST + 10) {
      const res = await rest(ip, '/auth/v1/users/me', token);
      if (res.status !== 200) {
        limited = res;
        break;
      }
      served++;
    }
    servedBeforeLimit(served);
    expect(limited!.status).toBe(429);
    expect(assertRestStatus(limited!.status, limited!.body, 'limited').reason).toBe('RATE_LIMITED');
    expect(limited!.body.code).toBe(Code.ResourceExhausted);
    const after = Number(limited!.headers['retry-after']);
    expect(after).toBeGreaterThanOrEqual(1);
    const retry = limited!.body.details.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.RetryInfo');
    expect(retry.retryDelay).toBe(`${after}s`);
    await new Promise((r) => setTimeout(r, after * 1000));
    expect((await rest(ip, '/auth/v1/users/me', token)).status).toBe(200);
  });

  it('per IP, before authentication: a flood without a valid token is limited too (401 … then 429), each refusal counted by its bucket', async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    const before = await scrape(kh.url);
    for (let i = 0; i < BURST + 5; i++) statuses.push((await rest(ip, '/auth/v1/users/me', 'made-up-token')).status);
    servedBeforeLimit(statuses.indexOf(429));
    expect(new Set(statuses.slice(0, BURST))).toEqual(new Set([401]));
    const after = await scrape(kh.url);
    expect(moved(before, after, 'keyhold_rate_limited_total', { by: 'address' })).toBe(statuses.filter((s) => s === 429).length);
    expect(moved(before, after, 'keyhold_rate_limited_total', { by: 'token' })).toBe(0);
    // Another address is unaffected.
    expect((await rest(freshIp(), '/auth/v1/users/me')).status).toBe(401);
  });

  it('per token: one token spread over two IPs still gets only its own burst', async () => {
    const token = tokens[1];
    const [a, b] = [freshIp(), freshIp()];
    const fromA: number[] = [];
    const fromB: number[] = [];
    const before = await scrape(kh.url);
    for (let i = 0; i < 13; i++) fromA.push((await rest(a, '/auth/v1/users/me', token)).status);
    for (let i = 0; i < 13; i++) fromB.push((await rest(b, '/auth/v1/users/me', token)).status);
    expect(fromA.every((s) => s === 200)).toBe(true);
    // Neither IP used more than 13 of its 20, yet the token's 26 requests ran out of its 20.
    expect(fromB.filter((s) => s === 429).length).toBeGreaterThanOrEqual(26 - BURST - 2);
    const after = await scrape(kh.url);
    expect(moved(before, after, 'keyhold_rate_limited_total', { by: 'token' })).toBe(fromB.filter((s) => s === 429).length);
    expect(moved(before, after, 'keyhold_rate_limited_total', { by: 'address' })).toBe(0);
    // The IPs themselves have capacity left: another token from `b` is served.
    expect((await rest(b, '/auth/v1/users/me', tokens[2])).status).toBe(200);
  });

  it.each([
    ['grpc', 3],
    ['grpcWeb', 4],
    ['connect', 5],
  ] as const)('%s: the burst, then RESOURCE_EXHAUSTED RATE_LIMITED with a retry hint', async (protocol, t) => {
    const c = client(AuthService, protocol, freshIp(), tokens[t]);
    let served = 0;
    let thrown: unknown;
    while (served < BURST + 10) {
      try {
        await c.getMyUser({});
        served++;
      } catch (e) {
        thrown = e;
        break;
      }
    }
    servedBeforeLimit(served);
    const err = ConnectError.from(thrown);
    expect(err.code).toBe(Code.ResourceExhausted);
    expect((await rpcError(Promise.reject(err))).reason).toBe('RATE_LIMITED');
    expect(err.findDetails(RetryInfoSchema)[0]?.retryDelay?.seconds).toBeGreaterThanOrEqual(1n);
    expect(Number(err.metadata.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('every RPC counts, public ones too (Healthz over gRPC, no valid token)', async () => {
    const c = client(ManagementService, 'grpc', freshIp(), 'made-up-token');
    let served = 0;
    let code: Code | undefined;
    while (served < BURST + 10) {
      try {
        await c.healthz({});
        served++;
      } catch (e) {
        code = ConnectError.from(e).code;
        break;
      }
    }
    servedBeforeLimit(served);
    expect(code).toBe(Code.ResourceExhausted);
  });

  it('POST /oauth/v2/par spends the address bucket (it stores a request for a public app’s id alone): the burst, then 429 slow_down', async () => {
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Pushed' })).body.id;
    const app = await addApp(kh, projectId, { redirectUris: ['https://app.example/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE' });
    const form = new URLSearchParams({ client_id: app.clientId, response_type: 'code', redirect_uri: 'https://app.example/cb', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' }).toString();
    const par = (ip: string) =>
      new Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port: kh.port, path: '/oauth/v2/par', method: 'POST', localAddress: ip, agent: false, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()), headers: res.headers }));
          },
        );
        req.on('error', reject);
        req.end(form);
      });
    const ip = freshIp();
    let served = 0;
    let limited: Awaited<ReturnType<typeof par>> | undefined;
    while (served < BURST + 10) {
      const res = await par(ip);
      if (res.status !== 201) {
        limited = res;
        break;
      }
      served++;
    }
    servedBeforeLimit(served);
    expect(limited!.status).toBe(429);
    expect(limited!.body.error).toBe('slow_down');
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited!.body.error_description).toContain(`wait ${limited!.headers['retry-after']} seconds`);
    // The same bucket as the address's API calls; another address is served.
    expect((await rest(ip, '/auth/v1/users/me', tokens[6])).status).toBe(429);
    expect((await par(freshIp())).status).toBe(201);
  });

  it('the buckets are bounded in memory on the running server', () => {
    expect(kh.app.rateLimiter?.buckets.maxBuckets).toBe(100_000);
    expect(kh.app.rateLimiter?.buckets.size).toBeLessThan(100);
  });
});
