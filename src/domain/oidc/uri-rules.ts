// Syntax rules for the URI-valued fields of an OIDC application. Pure string
// checks on top of the WHATWG URL parser (the one browsers use, so what we accept
// is what a browser will later navigate to or send as an Origin).
//
// Each check returns the first problem of one entry, or undefined when it is fine:
// one precise reason per entry reads better than a cascade of follow-on errors.

import { OIDC_BOUNDS, codePointLength } from './bounds.js';

export interface UriProblem {
  code: string;
  params?: Record<string, string | number>;
}

// The WHATWG parser silently strips leading/trailing C0 controls and spaces and
// drops tabs/newlines anywhere, so "https://a.example/c\nb" would be stored as
// one thing and used as another. Reject them (and all other whitespace, C1
// controls included) on the raw string before parsing.
const INVALID_CHARACTER = /[\s\u0000-\u001f\u007f-\u009f]/u;

// RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) followed by ":".
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

// Schemes that run code or embed content when navigated to; never a callback.
const FORBIDDEN_REDIRECT_SCHEMES: ReadonlySet<string> = new Set(['javascript', 'vbscript', 'data']);

function basicProblem(raw: string, prefix: 'URI' | 'ORIGIN'): UriProblem | undefined {
  if (raw.length === 0) return { code: `${prefix}_EMPTY` };
  // Cheap length guard first: no parsing of megabyte strings.
  if (raw.length > OIDC_BOUNDS.uriMaxChars && codePointLength(raw) > OIDC_BOUNDS.uriMaxChars) {
    return { code: `${prefix}_TOO_LONG`, params: { max: OIDC_BOUNDS.uriMaxChars } };
  }
  if (INVALID_CHARACTER.test(raw)) return { code: `${prefix}_INVALID_CHARACTER` };
  return undefined;
}

function parse(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** A redirect or post-logout redirect URI: absolute, with a scheme, no fragment. */
export function checkRedirectUri(raw: string): UriProblem | undefined {
  const basic = basicProblem(raw, 'URI');
  if (basic) return basic;
  if (!HAS_SCHEME.test(raw)) return { code: 'URI_NOT_ABSOLUTE' };
  const url = parse(raw);
  if (!url) return { code: 'URI_MALFORMED' };
  // Test the raw text, not url.hash: "https://a.example/cb#" has an (empty)
  // fragment that url.hash reports as "". In WHATWG parsing every "#" starts one.
  if (raw.includes('#')) return { code: 'URI_HAS_FRAGMENT' };
  const scheme = url.protocol.slice(0, -1);
  if (FORBIDDEN_REDIRECT_SCHEMES.has(scheme)) {
    return { code: 'URI_SCHEME_NOT_ALLOWED', params: { scheme } };
  }
  return undefined;
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
 * An additional origin: exactly `scheme://host[:port]`. Checked on the raw text,
 * because the parser invents a path ("https://a.example" → pathname "/") and so
 * cannot tell "https://a.example" from "https://a.example/".
 */
export function checkOrigin(raw: string): UriProblem | undefined {
  const basic = basicProblem(raw, 'ORIGIN');
  if (basic) return basic;
  const m = ORIGIN_SHAPE.exec(raw);
  if (!m) return { code: 'ORIGIN_MALFORMED' };
  const [, , authority, rest] = m;
  if (rest.length > 0) return { code: TRAILING_PART_CODE[rest[0]] ?? 'ORIGIN_MALFORMED' };
  if (authority.includes('@')) return { code: 'ORIGIN_HAS_USERINFO' };
  const url = parse(raw);
  if (!url || url.hostname === '') return { code: 'ORIGIN_MALFORMED' };
  return undefined;
}
