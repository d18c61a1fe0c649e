// Serves the browser console (console/dist, built by console/build.mjs) at
// /console/. Static files only: the console talks to the API like any other
// gRPC-Web client, on the same origin, so it needs no CORS.
//
// - /console redirects to /console/ (the page's relative asset links need the slash).
// - index.html: `cache-control: no-cache`, so a new build is picked up at once.
// - content-hashed assets (app-XXXXXXXX.js): cached for a year, immutable.
// - One path segment of known extension, no dot files: nothing outside the
//   directory and nothing unexpected in it can be requested.
// - A strict Content-Security-Policy: scripts, styles and API calls from this
//   origin only, no framing, and no form may submit anywhere (a pasted token can
//   never end up in a URL, even if the script failed to load).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const CONSOLE_DIST_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../console/dist');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const HASHED_NAME = /-[A-Z0-9]{8}\.[a-z.]+$/;

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Keyhold console not built</title>
<h1>The Keyhold console is not built</h1>
<p>Run <code>npm install</code> (or <code>npm run build:console</code>) in the Keyhold checkout, then reload this page.</p></html>`;

export function registerConsole(app: FastifyInstance, dir: string = CONSOLE_DIST_DIR): void {
  const send = async (reply: FastifyReply, name: string, cacheControl: string) => {
    const type = CONTENT_TYPES[path.extname(name)];
    if (!type || !SAFE_NAME.test(name)) return reply.callNotFound();
    let body: Buffer;
    try {
      body = await readFile(path.join(dir, name));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'EISDIR' && code !== 'ENOTDIR') throw e;
      if (name === 'index.html') {
        return reply.code(503).headers(SECURITY_HEADERS).header('cache-control', 'no-store').type(CONTENT_TYPES['.html']!).send(NOT_BUILT_PAGE);
      }
      return reply.callNotFound();
    }
    return reply.headers(SECURITY_HEADERS).header('cache-control', cacheControl).type(type).send(body);
  };

  app.get('/console', (req, reply) => {
    const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
    return reply.redirect(`/console/${query}`, 308);
  });
  app.get('/console/', (_req, reply) => send(reply, 'index.html', 'no-cache'));
  app.get<{ Params: { file: string } }>('/console/:file', (req, reply) => {
    const name = req.params.file;
    return send(reply, name, name === 'index.html' || !HASHED_NAME.test(name) ? 'no-cache' : 'public, max-age=31536000, immutable');
  });
}
