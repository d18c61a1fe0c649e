// The logins' browser in the load process: test/support/oidc-login.ts's
// Browser (a cookie jar, redirects followed by hand) over node:http with a
// keep-alive agent, instead of fetch.
//
// Why: the load process shares the machine's two cores with the server, and
// fetch (undici) cost ~3.6 ms of the load process's CPU per login (25% of a
// core at 69 logins/s, 42% at the bare oidc-provider's 116/s; nine requests
// per login) — CPU the server then did not get, on both sides of the
// comparison. The timed token requests already go through node:http, and the
// timed gRPC calls through node:http2, for the same reason.
import http from 'node:http';
import { CookieJar, type Browser } from '../../test/support/oidc-login.js';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

/** What the login steps read of an answer: its status, its headers (Location, Set-Cookie) and its body. */
function answer(res: http.IncomingMessage, body: string): Response {
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  return { status: res.statusCode ?? 0, headers, text: async () => body } as unknown as Response;
}

export function httpBrowser(base: string): Browser {
  const jar = new CookieJar();
  const origin = new URL(base).origin;
  const request: Browser['request'] = (url, init = {}) => {
    const u = new URL(url, base);
    const headers: Record<string, string> = { host: u.host, ...init.headers };
    const cookie = jar.header(u);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    return new Promise<Response>((resolve, reject) => {
      const host = u.hostname === 'localhost' ? '127.0.0.1' : u.hostname;
      const req = http.request({ agent, host, port: u.port, method: init.method ?? (init.form ? 'POST' : 'GET'), path: u.pathname + u.search, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          const r = answer(res, text);
          jar.take(r);
          resolve(r);
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  };
  const follow: Browser['follow'] = async (start) => {
    let url = new URL(start, base);
    for (let i = 0; i < 20; i++) {
      if (url.origin !== origin) return { left: url, url };
      const res = await request(url);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        url = new URL(location, url);
        continue;
      }
      return { page: res, html: await res.text(), url };
    }
    throw new Error('too many redirects');
  };
  return { jar, request, follow };
}
