// Redirect URIs and origins that a browser would read differently from what
// Keyhold stores: refused when ambiguous, stored exactly as registered when
// only spelled differently (redirect URIs: the app sends them so, and they are
// compared as strings), and for origins only the serialized form a browser
// sends (RFC 6454 §6.2).
import { describe, expect, it } from 'vitest';
import { checkOrigin, checkRedirectUri } from '../../../src/domain/oidc/uri-rules.js';
import { complianceProblems } from '../../../src/domain/oidc/compliance.js';
import { validateOidcApp } from '../../../src/domain/oidc/validate.js';
import { describeViolation, VIOLATION_CODES } from '../../../src/domain/oidc/violations.js';
import type { OidcAppType, OidcGrantType } from '../../../src/domain/oidc/types.js';
import { request } from './helpers.js';

// Every code seen here must have its sentences in the catalogue (checked last).
const seen = new Set<string>();
const codeOf = (r: ReturnType<typeof checkRedirectUri>) => {
  if (r.problem) seen.add(r.problem.code);
  return r.problem?.code ?? `ok ${r.value}`;
};

describe('redirect URIs: ambiguous input is refused', () => {
  it.each([
    // Backslash: a browser reads "\" as "/" in http(s) (host localhost), RFC 3986 parsers do not (userinfo "localhost\", host evil.com).
    ['http://localhost\\@evil.com/cb', 'URI_HAS_BACKSLASH'],
    ['https://a.example\\cb', 'URI_HAS_BACKSLASH'],
    ['https://a.example/cb\\..\\admin', 'URI_HAS_BACKSLASH'],
    ['myapp://cb\\x', 'URI_HAS_BACKSLASH'],
    // No "//": the browser makes the first path segment the host.
    ['https:example.com/cb', 'URI_NO_AUTHORITY'],
    ['https:/example.com/cb', 'URI_NO_AUTHORITY'],
    ['http:localhost/cb', 'URI_NO_AUTHORITY'],
    // Empty host: the browser takes "cb" as the host.
    ['https:///cb', 'URI_EMPTY_HOST'],
    ['http:///localhost/cb', 'URI_EMPTY_HOST'],
    // Userinfo, also an empty one, also in a custom scheme.
    ['https://user:pw@a.example/cb', 'URI_HAS_USERINFO'],
    ['https://a.example@evil.example/cb', 'URI_HAS_USERINFO'],
    ['https://@a.example/cb', 'URI_HAS_USERINFO'],
    ['myapp://user@cb', 'URI_HAS_USERINFO'],
    // Hosts the browser rewrites into another host.
    ['https://%65vil.example/cb', 'URI_HOST_NOT_CANONICAL'],
    ['http://127.1/cb', 'URI_HOST_NOT_CANONICAL'],
    ['http://0x7f.0.0.1/cb', 'URI_HOST_NOT_CANONICAL'],
    ['http://2130706433/cb', 'URI_HOST_NOT_CANONICAL'],
    ['http://127.000.000.001/cb', 'URI_HOST_NOT_CANONICAL'],
    ['myapp://%41/x', 'URI_HOST_NOT_CANONICAL'],
    // Hosts that name no host.
    ['https://*/cb', 'URI_HOST_INVALID'],
    ['https://*.example.com/cb', 'URI_HOST_INVALID'],
    ['https://a!b.example/cb', 'URI_HOST_INVALID'],
    // Non-ASCII: IDN hosts (send the A-label), invisible and bidi characters.
    ['https://bücher.example/cb', 'URI_NOT_ASCII'],
    ['https://a.example/caf\u00e9', 'URI_NOT_ASCII'],
    ['https://a.example/\u202Egnp.exe', 'URI_NOT_ASCII'],
    ['https://a.exa\u200Bmple/cb', 'URI_NOT_ASCII'],
    // Dot segments the browser removes, also percent-encoded.
    ['https://a.example/a/../cb', 'URI_PATH_DOT_SEGMENT'],
    ['https://a.example/./cb', 'URI_PATH_DOT_SEGMENT'],
    ['https://a.example/a/%2e%2e/cb', 'URI_PATH_DOT_SEGMENT'],
    ['https://a.example/a/.%2E/cb', 'URI_PATH_DOT_SEGMENT'],
    ['myapp://cb/../x', 'URI_PATH_DOT_SEGMENT'],
    ['com.example.app:/a/../cb', 'URI_PATH_DOT_SEGMENT'],
    // Schemes that are never a redirect target, for any app type.
    ['file:///etc/passwd', 'URI_SCHEME_NOT_ALLOWED'],
    ['file://localhost/cb', 'URI_SCHEME_NOT_ALLOWED'],
    ['FILE:///cb', 'URI_SCHEME_NOT_ALLOWED'],
    ['blob:https://a.example/1234', 'URI_SCHEME_NOT_ALLOWED'],
    ['about:blank', 'URI_SCHEME_NOT_ALLOWED'],
    ['view-source:https://a.example/', 'URI_SCHEME_NOT_ALLOWED'],
    ['wss://a.example/cb', 'URI_SCHEME_NOT_ALLOWED'],
    ['ftp://a.example/cb', 'URI_SCHEME_NOT_ALLOWED'],
    // Whitespace and controls (kept from before).
    ['https://a.example/c\tb', 'URI_INVALID_CHARACTER'],
    ['https://a.example/cb\u00A0', 'URI_INVALID_CHARACTER'],
  ])('%s → %s', (uri, code) => {
    expect(codeOf(checkRedirectUri(uri))).toBe(code);
  });

  it('says what the browser would have made of it', () => {
    const noAuthority = checkRedirectUri('https:example.com/cb').problem!;
    expect(noAuthority.params).toEqual({ canonical: 'https://example.com/cb' });
    expect(describeViolation({ field: 'redirectUris[2]', ...noAuthority }, 'en')).toContain('redirectUris[2]');
    expect(describeViolation({ field: 'redirectUris[2]', ...noAuthority }, 'en')).toContain('https://example.com/cb');
    const idn = checkRedirectUri('https://bücher.example/cb').problem!;
    expect(idn.params).toEqual({ canonical: 'https://xn--bcher-kva.example/cb' });
    expect(checkRedirectUri('http://127.1/cb').problem!.params).toEqual({ host: '127.0.0.1' });
  });
});

describe('redirect URIs: unambiguous spellings are stored exactly as registered', () => {
  it.each([
    'https://a.example/cb',
    'HTTPS://A.EXAMPLE/cb',
    'HTTP://LOCALHOST/cb',
    'https://a.example:443/cb',
    'https://a.example:/cb',
    'http://localhost:08080/cb',
    // No path: a browser would make it "…/", an app sends it without.
    'https://a.example',
    'http://localhost:3000',
    'http://127.0.0.1',
    'http://[::1]:8080',
    'https://a.example?x=1',
    'https://a.example/cb?q="x"',
    'http://[0:0:0:0:0:0:0:1]:8080/cb',
    'https://xn--bcher-kva.example/cb',
    'https://a.example./cb',
    'https://a.example/%7e',
    'myapp://cb',
    'MyApp://CB/x',
    'com.example.app:/oauth2redirect',
    'myapp:cb',
    'urn:ietf:wg:oauth:2.0:oob',
  ])('%s is stored as sent', (uri) => {
    expect(codeOf(checkRedirectUri(uri))).toBe(`ok ${uri}`);
  });

  it('a URI without a path stays without one, in the app config and after validation of the whole app', () => {
    const r = validateOidcApp(request({ redirectUris: ['http://localhost:3000'], postLogoutRedirectUris: ['http://localhost:3000'] }));
    expect(r.ok && r.config.redirectUris).toEqual(['http://localhost:3000']);
    expect(r.ok && r.config.postLogoutRedirectUris).toEqual(['http://localhost:3000']);
  });

  it('two spellings of one URI are two entries (each matches only itself); one sent twice is one', () => {
    const r = validateOidcApp(request({ redirectUris: ['https://a.example/cb', 'HTTPS://A.EXAMPLE:443/cb', 'https://a.example/cb', 'https://a.example', 'https://a.example/'] }));
    expect(r.ok && r.config.redirectUris).toEqual(['https://a.example/cb', 'HTTPS://A.EXAMPLE:443/cb', 'https://a.example', 'https://a.example/']);
  });

  it('the compliance report of every accepted spelling is the report of what was sent (design §6 keys unchanged)', () => {
    const spellings = ['HTTPS://A.EXAMPLE/cb', 'HTTP://LOCALHOST/cb', 'http://LocalHost:1/cb', 'http://[0:0::1]:8080/cb', 'http://example.com:80/cb', 'myapp://cb', 'httpx://a.example/cb'];
    const apps: OidcAppType[] = ['OIDC_APP_TYPE_WEB', 'OIDC_APP_TYPE_USER_AGENT', 'OIDC_APP_TYPE_NATIVE'];
    const grants: OidcGrantType[][] = [['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'], ['OIDC_GRANT_TYPE_IMPLICIT'], ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_IMPLICIT']];
    for (const uri of spellings) {
      for (const appType of apps) {
        for (const grantTypes of grants) {
          const r = validateOidcApp(request({ redirectUris: [uri], appType, grantTypes, responseTypes: grantTypes.includes('OIDC_GRANT_TYPE_IMPLICIT') ? ['OIDC_RESPONSE_TYPE_ID_TOKEN'] : [] }));
          expect(r.ok, uri).toBe(true);
          if (!r.ok) continue;
          const asSent = complianceProblems({ ...r.config, redirectUris: [uri] }).map((p) => p.key);
          const asStored = complianceProblems(r.config).map((p) => p.key);
          expect(asStored, `${uri} ${appType} ${grantTypes}`).toEqual(asSent);
        }
      }
    }
  });
});

describe('additional origins: only the serialized form a browser sends', () => {
  const originCode = (o: string) => codeOf(checkOrigin(o)).replace(/^ok .*/, 'ok');
  it.each([
    ['HTTPS://A.EXAMPLE', 'ORIGIN_NOT_SERIALIZED', 'https://a.example'],
    ['https://A.example', 'ORIGIN_NOT_SERIALIZED', 'https://a.example'],
    ['https://a.example:443', 'ORIGIN_NOT_SERIALIZED', 'https://a.example'],
    ['http://a.example:80', 'ORIGIN_NOT_SERIALIZED', 'http://a.example'],
    ['https://a.example:', 'ORIGIN_NOT_SERIALIZED', 'https://a.example'],
    ['https://a.example:08443', 'ORIGIN_NOT_SERIALIZED', 'https://a.example:8443'],
    ['http://127.1', 'ORIGIN_NOT_SERIALIZED', 'http://127.0.0.1'],
    ['http://[0:0::1]:3000', 'ORIGIN_NOT_SERIALIZED', 'http://[::1]:3000'],
    ['https://%61.example', 'ORIGIN_NOT_SERIALIZED', 'https://a.example'],
    ['https://bücher.example', 'ORIGIN_NOT_SERIALIZED', 'https://xn--bcher-kva.example'],
    ['Capacitor://LocalHost', 'ORIGIN_NOT_SERIALIZED', 'capacitor://localhost'],
  ])('%s → %s (write %s)', (origin, code, serialized) => {
    const r = checkOrigin(origin);
    expect(codeOf(r)).toBe(code);
    expect(r.problem?.params).toEqual({ origin: serialized });
    expect(describeViolation({ field: 'additionalOrigins[0]', ...r.problem! }, 'de')).toContain(serialized);
  });

  it.each([
    ['https://*', 'ORIGIN_WILDCARD'],
    ['https://*.example.com', 'ORIGIN_WILDCARD'],
    ['https://a.example\\', 'ORIGIN_HAS_BACKSLASH'],
    ['https://a.example\\@evil.example', 'ORIGIN_HAS_BACKSLASH'],
    ['https://a!b.example', 'ORIGIN_HOST_INVALID'],
    ['file://localhost', 'ORIGIN_SCHEME_NOT_ALLOWED'],
    ['wss://a.example', 'ORIGIN_SCHEME_NOT_ALLOWED'],
    ['https://a.example/', 'ORIGIN_HAS_PATH'],
    ['https://user@a.example', 'ORIGIN_HAS_USERINFO'],
    ['https:a.example', 'ORIGIN_MALFORMED'],
    ['https://a.exa\u200Bmple', 'ORIGIN_NOT_SERIALIZED'],
  ])('%s → %s', (origin, code) => {
    expect(originCode(origin)).toBe(code);
  });

  it.each(['https://a.example', 'https://a.example:8443', 'http://localhost:3000', 'http://127.0.0.1', 'http://[::1]:3000', 'https://xn--bcher-kva.example', 'https://a.example.', 'capacitor://localhost', 'ionic://localhost'])(
    'accepts %s, which is its own serialization',
    (origin) => {
      expect(checkOrigin(origin)).toEqual({ value: origin });
      if (!origin.startsWith('capacitor') && !origin.startsWith('ionic')) expect(new URL(origin).origin).toBe(origin);
    },
  );
});

describe('messages', () => {
  it('every code above has an English and a German sentence', () => {
    expect(seen.size).toBeGreaterThan(15);
    for (const code of seen) expect(VIOLATION_CODES, code).toContain(code);
  });
});
