// The browser that pressed "Continue with …" is the only one that can finish
// that sign-in with the provider's answer, and the only one in which a pending
// link (state.ts PendingLink) is made. A random value goes into a cookie of its
// own; only its hash is kept in the sign-in's state. With an https issuer the
// cookie is `__Host-keyhold_external` (Secure, Path /), which no subdomain and
// no plain-http page can set: someone able to plant the login's interaction
// cookie in a victim's browser (a sibling subdomain) still cannot make the
// victim's sign-in link the planter's upstream identity. HttpOnly,
// SameSite=Lax (the upstream's redirect back is a top-level GET), 30 minutes.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { appendLoginCookie } from './cookies.js';

const NAME = 'keyhold_external';
const MAX_AGE_SECONDS = 30 * 60;

const hashOf = (value: string) => createHash('sha256').update(`keyhold external ${value}`).digest('base64url');
const cookieName = (secure: boolean) => (secure ? `__Host-${NAME}` : NAME);

/** Sets a new binding cookie on the reply; its hash, to keep in the sign-in's state. */
export function bindBrowser(reply: FastifyReply, secure: boolean): string {
  const value = randomBytes(24).toString('base64url');
  appendLoginCookie(reply.raw, { name: cookieName(secure), value, maxAgeSeconds: MAX_AGE_SECONDS, secure, insecurePath: '/ui/login' });
  return hashOf(value);
}

/** Whether this request's browser holds the binding whose hash was kept (any cookie of the name may). */
export function isBoundBrowser(req: FastifyRequest, secure: boolean, kept: string): boolean {
  const name = cookieName(secure);
  const want = Buffer.from(kept);
  return (req.headers.cookie ?? '')
    .split(';')
    .map((c) => c.trim())
    .filter((c) => c.startsWith(`${name}=`))
    .some((c) => {
      const got = Buffer.from(hashOf(c.slice(name.length + 1)));
      return got.length === want.length && timingSafeEqual(got, want);
    });
}
