// Generators of hostile URIs, origins and names for the fuzz tests, built from
// the pieces that make a browser (or a database locale) read a string
// differently from what it says: backslashes, missing or empty authorities,
// userinfo, numeric and percent-encoded hosts, IDN, default and empty ports,
// dot segments, invisible and direction-changing characters, NFD, full-width
// letters. Plus the independent checks the tests assert on accepted values.
import fc from 'fast-check';

// ---------------------------------------------------------------------------
// URIs and origins

const caseVariant = (s: string) => fc.constantFrom(s, s.toUpperCase(), s[0]!.toUpperCase() + s.slice(1));

const scheme = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('https', 'http').chain(caseVariant) },
  { weight: 2, arbitrary: fc.constantFrom('myapp', 'com.example.app', 'capacitor', 'urn', 'httpx') },
  { weight: 2, arbitrary: fc.constantFrom('file', 'javascript', 'data', 'blob', 'about', 'ws', 'wss', 'ftp', 'FILE', 'vbscript') },
);

const separator = fc.oneof({ weight: 6, arbitrary: fc.constant('://') }, { weight: 1, arbitrary: fc.constantFrom(':', ':/', ':///', ':\\\\', ':/\\', '://\\') });

const userinfo = fc.oneof(
  { weight: 8, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('user@', 'user:pw@', '@', 'a.example@', 'localhost\\@', ':@') },
);

const host = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a.example', 'localhost', 'app.example.com', '127.0.0.1', '[::1]', 'xn--bcher-kva.example', 'a.example.', 'a_b.example') },
  { weight: 1, arbitrary: fc.constantFrom('A.EXAMPLE', 'LocalHost') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      '*',
      '*.example.com',
      '%65vil.example',
      '127.1',
      '0x7f.0.0.1',
      '2130706433',
      '0177.0.0.1',
      '127.000.000.001',
      '[0:0:0:0:0:0:0:1]',
      '[::ffff:127.0.0.1]',
      'bücher.example',
      'а.example', // Cyrillic а
      'a\u200B.example',
      'a!b.example',
      'a.example\\',
      'a.example%2f',
      '[::1',
      'exa mple.com',
    ),
  },
);

const port = fc.oneof(
  { weight: 6, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: fc.constantFrom(':8080', ':3000', ':443', ':80') },
  { weight: 1, arbitrary: fc.constantFrom(':', ':0443', ':08080', ':99999', ':-1', ':8080:80', ':0x50') },
);

const segment = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('cb', 'callback', 'oauth2redirect', 'a-b_c.d~e', '%7e', '%2F') },
  { weight: 2, arbitrary: fc.constantFrom('.', '..', '%2e', '%2e%2e', '.%2E', '%2E.') },
  { weight: 2, arbitrary: fc.constantFrom('c\\b', 'café', 'c"b', 'c`b', 'c{b}', 'c|b', 'c^b', 'c<b>', '\u202Egnp', 'c\u200Bb', 'c b', 'c\tb', '') },
);
const path = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 6, arbitrary: fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`) },
);
const query = fc.oneof(
  { weight: 6, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: fc.constantFrom('?x=1', '?q="x"', "?q='x'", '?', '?a=b&c=d', '?x=\\') },
);
const fragment = fc.oneof({ weight: 9, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('#', '#top') });

/** A URI-ish string assembled from hostile parts (most well-formed, many ambiguous). */
export const hostileUri: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(scheme, separator, userinfo, host, port, path, query, fragment).map((p) => p.join('')) },
  { weight: 1, arbitrary: fc.constantFrom('urn:ietf:wg:oauth:2.0:oob', 'myapp:cb', 'com.example.app:/a/../cb', 'http://localhost\\@evil.com/cb', 'https:example.com/cb', 'https:///cb') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
);

/** An origin-ish string: scheme, host and port, sometimes with something after it. */
export const hostileOrigin: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: fc.tuple(scheme, separator, userinfo, host, port).map((p) => p.join('')) },
  { weight: 2, arbitrary: fc.tuple(scheme, host, port, fc.constantFrom('/', '/x', '?', '#', '\\', '/.')).map(([s, h, p, t]) => `${s}://${h}${p}${t}`) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);

// RFC 3986 Appendix B.
const RFC3986 = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * Why an accepted redirect URI would be ambiguous: what was stored is not what
 * was sent, or the RFC 3986 reading of the text differs from the WHATWG reading
 * (scheme, userinfo, host, port, path, query). Undefined when they agree.
 */
export function redirectUriAmbiguity(sent: string, stored: string): string | undefined {
  if (stored !== sent) return `stored ${stored}, sent ${sent}`;
  const url = new URL(stored);
  const m = RFC3986.exec(sent);
  if (!m) return 'not an RFC 3986 URI';
  const [, scheme = '', authority, rawPath = '', rawQuery] = m;
  if (`${scheme.toLowerCase()}:` !== url.protocol) return `scheme ${scheme} vs ${url.protocol}`;
  if (sent.includes('\\')) return 'backslash';
  if (url.username || url.password || authority?.includes('@')) return 'userinfo';
  const special = url.protocol === 'http:' || url.protocol === 'https:';
  if (special && (authority === undefined || authority === '')) return `no host in the text, ${url.hostname} for the browser`;
  if (authority !== undefined) {
    const hostText = authority.startsWith('[') ? authority.slice(0, authority.indexOf(']') + 1) : authority.split(':')[0]!;
    const portText = authority.slice(hostText.length).replace(/^:/, '');
    // Hosts of http(s) are case-insensitive (the browser lower-cases them); an app scheme's host is kept as is.
    if (!hostText.startsWith('[') && (special ? hostText.toLowerCase() : hostText) !== url.hostname) return `host ${hostText} vs ${url.hostname}`;
    if (portText !== '' && String(Number(portText)) !== (url.port || DEFAULT_PORT[url.protocol])) return `port ${portText} vs ${url.port}`;
  }
  if (decoded(rawPath || (special ? '/' : '')) !== decoded(url.pathname)) return `path ${rawPath} vs ${url.pathname}`;
  if (decoded(rawQuery ?? '') !== decoded(url.search.replace(/^\?/, ''))) return `query ${rawQuery} vs ${url.search}`;
  return undefined;
}

/** Why an accepted origin is not what a browser sends, or undefined. */
export function originAmbiguity(sent: string, stored: string): string | undefined {
  if (stored !== sent) return `stored ${stored}, sent ${sent}`;
  const url = new URL(sent);
  const special = url.protocol === 'http:' || url.protocol === 'https:';
  const serialized = special ? url.origin : `${url.protocol}//${url.host}`;
  if (serialized !== sent || sent !== sent.toLowerCase()) return `a browser sends ${serialized.toLowerCase()}`;
  if (/[*\\@]/.test(sent)) return 'wildcard, backslash or userinfo';
  return undefined;
}

// ---------------------------------------------------------------------------
// Names

const nameUnit = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('a', 'b', 'z', 'A', 'Q', '0', '7', '-', '_', '.', '@', 'é', 'ß', 'ẞ', 'ı', 'İ', 'σ', 'ς', 'Σ', 'д', 'Ж', '田', 'ש', 'م', '٣', '۳', 'क', '्') },
  { weight: 2, arbitrary: fc.constantFrom(' ', '  ', '\u00A0', '\u3000', '\u2003') },
  { weight: 2, arbitrary: fc.constantFrom('e\u0301', '\u0301', '\uFF21', '\uFF41', '\uFF10', '\uFB01', '\u{1D400}', '™', '²') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD', '\u180E', '\u3164', '\u2800', // invisible
      '\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C', // bidi
      '\u2028', '\u2029', '\n', '\t', '\u0000', '\u0085', // separators, controls
      '\uFDD0', '\uFFFE', '\uFFFF', '\u{1FFFE}', // noncharacters
      '\uD800', '\uDFFF', // lone surrogates
      '\uE000', '\u0378', // private use, unassigned
      '\uFE0F', '\u{E0041}', // variation selector, tag
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom('🔑', '❤\uFE0F', '👩\u200D💻', '👍\u{1F3FD}') },
);

/** A name from letters of many scripts, look-alike forms and hidden characters. */
export const hostileName: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.array(nameUnit, { minLength: 1, maxLength: 12 }).map((u) => u.join('')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);

const HIDDEN = /[\p{Cc}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Bidi_Control}]/u;

/** Why a stored display name hides or reorders text, or undefined. */
export function displayNameDefect(stored: string): string | undefined {
  if (stored !== stored.normalize('NFC')) return 'not NFC';
  if (stored !== stored.trim()) return 'not trimmed';
  if (HIDDEN.test(stored)) return 'control, separator, bidi control, surrogate, private use or unassigned';
  if (!/[\p{L}\p{N}\p{S}\p{P}]/u.test(stored)) return 'nothing visible';
  // Default ignorables only where they join emoji or Indic/Arabic letters or select a variant.
  const ignorables = stored.replace(/\p{Extended_Pictographic}[\uFE0F\u{1F3FB}-\u{1F3FF}]?\u200D(?=\p{Extended_Pictographic})|[\p{L}\p{N}\p{S}\p{P}][\uFE00-\uFE0F\u{E0100}-\u{E01EF}]|\u{1F3F4}[\u{E0030}-\u{E007A}]+\u{E007F}/gu, 'x');
  const left = [...ignorables].filter((c) => /\p{Default_Ignorable_Code_Point}/u.test(c) && c !== '\u200C' && c !== '\u200D');
  return left.length ? `default ignorable ${left.map((c) => c.codePointAt(0)!.toString(16)).join(',')}` : undefined;
}

/** Why a stored username is not a UsernameCaseMapped-conforming form, or undefined. */
export function usernameDefect(stored: string): string | undefined {
  if (stored !== stored.normalize('NFC')) return 'not NFC';
  if (/\s/u.test(stored)) return 'white space';
  if (/[\uFF01-\uFF60\uFFE0-\uFFE6]/u.test(stored)) return 'full-width form not mapped';
  if (HIDDEN.test(stored)) return 'hidden character';
  if (/[\p{Default_Ignorable_Code_Point}]/u.test(stored.replace(/[\u200C\u200D]/gu, ''))) return 'default ignorable';
  if (/[^\x21-\x7E\p{L}\p{Nd}\p{M}\u00B7\u0375\u05F3\u05F4\u30FB\u200C\u200D]/u.test(stored)) return 'outside IdentifierClass';
  return undefined;
}

/** Full-width forms of the ASCII letters and digits of a name (a look-alike spelling). */
export function fullWidth(s: string): string {
  return s.replace(/[A-Za-z0-9]/g, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0));
}
