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
