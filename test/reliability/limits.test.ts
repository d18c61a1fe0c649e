// Limits of the one listener and of requests, measured against a real Keyhold
// with short timeouts (KEYHOLD_HEADERS_TIMEOUT_MS etc.): body and message size,
// header size, slow-loris clients on HTTP/1.1 and HTTP/2, request and keep-alive
// timeouts, the advertised HTTP/2 stream limit, list and string bounds, and the
// size of an error itself. Every slow client sends faster than the deadline (one
// byte per 250 ms), so only a deadline — not an idle timer — can cut it.
import http2 from 'node:http2';
import net from 'node:net';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { OrganizationService } from '../../gen/keyhold/org/v2/org_pb.js';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { MAX_REPORTED_VIOLATIONS } from '../../src/domain/errors/keyhold-error.js';
import { loadConfig } from '../../src/server/config.js';
import { DEFAULT_LIMITS } from '../../src/server/http/listener.js';
import { restFields, restReason, rpcError } from '../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { createSoftAuthenticator } from '../support/soft-authenticator.js';
import { plainUser, startRegistration } from '../support/u2f.js';
import { assertRestStatus } from './support.js';

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
const KEEP_ALIVE_TIMEOUT_MS = 1000;
const MAX_STREAMS = 7;
/** How late past its deadline a cut may come (the HTTP/1.1 sweep runs every timeout/4, plus a loaded machine). */
const SLACK_MS = 1500;
const TRICKLE_MS = 250;

let kh: TestKeyhold;
let projectId: string;

beforeAll(async () => {
  kh = await startTestKeyhold({
    env: {
      KEYHOLD_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      KEYHOLD_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      KEYHOLD_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
      KEYHOLD_MAX_CONCURRENT_STREAMS: String(MAX_STREAMS),
      KEYHOLD_WEBAUTHN_RP_IDS: 'login.example',
      KEYHOLD_WEBAUTHN_ORIGINS: 'https://login.example',
    },
  });
  projectId = (await kh.client(ManagementService).addProject({ name: 'Limits' })).id;
});
afterAll(async () => kh?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RawOutcome {
  /** ms from connect to the server closing the connection. */
  closedAfterMs: number;
  /** What the server wrote before closing. */
  received: string;
  /** Bytes the client managed to send. */
  sent: number;
}

/**
 * Opens a TCP connection, sends `head` at once and then `trickle` one byte per
 * TRICKLE_MS, until the server closes the connection (or `giveUpMs` passes).
 */
function slowClient(head: Buffer, trickle: Buffer, giveUpMs = 10_000): Promise<RawOutcome> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect({ host: '127.0.0.1', port: kh.port });
    const received: Buffer[] = [];
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept a slow client for ${giveUpMs} ms (sent ${sent} bytes)`));
    }, giveUpMs);
    socket.on('data', (d) => received.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(giveUp);
      clearTimeout(timer);
      resolve({ closedAfterMs: Date.now() - started, received: Buffer.concat(received).toString('latin1'), sent });
    });
    socket.on('connect', () => {
      socket.write(head);
      sent += head.length;
      let i = 0;
      const next = () => {
        if (socket.destroyed || i >= trickle.length) return;
        socket.write(trickle.subarray(i, i + 1));
        sent++;
        i++;
        timer = setTimeout(next, TRICKLE_MS);
      };
      timer = setTimeout(next, TRICKLE_MS);
    });
  });
}

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
const SETTINGS = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
/** HEADERS on stream 1, END_HEADERS|END_STREAM: GET http / (HPACK static indexes 2, 6, 4). */
const HEADERS_FRAME = Buffer.from([0, 0, 3, 1, 5, 0, 0, 0, 1, 0x82, 0x86, 0x84]);

describe('body and message size', () => {
  it('a 3 MiB REST body → 413 in the Status shape (BODY_TOO_LARGE)', async () => {
    const res = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(assertRestStatus(res.status, res.body, '3 MiB').reason).toBe('BODY_TOO_LARGE');
  });

  it('a 3 MiB gRPC message → RESOURCE_EXHAUSTED with BODY_TOO_LARGE; the connection serves the next call', async () => {
    const client = kh.client(ManagementService, 'grpc');
    const err = await rpcError(client.addOIDCApp({ projectId, name: 'x'.repeat(3 * 1024 * 1024) }));
    expect(err.code).toBe(Code.ResourceExhausted);
    expect(err.reason).toBe('BODY_TOO_LARGE');
    expect(err.errorInfo?.metadata.limit).toBe(String(2 * 1024 * 1024));
    expect((await client.getProjectByID({ id: projectId })).project?.id).toBe(projectId);
  });

  it('a 3 MiB Connect (JSON) body → resource_exhausted with BODY_TOO_LARGE', async () => {
    const err = await rpcError(kh.client(ManagementService, 'connect').addOIDCApp({ projectId, name: 'x'.repeat(3 * 1024 * 1024) }));
    expect(err.code).toBe(Code.ResourceExhausted);
    expect(err.reason).toBe('BODY_TOO_LARGE');
  });

  it('a credential of 1 MiB + 1 character → 400 on publicKeyCredential (not 413), REST and gRPC', async () => {
    const user = await plainUser(kh);
    const reg = await startRegistration(kh, user.userId, user.token);
    const credential = { a: 'x'.repeat(1_048_577 - 8) };
    expect(JSON.stringify(credential)).toHaveLength(1_048_577);
    const res = await kh.rest('POST', `/v2/users/${user.userId}/u2f/${reg.u2fId}`, { publicKeyCredential: credential, tokenName: 'k' }, { authorization: `Bearer ${user.token}` });
    expect(res.status).toBe(400);
    expect(restFields(res.body)).toEqual(['publicKeyCredential']);
    const err = await rpcError(kh.client(UserService, 'grpc', user.token).verifyU2FRegistration({ userId: user.userId, u2fId: reg.u2fId, publicKeyCredential: credential, tokenName: 'k' }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.fields).toEqual(['publicKeyCredential']);
  });
});

describe('header size', () => {
  it('a 64 KiB header over HTTP/1.1 → 431 and the connection closes, promptly', async () => {
    const head = Buffer.from(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    const out = await slowClient(head, Buffer.alloc(0), 5000);
    console.log(`[limits] 64 KiB header over HTTP/1.1: ${out.received.split('\r\n')[0]}, closed after ${out.closedAfterMs} ms`);
    expect(out.received).toMatch(/^HTTP\/1\.1 431 /);
    // A google.rpc.Status like every other error, not Node's bare status line.
    expect(out.received).toMatch(/"reason":"HEADERS_TOO_LARGE"/);
    expect(out.closedAfterMs).toBeLessThan(2000);
  });

  it('a 64 KiB header over HTTP/2 is refused, promptly; the server keeps serving', async () => {
    const session = http2.connect(`http://127.0.0.1:${kh.port}`);
    session.on('error', () => {});
    const outcome = await new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('hang'), 5000);
      const req = session.request({ ':path': '/healthz', 'x-big': 'a'.repeat(64 * 1024) });
      req.on('response', (h) => {
        clearTimeout(timer);
        resolve(`status ${h[':status']}`);
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        resolve(`refused: ${e.code ?? e.message}`);
      });
      req.end();
    });
    session.destroy();
    console.log(`[limits] 64 KiB header over HTTP/2: ${outcome}`);
    expect(outcome).toMatch(/^(refused|status 431)/);
    expect((await kh.rest('GET', '/healthz')).status).toBe(200);
  });

  it('the server advertises the header-list bound and the stream limit in its SETTINGS', async () => {
    const session = http2.connect(`http://127.0.0.1:${kh.port}`);
    session.on('error', () => {});
    const settings = await new Promise<http2.Settings>((resolve) => session.once('remoteSettings', resolve));
    session.destroy();
    expect(settings.maxConcurrentStreams).toBe(MAX_STREAMS);
    expect(settings.maxHeaderListSize).toBe(DEFAULT_LIMITS.maxHeaderBytes);
    // Defaults when nothing is configured.
    expect(loadConfig({}).limits).toEqual(DEFAULT_LIMITS);
    expect(DEFAULT_LIMITS.maxConcurrentStreams).toBe(256);
  });
});

describe('slow clients are cut off at the deadline, however steadily they trickle', () => {
  it('HTTP/1.1 request headers one byte at a time → cut within the headers timeout (408)', async () => {
    const out = await slowClient(Buffer.from('GET /healthz HTTP/1.1\r\n'), Buffer.from(`Host: localhost\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`));
    console.log(`[limits] HTTP/1.1 slow headers: cut after ${out.closedAfterMs} ms (${out.sent} bytes sent), headers timeout ${HEADERS_TIMEOUT_MS} ms`);
    expect(out.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
    expect(out.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
    expect(out.received).toMatch(/^(HTTP\/1\.1 408 [^]*"reason":"REQUEST_TIMEOUT"|$)/);
  });

  it('the HTTP/2 preface one byte at a time → cut within the headers timeout', async () => {
    const out = await slowClient(Buffer.alloc(0), PREFACE);
    console.log(`[limits] slow HTTP/2 preface: cut after ${out.closedAfterMs} ms (${out.sent} bytes sent)`);
    expect(out.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
    expect(out.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
  });

  it('an HTTP/2 HEADERS frame one byte at a time → the session is cut within the headers timeout', async () => {
    const out = await slowClient(Buffer.concat([PREFACE, SETTINGS]), HEADERS_FRAME);
    console.log(`[limits] slow HTTP/2 HEADERS: cut after ${out.closedAfterMs} ms (${out.sent} bytes sent)`);
    expect(out.sent).toBeLessThan(PREFACE.length + SETTINGS.length + HEADERS_FRAME.length);
    expect(out.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
    expect(out.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
  });

  it('an HTTP/1.1 body one byte at a time → cut within the request timeout', async () => {
    const head = Buffer.from(
      `POST /management/v1/projects HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${kh.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`,
    );
    const out = await slowClient(head, Buffer.from(`{"name":"${'s'.repeat(89)}"}`));
    console.log(`[limits] HTTP/1.1 slow body: cut after ${out.closedAfterMs} ms, request timeout ${REQUEST_TIMEOUT_MS} ms`);
    expect(out.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(out.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });

  it('an HTTP/2 body one byte at a time → the stream is cancelled within the request timeout', async () => {
    const session = http2.connect(`http://127.0.0.1:${kh.port}`);
    session.on('error', () => {});
    const started = Date.now();
    const req = session.request({ ':method': 'POST', ':path': '/management/v1/projects', 'content-type': 'application/json', authorization: `Bearer ${kh.adminToken}` });
    req.on('error', () => {});
    req.on('response', () => {});
    const body = Buffer.from(`{"name":"${'s'.repeat(89)}"}`);
    let i = 0;
    const timer = setInterval(() => {
      if (req.closed || i >= body.length) return;
      req.write(body.subarray(i, i + 1));
      i++;
    }, TRICKLE_MS);
    await new Promise<void>((resolve) => req.on('close', () => resolve()));
    clearInterval(timer);
    const after = Date.now() - started;
    session.destroy();
    console.log(`[limits] HTTP/2 slow body: stream closed after ${after} ms (rst code ${req.rstCode})`);
    expect(req.rstCode).toBe(http2.constants.NGHTTP2_CANCEL);
    expect(after).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(after).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });

  it('idle keep-alive connections close after the keep-alive timeout (HTTP/1.1 and HTTP/2)', async () => {
    const h1 = await slowClient(Buffer.from('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n'), Buffer.alloc(0));
    expect(h1.received).toMatch(/^HTTP\/1\.1 200 /);
    console.log(`[limits] idle HTTP/1.1 keep-alive closed after ${h1.closedAfterMs} ms`);
    expect(h1.closedAfterMs).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 100);
    // Node 20 gives HTTP/1.1 keep-alive one extra second (a buffer against clients racing the close).
    expect(h1.closedAfterMs).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + 1000 + SLACK_MS);

    const session = http2.connect(`http://127.0.0.1:${kh.port}`);
    session.on('error', () => {});
    const started = Date.now();
    await new Promise<void>((resolve, reject) => {
      const req = session.request({ ':path': '/healthz' });
      req.on('response', (h) => (h[':status'] === 200 ? resolve() : reject(new Error(String(h[':status'])))));
      req.resume();
      req.end();
    });
    const closedAfter = await new Promise<number>((resolve) => session.on('close', () => resolve(Date.now() - started)));
    console.log(`[limits] idle HTTP/2 session closed after ${closedAfter} ms`);
    expect(closedAfter).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 100);
    expect(closedAfter).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + SLACK_MS);
  });

  it('a client that keeps its requests fast is not affected', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await kh.client(ManagementService, 'grpc').getProjectByID({ id: projectId })).project?.id).toBe(projectId);
      await sleep(HEADERS_TIMEOUT_MS / 4);
    }
  });
});

describe('list and string bounds', () => {
  it('101 redirect URIs → 400 on redirectUris (at most 100)', async () => {
    const res = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, {
      name: 'bounded',
      redirectUris: Array.from({ length: 101 }, (_, i) => `https://a.example/cb${i}`),
    });
    expect(res.status).toBe(400);
    expect(restFields(res.body)).toEqual(['redirectUris']);
  });

  it('a 201-character name → 400 on name; a 2001-character redirect URI → 400 on that entry', async () => {
    const name = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: 'n'.repeat(201) });
    expect(restFields(name.body)).toEqual(['name']);
    const uri = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: 'long uri', redirectUris: [`https://a.example/${'p'.repeat(2001 - 18)}`] });
    expect(`https://a.example/${'p'.repeat(2001 - 18)}`).toHaveLength(2001);
    expect(restFields(uri.body)).toEqual(['redirectUris[0]']);
  });

  it('hundreds of violations → a bounded error (gRPC trailers stay small); the connection keeps working', async () => {
    const client = kh.client(ManagementService, 'grpc');
    const many = { projectId, name: '', redirectUris: Array(150).fill('relative'), responseTypes: Array(150).fill(99), grantTypes: Array(150).fill(77), additionalOrigins: Array(150).fill('nope'), postLogoutRedirectUris: Array(150).fill('x') };
    for (let i = 0; i < 3; i++) {
      const err = await rpcError(client.addOIDCApp(many));
      expect(err.code).toBe(Code.InvalidArgument);
      expect(err.violations).toHaveLength(MAX_REPORTED_VIOLATIONS);
      expect(Number(err.errorInfo?.metadata.violations)).toBeGreaterThan(400);
      expect(err.errorInfo?.metadata.fields).toMatch(/\(\+\d+ more\)$/);
    }
    expect((await client.getProjectByID({ id: projectId })).project?.id).toBe(projectId);
  });

  it('text PostgreSQL cannot store (U+0000) → 400 naming the field, never 500', async () => {
    const user = await plainUser(kh);
    const cases: [string, string, Record<string, unknown>, string, string?][] = [
      ['AddProject', '/management/v1/projects', { name: 'p\u0000' }, 'name'],
      ['AddMachineUser', '/management/v1/users/machine', { userName: `m-${Date.now()}`, name: 'm', description: 'd\u0000' }, 'description'],
      ['AddHumanUser', '/v2/users/human', { username: `h-${Date.now()}`, profile: { givenName: 'g\u0000', familyName: 'f' }, email: { email: 'h@example.com' } }, 'profile.givenName'],
      ['AddHumanUser email', '/v2/users/human', { username: `e-${Date.now()}`, profile: { givenName: 'g', familyName: 'f' }, email: { email: 'a\u0000@example.com' } }, 'email.email'],
      ['AddOrganization', '/v2/organizations', { name: 'o\u0000' }, 'name'],
      ['AddOIDCApp', `/management/v1/projects/${projectId}/apps/oidc`, { name: 'a\u0000' }, 'name'],
    ];
    for (const [label, path, body, field] of cases) {
      const res = await kh.rest('POST', path, body);
      expect(res.status, label).toBe(400);
      expect(restFields(res.body), label).toEqual([field]);
    }
    const reg = await startRegistration(kh, user.userId, user.token);
    const cred = createSoftAuthenticator().makeRegistration({ challenge: reg.challenge, origin: 'https://login.example', rpId: reg.rpId });
    const verify = await kh.rest('POST', `/v2/users/${user.userId}/u2f/${reg.u2fId}`, { publicKeyCredential: cred, tokenName: 'key\u0000' }, { authorization: `Bearer ${user.token}` });
    expect(verify.status).toBe(400);
    expect(restFields(verify.body)).toEqual(['tokenName']);
    // Over gRPC the same.
    const err = await rpcError(kh.client(OrganizationService).addOrganization({ name: 'org\u0000' }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.fields).toEqual(['name']);
    expect(restReason((await kh.rest('POST', '/management/v1/projects', { name: '\u0000' })).body)).toBe('INVALID_REQUEST');
  });
});
