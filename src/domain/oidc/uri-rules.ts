// Syntax rules for the URI-valued fields of an OIDC application, on top of the
// WHATWG URL parser (the one browsers use).
//
// The rule: what Keyhold stores is what was registered, and a browser reads it
// as a person or an RFC 3986 parser does. Input that a browser would read
// differently from what the text says is AMBIGUOUS and refused
// ("http://localhost\@evil.com/cb" is localhost to a browser and evil.com to
// others; "https:example.com/cb" and "https:///cb" get a host invented by the
// browser; "%65vil.com" is decoded; "127.1" is expanded; "/a/../cb" is
// shortened). What is merely spelled differently (letter case of scheme and
// host, a default or empty port, an empty path, characters the browser
// percent-encodes) is kept exactly as sent: an app sends its redirect URI as it
// registered it and the authorization endpoint compares the two strings, so a
// rewritten registration ("http://localhost:3000" stored as
// "http://localhost:3000/") would match no request. Origins are different: a
// browser sends them in one serialized form (RFC 6454 §6.2) and they are
// compared byte for byte, so only that form is accepted.
//
// Each check returns the first problem of one entry: one precise reason per
// entry reads better than a cascade of follow-on errors.

import { OIDC_BOUNDS, codePointLength } from './bounds.js';

export interface UriProblem {
  code: string;
  params?: Record<string, string | number>;
}

export type UriCheck = { value: string; problem?: undefined } | { value?: undefined; problem: UriProblem };

// The WHATWG parser silently strips leading/trailing C0 controls and spaces and
// drops tabs/newlines anywhere, so "https://a.example/c\nb" would be stored as
// one thing and used as another. Reject them (and all other whitespace, C1
// controls included) on the raw string before parsing.
const INVALID_CHARACTER = /[\s\u0000-\u001f\u007f-\u009f]/u;

// RFC 3986 §2: a URI is ASCII. Anything else (an IRI, or invisible and
// direction-changing characters) must be sent percent-encoded, and hosts as
// their A-label (xn--…), which is what the browser turns them into.
const NON_ASCII = /[^\x00-\x7f]/;

// RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) followed by ":".
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

// RFC 3986 Appendix B, without the fragment (refused before this is used):
// scheme, "//" + authority when present, path, "?" + query when present.
const RFC3986_PARTS = /^([^:/?#]+):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?$/s;

/**
 * Schemes that run code, embed content or address something local or
 * browser-internal when navigated to: never a place to send an authorization
 * response to, for any app type (custom schemes of native apps, RFC 8252 §7.1,
 * stay allowed). ws, wss and ftp are the other WHATWG "special" schemes: a
 * browser parses their hosts like http's but never navigates to them.
 */
const FORBIDDEN_SCHEMES: ReadonlySet<string> = new Set([
  'javascript',
  'vbscript',
  'data',
  'file',
  'blob',
  'filesystem',
  'about',
  'view-source',
  'ws',
  'wss',
  'ftp',
]);

// Schemes whose host the browser parses as a domain or IP address (the
// special schemes left once the forbidden ones are out).
const WEB_SCHEMES: ReadonlySet<string> = new Set(['http', 'https']);

// A host a name server could answer: letters, digits, hyphens, underscores and
// dots (an IPv4 address is such a string; an IPv6 one comes in brackets).
// "*", "!", "$"… are accepted by the WHATWG parser but name no host; "*" in
// particular reads as a wildcard to people and to other servers.
const HOST_CHARACTERS = /^[A-Za-z0-9._-]+$/;
const IPV6_LITERAL = /^\[[0-9A-Fa-f:.]+\]$/;

// A dot segment, also percent-encoded: the browser removes it ("/a/%2e%2e/cb" → "/cb").
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

// Echoed values are cut short so an error stays small (it travels in gRPC trailers).
const shown = (s: string): string => (s.length > 100 ? `${s.slice(0, 100)}…` : s);

function basicProblem(raw: string, prefix: 'URI' | 'ORIGIN'): UriProblem | undefined {
  if (raw.length === 0) return { code: `${prefix}_EMPTY` };
  // Cheap length guard first: no parsing of megabyte strings.
  if (raw.length > OIDC_BOUNDS.uriMaxChars && codePointLength(raw) > OIDC_BOUNDS.uriMaxChars) {
    return { code: `${prefix}_TOO_LONG`, params: { max: OIDC_BOUNDS.uriMaxChars } };
  }
  if (INVALID_CHARACTER.test(raw)) return { code: `${prefix}_INVALID_CHARACTER` };
  if (raw.includes('\\')) return { code: `${prefix}_HAS_BACKSLASH` };
  return undefined;
}

function parse(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** The host part of an RFC 3986 authority (no userinfo: refused before), without its port. */
function hostOf(authority: string): string {
  if (authority.startsWith('[')) return authority.slice(0, authority.indexOf(']') + 1);
  const colon = authority.indexOf(':');
  return colon < 0 ? authority : authority.slice(0, colon);
}

const problem = (code: string, params?: Record<string, string | number>): UriCheck => ({ problem: params ? { code, params } : { code } });

/**
 * A redirect or post-logout redirect URI: absolute, unambiguous, no fragment.
 * The value to store is the URI as sent.
 */
export function checkRedirectUri(raw: string): UriCheck {
  const basic = basicProblem(raw, 'URI');
  if (basic) return { problem: basic };
  if (!HAS_SCHEME.test(raw)) return problem('URI_NOT_ABSOLUTE');
  const url = parse(raw);
  if (!url) return problem('URI_MALFORMED');
  if (NON_ASCII.test(raw)) return problem('URI_NOT_ASCII', { canonical: shown(url.href) });
  // Test the raw text, not url.hash: "https://a.example/cb#" has an (empty)
  // fragment that url.hash reports as "". In WHATWG parsing every "#" starts one.
  if (raw.includes('#')) return problem('URI_HAS_FRAGMENT');
  const scheme = url.protocol.slice(0, -1);
  if (FORBIDDEN_SCHEMES.has(scheme)) return problem('URI_SCHEME_NOT_ALLOWED', { scheme });
  const parts = RFC3986_PARTS.exec(raw);
  if (!parts) return problem('URI_MALFORMED');
  const [, , authority, path] = parts as unknown as [string, string, string | undefined, string];
  const web = WEB_SCHEMES.has(scheme);
  // The browser invents a host for these; RFC 3986 reads a path without one.
  if (web && authority === undefined) return problem('URI_NO_AUTHORITY', { canonical: shown(url.href) });
  if (web && authority === '') return problem('URI_EMPTY_HOST');
  if (authority !== undefined && authority.includes('@')) return problem('URI_HAS_USERINFO');
  if (authority) {
    const host = hostOf(authority);
    if (!IPV6_LITERAL.test(host)) {
      if (!HOST_CHARACTERS.test(host)) return problem(host.includes('%') ? 'URI_HOST_NOT_CANONICAL' : 'URI_HOST_INVALID', { host: shown(web ? url.hostname : host) });
      // "127.1", "0x7f.0.0.1", "2130706433" are 127.0.0.1 to a browser, a host name to others.
      if (web && host.toLowerCase() !== url.hostname) return problem('URI_HOST_NOT_CANONICAL', { host: shown(url.hostname) });
    }
  }
  // Hierarchical paths lose dot segments in the browser; opaque ones ("urn:…", "myapp:cb") keep them.
  if ((authority !== undefined || path.startsWith('/')) && path.split('/').some((s) => DOT_SEGMENT.test(s))) {
    return problem('URI_PATH_DOT_SEGMENT');
  }
  return { value: raw };
}

// scheme "://" authority, then whatever follows the authority.
const ORIGIN_SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/s;

// The first character after the authority says which forbidden part starts there.
const TRAILING_PART_CODE: Readonly<Record<string, string>> = {
  '/': 'ORIGIN_HAS_PATH',
  '?': 'ORIGIN_HAS_QUERY',
  '#': 'ORIGIN_HAS_FRAGMENT',
};

/**
 * An additional origin: exactly what a browser sends in an Origin header —
 * `scheme://host[:port]`, scheme and host in lower case, no default port, no
 * empty port, nothing after it (RFC 6454 §6.2). Checked on the raw text,
 * because the parser invents a path ("https://a.example" → pathname "/") and so
 * cannot tell "https://a.example" from "https://a.example/". An app's own
 * scheme (capacitor://localhost) is kept: web views send such origins.
 */
export function checkOrigin(raw: string): UriCheck {
  const basic = basicProblem(raw, 'ORIGIN');
  if (basic) return { problem: basic };
  const m = ORIGIN_SHAPE.exec(raw);
  if (!m) return problem('ORIGIN_MALFORMED');
  const [, rawScheme, authority, rest] = m as unknown as [string, string, string, string];
  if (rest.length > 0) return problem(TRAILING_PART_CODE[rest[0]!] ?? 'ORIGIN_MALFORMED');
  if (authority.includes('@')) return problem('ORIGIN_HAS_USERINFO');
  if (authority.includes('*')) return problem('ORIGIN_WILDCARD');
  const scheme = rawScheme.toLowerCase();
  if (FORBIDDEN_SCHEMES.has(scheme)) return problem('ORIGIN_SCHEME_NOT_ALLOWED', { scheme });
  const url = parse(raw);
  if (!url || url.hostname === '') return problem('ORIGIN_MALFORMED');
  const host = hostOf(authority);
  if (!IPV6_LITERAL.test(host) && !HOST_CHARACTERS.test(host) && !NON_ASCII.test(host) && !host.includes('%')) {
    return problem('ORIGIN_HOST_INVALID', { host: shown(host) });
  }
  // Special schemes have a browser serialization (url.origin); an app scheme's
  // origin is opaque to WHATWG, so its serialization is spelled out (lower case).
  const serialized = WEB_SCHEMES.has(scheme) ? url.origin : `${scheme}://${url.host.toLowerCase()}`;
  if (raw !== serialized) return problem('ORIGIN_NOT_SERIALIZED', { origin: shown(serialized) });
  return { value: raw };
}
