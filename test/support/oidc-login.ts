// Drives Keyhold's login UI over plain HTTP the way a browser without
// JavaScript does: fetch with a cookie jar, following redirects by hand,
// submitting the forms it finds. Used by test/server/oidc/.
import http from 'node:http';
import type { TestKeyhold } from './keyhold.js';

export class CookieJar {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const path = attrs.map((a) => a.trim()).find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const expired = attrs.some((a) => /^expires=thu, 01 jan 1970/i.test(a.trim())) || value === '';
      if (expired) this.cookies.delete(`${name}|${path}`);
      else this.cookies.set(`${name}|${path}`, { value, path });
    }
  }

  header(url: URL): string {
    return [...this.cookies.entries()]
      .filter(([, c]) => url.pathname.startsWith(c.path))
      .map(([k, c]) => `${k.split('|')[0]}=${c.value}`)
      .join('; ');
  }
}

export interface Browser {
  jar: CookieJar;
  /** GET/POST one request with the jar; no redirects followed. */
  request(url: URL | string, init?: { method?: string; form?: Record<string, string>; headers?: Record<string, string> }): Promise<Response>;
  /** Follows redirects until one leaves Keyhold (returned as its URL) or a page is answered (returned as the response). */
  follow(url: URL | string): Promise<{ left?: URL; page?: Response; html?: string; url: URL }>;
}

/** One request as a browser sends it: the URL, its method, its headers (the cookies added) and its body. */
export type Send = (url: URL, method: string, headers: Record<string, string>, body: string | undefined) => Promise<Response>;

const sendWithFetch: Send = (url, method, headers, body) => fetch(url, { method, headers, body, redirect: 'manual' });

/**
 * Sends over node:http, so a `host` header the test sets goes out as it is
 * (fetch always sends the URL's host), from `localAddress` when given (a
 * loopback address of its own: another client, or another proxy, to Keyhold).
 */
export const sendOverHttp = (opts: { localAddress?: string } = {}): Send => (url, method, headers, body) =>
  new Promise<Response>((resolve, reject) => {
    const head: Record<string, string> = { host: url.host, ...headers };
    if (body !== undefined) head['content-length'] = String(Buffer.byteLength(body));
    // Keyhold listens on 127.0.0.1 (KEYHOLD_HOST's default): localhost there, not on ::1.
    const req = http.request({ host: url.hostname === 'localhost' ? '127.0.0.1' : url.hostname, port: url.port, method, path: url.pathname + url.search, headers: head, localAddress: opts.localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const answer = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) answer.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        const status = res.statusCode ?? 0;
        resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: answer }));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });

export const sendWithNodeHttp: Send = sendOverHttp();

/**
 * Sends a browser's requests to `address` whatever host they name: what DNS
 * does for an issuer's host name (KEYHOLD_ISSUER=http://keyhold.test) the test
 * cannot resolve. The browser itself stays on the issuer's URLs.
 */
export function sendTo(address: string, send: Send = sendWithFetch): Send {
  const to = new URL(address);
  return (url, method, headers, body) => {
    const there = new URL(url);
    there.protocol = to.protocol;
    there.host = to.host;
    return send(there, method, headers, body);
  };
}

/** A browser over `send` (fetch by default; the bench's over node:http): its cookie jar, its redirects followed by hand. */
export function browser(base: string, headers: Record<string, string> = {}, send: Send = sendWithFetch): Browser {
  const jar = new CookieJar();
  const origin = new URL(base).origin;
  const request: Browser['request'] = async (url, init = {}) => {
    const u = new URL(url, base);
    const h: Record<string, string> = { ...headers, ...init.headers };
    const cookie = jar.header(u);
    if (cookie) h.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      h['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const res = await send(u, init.method ?? (init.form ? 'POST' : 'GET'), h, body);
    jar.take(res);
    return res;
  };
  const follow: Browser['follow'] = async (start) => {
    let url = new URL(start, base);
    for (let i = 0; i < 20; i++) {
      if (url.origin !== origin) return { left: url, url };
      // Back at an app on Keyhold's own origin (the console at /console/) with its answer.
      if (url.pathname.startsWith('/console/') && (url.searchParams.has('code') || url.searchParams.has('error'))) return { left: url, url };
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

export const formToken = (html: string) => /name="form_token" value="([^"]+)"/.exec(html)?.[1] ?? '';
export const formAction = (html: string, step: string) => new RegExp(`action="([^"]*/${step})"`).exec(html)?.[1];

/** Signs in through the login UI from an authorization URL; returns where Keyhold sent the browser back to the app. */
export async function logIn(b: Browser, authorizeUrl: URL | string, username: string, password: string, opts: { consent?: boolean } = {}): Promise<URL> {
  let step = await b.follow(authorizeUrl);
  if (step.left) return step.left;
  const submit = async (name: string, form: Record<string, string>) => {
    const action = formAction(step.html!, name);
    if (!action) throw new Error(`no ${name} form on ${step.url}: ${step.html?.slice(0, 600)}`);
    const res = await b.request(new URL(action, step.url), { form: { form_token: formToken(step.html!), ...form } });
    const location = res.headers.get('location');
    step = location ? await b.follow(new URL(location, step.url)) : { page: res, html: await res.text(), url: step.url };
  };
  if (formAction(step.html!, 'username')) await submit('username', { username });
  if (step.left) return step.left;
  await submit('password', { password, username });
  if (step.left) return step.left;
  if (opts.consent !== false && formAction(step.html!, 'consent')) await submit('consent', { decision: 'allow' });
  if (step.left) return step.left;
  throw new Error(`the login did not return to the app: ${step.url} ${step.html?.slice(0, 800)}`);
}

export interface AppCreated {
  appId: string;
  clientId: string;
  clientSecret?: string;
}

export async function addApp(kh: TestKeyhold, projectId: string, body: Record<string, unknown>): Promise<AppCreated> {
  const res = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: `app-${Math.random().toString(36).slice(2)}`, ...body });
  if (res.status !== 200) throw new Error(`AddOIDCApp: ${res.status} ${JSON.stringify(res.body)}`);
  return { appId: res.body.appId, clientId: res.body.clientId, clientSecret: res.body.clientSecret || undefined };
}
