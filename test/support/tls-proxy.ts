// A TLS-terminating reverse proxy, as an nginx in front of Keyhold would be:
// https on its own port with a certificate made for localhost (openssl, as
// test/server/tls.test.ts), every request forwarded over plain HTTP to Keyhold
// from 127.0.0.1 with X-Forwarded-For (the client's address appended),
// X-Forwarded-Proto https and X-Forwarded-Host. Started before Keyhold (whose
// KEYHOLD_ISSUER names the proxy's port); `forwardTo` once Keyhold listens.
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { tempDir } from './databases.js';

export interface TlsProxy {
  /** https://<hostname>:<port> */
  url: string;
  /** The certificate, for clients that trust it. */
  ca: Buffer;
  /** The port the proxy listens on (127.0.0.1). */
  port: number;
  /** base64 SHA-256 of the certificate's public key, for Chromium's --ignore-certificate-errors-spki-list. */
  spki: string;
  forwardTo(port: number): void;
  /** fetch through the proxy trusting its certificate (openid-client's customFetch). */
  fetch(url: string, init?: { method?: string; headers?: Record<string, string> | Headers; body?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/** `hostname`: the name the certificate is made for (default localhost, with 127.0.0.1). */
export async function startTlsProxy(hostname = 'localhost'): Promise<TlsProxy> {
  const dir = await tempDir('keyhold-proxy-');
  const names = hostname === 'localhost' ? 'DNS:localhost,IP:127.0.0.1' : `DNS:${hostname}`;
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', `/CN=${hostname}`, '-addext', `subjectAltName=${names}`], { stdio: 'ignore' });
  const ca = readFileSync(cert);
  let target = 0;
  const server = https.createServer({ cert: ca, key: readFileSync(key) }, (req, res) => {
    const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port: target,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-for': forwardedFor, 'x-forwarded-proto': 'https', 'x-forwarded-host': req.headers.host ?? '' },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `https://${hostname}:${port}`;
  const agent = new https.Agent({ ca });
  const spki = createHash('sha256').update(new X509Certificate(ca).publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
  return {
    url,
    ca,
    port,
    spki,
    forwardTo: (port) => (target = port),
    fetch: (to, init = {}) =>
      new Promise<Response>((resolve, reject) => {
        const headers = init.headers instanceof Headers ? Object.fromEntries(init.headers) : (init.headers ?? {});
        const u = new URL(to);
        const req = https.request({ host: '127.0.0.1', servername: u.hostname, port: u.port, method: init.method ?? 'GET', path: u.pathname + u.search, headers: { ...headers, host: u.host }, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const answer = new Headers();
            for (let i = 0; i < res.rawHeaders.length; i += 2) answer.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
            resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: answer }));
          });
        });
        req.on('error', reject);
        req.end(init.body === undefined ? undefined : String(init.body));
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
