// Known browsers (OWASP's "device cookies"): a browser that signed in to an
// account gets a signed cookie entry for it, and its later password tries for
// that account spend a budget of their own (domain/identity/guess-buckets.ts) — so wrong
// passwords from anyone else, however many, never slow the right user down in
// the browser they use. The user codes it types on the device page
// (/ui/login/device, under the cookie's path) likewise spend its newest
// account's budget, not its address's.
//
// The cookie `keyhold_known` holds up to MAX_ACCOUNTS entries, newest first,
// each `<user id, base64url>.<browser id>.<issued, epoch s>.<HMAC>`. The HMAC
// key is derived from the cookie key the provider signs its cookies with
// (shared by every process). An entry is good for MAX_AGE_DAYS; each sign-in
// replaces it with a new one (a new browser id, so a copied entry stops
// sharing the owner's budget at the owner's next sign-in). HttpOnly,
// SameSite=Lax; on Path /ui/login (only the login reads it) — except when the
// issuer is https: then it is `__Host-keyhold_known`, Secure, on Path / (what
// the prefix demands), so no subdomain and no plain-http page can plant one.
// It says nothing about the account beyond its id, and grants nothing: it only
// picks which budget a try spends.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomToken } from '../domain/ids.js';
import { appendLoginCookie } from './cookies.js';

export const KNOWN_BROWSER_COOKIE = 'keyhold_known';
export const MAX_AGE_DAYS = 90;
/** Accounts one browser is known for (several people may share a computer). */
export const MAX_ACCOUNTS = 5;

const PATH = '/ui/login';
const MAX_AGE_SECONDS = MAX_AGE_DAYS * 86_400;

interface Entry {
  userId: string;
  browserId: string;
  issued: number;
}

/** A request as far as known browsers read it (Fastify's, or the raw one a library page gets). */
type WithCookies = { headers: IncomingHttpHeaders };

export interface KnownBrowsers {
  /** This browser's id for `userId` when it holds a valid entry for that account; else undefined. */
  idFor(req: WithCookies, userId: string): string | undefined;
  /** The accounts of this browser's valid entries, newest first, with when each was issued (epoch s). */
  accounts(req: WithCookies): { userId: string; issued: number }[];
  /** After a successful sign-in as `userId`: a new entry for it first, the browser's other valid entries kept (on the raw response, beside the provider's cookies). */
  remember(req: FastifyRequest, reply: FastifyReply, userId: string): void;
}

export function knownBrowsers(deps: { cookieKey: () => string; secure: () => boolean }): KnownBrowsers {
  const mac = (body: string) => createHmac('sha256', deps.cookieKey()).update(`keyhold known browser ${body}`).digest('base64url');

  const name = () => (deps.secure() ? `__Host-${KNOWN_BROWSER_COOKIE}` : KNOWN_BROWSER_COOKIE);

  function entries(req: WithCookies, now: number): Entry[] {
    const prefix = `${name()}=`;
    // Every cookie of the name (a browser may hold one per path): their entries, at most MAX_ACCOUNTS.
    const values = (req.headers.cookie ?? '')
      .split(';')
      .map((c) => c.trim())
      .filter((c) => c.startsWith(prefix))
      .map((c) => c.slice(prefix.length));
    const value = values.join('~');
    if (!value || value.length > 2048) return [];
    const found: Entry[] = [];
    for (const raw of value.split('~').slice(0, MAX_ACCOUNTS)) {
      const [user, browserId, issuedText, sent] = raw.split('.');
      if (!user || !browserId || !issuedText || !sent || raw.split('.').length !== 4) continue;
      const issued = Number(issuedText);
      if (!Number.isSafeInteger(issued) || issued > now + 60 || now - issued > MAX_AGE_SECONDS) continue;
      const expected = Buffer.from(mac(`${user}.${browserId}.${issuedText}`));
      const given = Buffer.from(sent);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) continue;
      found.push({ userId: Buffer.from(user, 'base64url').toString('utf8'), browserId, issued });
    }
    return found;
  }

  const encode = (e: Entry) => {
    const body = `${Buffer.from(e.userId, 'utf8').toString('base64url')}.${e.browserId}.${e.issued}`;
    return `${body}.${mac(body)}`;
  };

  return {
    idFor(req, userId) {
      if (!userId) return undefined;
      return entries(req, Math.floor(Date.now() / 1000)).find((e) => e.userId === userId)?.browserId;
    },
    accounts(req) {
      return entries(req, Math.floor(Date.now() / 1000)).map(({ userId, issued }) => ({ userId, issued }));
    },
    remember(req, reply, userId) {
      const now = Math.floor(Date.now() / 1000);
      const kept = entries(req, now).filter((e) => e.userId !== userId);
      const value = [{ userId, browserId: randomToken(16), issued: now }, ...kept].slice(0, MAX_ACCOUNTS).map(encode).join('~');
      appendLoginCookie(reply.raw, { name: name(), value, maxAgeSeconds: MAX_AGE_SECONDS, secure: deps.secure(), insecurePath: PATH });
    },
  };
}
