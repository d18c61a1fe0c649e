// With KEYHOLD_TLS_CERT/KEY the one port speaks TLS and ALPN picks h2 (gRPC) or
// http/1.1 (REST, gRPC-Web, Connect).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../gen/keyhold/auth/v1/auth_pb.js';
import { tempDir } from '../support/databases.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';

let kh: TestKeyhold;
let ca: Buffer;

beforeAll(async () => {
  const dir = await tempDir('keyhold-tls-');
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  ca = fs.readFileSync(cert);
  kh = await startTestKeyhold({ env: { KEYHOLD_TLS_CERT: cert, KEYHOLD_TLS_KEY: key } });
});
afterAll(async () => kh?.close());

function alpn(protocols: string[]): Promise<string | false> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: kh.port, servername: 'localhost', ca, ALPNProtocols: protocols }, () => {
      resolve(socket.alpnProtocol ?? false);
      socket.end();
    });
    socket.on('error', reject);
  });
}

describe('TLS with ALPN on the one port', () => {
  it('negotiates h2 and http/1.1', async () => {
    expect(kh.url.startsWith('https://')).toBe(true);
    expect(await alpn(['h2', 'http/1.1'])).toBe('h2');
    expect(await alpn(['http/1.1'])).toBe('http/1.1');
  });

  it('serves gRPC over h2, and gRPC-Web and Connect over http/1.1', async () => {
    const baseUrl = `https://localhost:${kh.port}`;
    const auth = { authorization: `Bearer ${kh.adminToken}` };
    const transports = [
      createGrpcTransport({ baseUrl, nodeOptions: { ca } }),
      createGrpcWebTransport({ baseUrl, httpVersion: '1.1', nodeOptions: { ca } }),
      createConnectTransport({ baseUrl, httpVersion: '1.1', nodeOptions: { ca } }),
    ];
    for (const transport of transports) {
      const me = await createClient(AuthService, transport).getMyUser({}, { headers: auth });
      expect(me.user?.username).toBe('admin');
    }
  });

  it('serves REST over https/1.1', async () => {
    const body = await new Promise<string>((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port: kh.port, servername: 'localhost', path: '/auth/v1/users/me', ca, headers: { authorization: `Bearer ${kh.adminToken}` } }, (res) => {
          let data = '';
          res.on('data', (c) => (data += c));
          res.on('end', () => resolve(data));
        })
        .on('error', reject);
    });
    expect(JSON.parse(body).user.username).toBe('admin');
  });
});

describe('request heads over TLS are checked as on cleartext', () => {
  /** One HTTP/1.1 request over TLS, written as is. */
  function tlsHttp1(head: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port: kh.port, servername: 'localhost', ca, ALPNProtocols: ['http/1.1'] }, () => {
        socket.write(`${head.join('\r\n')}\r\nConnection: close\r\n\r\n`);
      });
      let data = '';
      socket.on('data', (d) => (data += d.toString('latin1')));
      socket.on('error', reject);
      socket.on('close', () => resolve(data));
    });
  }

  it('https/1.1: Authorization twice → 400 REPEATED_HEADER; a 64 KiB header → 431 as a Status', async () => {
    const twice = await tlsHttp1(['GET /auth/v1/users/me HTTP/1.1', 'Host: localhost', `Authorization: Bearer ${kh.adminToken}`, 'Authorization: Bearer kh_other']);
    expect(twice).toMatch(/^HTTP\/1\.1 400 /);
    expect(twice).toMatch(/"reason":"REPEATED_HEADER"/);
    const big = await tlsHttp1(['GET /healthz HTTP/1.1', 'Host: localhost', `X-Big: ${'a'.repeat(64 * 1024)}`]);
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    expect(big).toMatch(/"reason":"HEADERS_TOO_LARGE"/);
  });

  it('h2: a 20 KiB header on the first stream → 431', async () => {
    const http2 = await import('node:http2');
    const session = http2.connect(`https://localhost:${kh.port}`, { ca });
    session.on('error', () => {});
    const status = await new Promise<string>((resolve) => {
      const req = session.request({ ':path': '/auth/v1/users/me', authorization: `Bearer ${kh.adminToken}`, 'x-big': 'a'.repeat(20 * 1024) });
      req.on('response', (h) => resolve(`status ${h[':status']}`));
      req.on('error', (e) => resolve(`refused: ${e.message}`));
      req.resume();
      req.end();
    });
    session.destroy();
    expect(status).toMatch(/^(status 431|refused: .*ENHANCE_YOUR_CALM)/);
  });
});

