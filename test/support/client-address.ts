// A browser (./oidc-login.ts: a cookie jar, redirects by hand) whose requests
// come from a loopback address of its own — all of 127.0.0.0/8 is loopback on
// Linux — so Keyhold sees a distinct client address (req.ip), as it would see
// a distinct machine. For the guessing budgets, which count per address.
import http from 'node:http';
import { browser, type Browser, type Send } from './oidc-login.js';

/** `127.0.N.M` for the n-th address a test uses (n ≥ 1; 127.0.0.1 is the tests' usual address). */
export const loopback = (n: number): string => `127.0.${Math.floor(n / 250) + 1}.${(n % 250) + 2}`;

function sendFrom(localAddress: string): Send {
  return (url, method, headers, body) =>
    new Promise<Response>((resolve, reject) => {
      const head: Record<string, string> = { host: url.host, ...headers };
      if (body !== undefined) head['content-length'] = String(Buffer.byteLength(body));
      const host = url.hostname === 'localhost' ? '127.0.0.1' : url.hostname;
      const req = http.request({ host, port: url.port, method, path: url.pathname + url.search, headers: head, localAddress, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          const headers = new Headers();
          for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
          resolve({ status: res.statusCode ?? 0, headers, text: async () => text } as unknown as Response);
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
}

/** A browser whose every request comes from `address` (a loopback address: see loopback()). */
export const browserFrom = (base: string, address: string): Browser => browser(base, {}, sendFrom(address));
