// The logins' browser in the load process: test/support/oidc-login.ts's
// browser (a cookie jar, redirects followed by hand) sending over node:http
// with a keep-alive agent, instead of fetch.
//
// Why: the load process shares the machine's two cores with the server, and
// fetch (undici) cost ~3.6 ms of the load process's CPU per login (25% of a
// core at 69 logins/s, 42% at the bare oidc-provider's 116/s; nine requests
// per login) — CPU the server then did not get, on both sides of the
// comparison. The timed token requests already go through node:http, and the
// timed gRPC calls through node:http2, for the same reason.
import http from 'node:http';
import { browser, type Browser, type Send } from '../../test/support/oidc-login.js';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

/** What the login steps read of an answer: its status, its headers (Location, Set-Cookie) and its body. */
function answer(res: http.IncomingMessage, body: string): Response {
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  return { status: res.statusCode ?? 0, headers, text: async () => body } as unknown as Response;
}

const sendWithNodeHttp =
  (localAddress?: string): Send =>
  (url, method, headers, body) =>
  new Promise<Response>((resolve, reject) => {
    const host = url.hostname === 'localhost' ? '127.0.0.1' : url.hostname;
    const head: Record<string, string> = { host: url.host, ...headers };
    if (body !== undefined) head['content-length'] = String(Buffer.byteLength(body));
    // The agent pools sockets per local address too (its getName includes it).
    const req = http.request({ agent, host, port: url.port, method, path: url.pathname + url.search, headers: head, ...(localAddress ? { localAddress } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(answer(res, text)));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });

/**
 * A browser; `from`: the loopback address its requests come from. Each virtual
 * user signs in from an address of its own, as users on their own machines do:
 * from one address, 64 logins at once would spend that address's guessing
 * budget (src/server/oidc/guess-buckets.ts), which bounds tries in flight.
 */
export const httpBrowser = (base: string, from?: string): Browser => browser(base, {}, sendWithNodeHttp(from));
