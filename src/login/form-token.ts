// What every server-rendered form of Keyhold's (the login's, the account
// page's) shares: the form token bound to one browser's sign-in or session
// (HMAC under the provider's cookie key, compared in constant time), and the
// bound of a form's body and of each field read from it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/** The longest text field read from a form; the whole form is at most FORM_BODY_LIMIT. */
export const MAX_FIELD = 1024;
export const FORM_BODY_LIMIT = 16 * 1024;

/** Form tokens of one purpose (`keyhold login form`, `keyhold account form`) bound to an id (the sign-in's uid, the session's uid). */
export function formTokens(cookieKey: () => string, purpose: string) {
  const tokenOf = (id: string) => createHmac('sha256', cookieKey()).update(`${purpose} ${id}`).digest('base64url');
  return {
    tokenOf,
    ok(id: string, sent: unknown): boolean {
      if (typeof sent !== 'string') return false;
      const a = Buffer.from(tokenOf(id));
      const b = Buffer.from(sent);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}

/** Reads url-encoded forms of at most FORM_BODY_LIMIT bytes into a plain object (in the plugin scope `app`). */
export function parseForms(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}

/** A field of a parsed form: text, cut at MAX_FIELD; anything else is empty. */
export function fieldOf(body: unknown, name: string): string {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.slice(0, MAX_FIELD) : '';
}
