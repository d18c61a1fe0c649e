import { describe, expect, it } from 'vitest';
import { validateOidcApp, describeViolation, type CodedViolation, type OidcViolationFacts } from '../../../src/domain/oidc/validate.js';
import { VIOLATION_CODES } from '../../../src/domain/oidc/violations.js';
import { OIDC_BOUNDS } from '../../../src/domain/oidc/bounds.js';
import type { OidcAppInput } from '../../../src/domain/oidc/types.js';
import { request } from './helpers.js';

// Every code any test here observed, to prove the message catalog covers them.
const observed = new Set<string>();

function violations(overrides: Partial<OidcAppInput>): CodedViolation[] {
  const r = validateOidcApp(request(overrides));
  if (r.ok) return [];
  r.violations.forEach((v) => observed.add(v.code));
  return r.violations;
}
/** "field CODE" pairs: compact and order-preserving. */
const pairs = (overrides: Partial<OidcAppInput>) => violations(overrides).map((v) => `${v.field} ${v.code}`);

function config(overrides: Partial<OidcAppInput>) {
  const r = validateOidcApp(request(overrides));
  if (!r.ok) throw new Error(`unexpected violations: ${JSON.stringify(r.violations)}`);
  return r.config;
}

describe('validateOidcApp: defaults and normalization', () => {
  it('applies every default of design §6', () => {
    expect(config({})).toEqual({
      name: 'Shop',
      redirectUris: ['https://shop.example/cb'],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      appType: 'OIDC_APP_TYPE_WEB',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      postLogoutRedirectUris: [],
      version: 'OIDC_VERSION_1_0',
      devMode: false,
      accessTokenType: 'OIDC_TOKEN_TYPE_BEARER',
      accessTokenRoleAssertion: false,
      idTokenRoleAssertion: false,
      idTokenUserinfoAssertion: false,
      clockSkewMs: 0,
      additionalOrigins: [],
      skipNativeAppSuccessPage: false,
    });
  });

  it('carries explicit values and booleans through', () => {
    const c = config({
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
      devMode: true,
      accessTokenRoleAssertion: true,
      idTokenRoleAssertion: true,
      idTokenUserinfoAssertion: true,
      skipNativeAppSuccessPage: true,
      postLogoutRedirectUris: ['https://shop.example/bye'],
      additionalOrigins: ['https://a.example:8443'],
      clockSkew: { seconds: 1n, nanos: 500_000_000 },
    });
    expect(c).toMatchObject({
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
      devMode: true,
      accessTokenRoleAssertion: true,
      idTokenRoleAssertion: true,
      idTokenUserinfoAssertion: true,
      skipNativeAppSuccessPage: true,
      postLogoutRedirectUris: ['https://shop.example/bye'],
      additionalOrigins: ['https://a.example:8443'],
      clockSkewMs: 1500,
    });
  });

  it('deduplicates lists, keeping the first occurrence and the order', () => {
    const c = config({
      redirectUris: ['https://b.example/cb', 'https://a.example/cb', 'https://b.example/cb'],
      grantTypes: ['OIDC_GRANT_TYPE_REFRESH_TOKEN', 'OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE', 'OIDC_RESPONSE_TYPE_CODE'],
    });
    expect(c.redirectUris).toEqual(['https://b.example/cb', 'https://a.example/cb']);
    expect(c.grantTypes).toEqual(['OIDC_GRANT_TYPE_REFRESH_TOKEN', 'OIDC_GRANT_TYPE_AUTHORIZATION_CODE']);
    expect(c.responseTypes).toEqual(['OIDC_RESPONSE_TYPE_CODE']);
  });
});

describe('validateOidcApp: name', () => {
  it('rejects empty and whitespace-only names', () => {
    expect(pairs({ name: '' })).toEqual(['name NAME_EMPTY']);
    expect(pairs({ name: '  \t\n \u00a0 ' })).toEqual(['name NAME_EMPTY']);
  });

  it('trims, then allows 200 characters and rejects 201', () => {
    expect(config({ name: '  Shop  ' }).name).toBe('Shop');
    expect(config({ name: `  ${'a'.repeat(200)}  ` }).name).toBe('a'.repeat(200));
    expect(violations({ name: 'a'.repeat(201) })).toEqual([
      { field: 'name', code: 'NAME_TOO_LONG', params: { max: 200, length: 201 } },
    ]);
  });

  it('counts code points, so a multi-byte character is one character', () => {
    // '🔑' is two UTF-16 units: 200 of them are 400 units but 200 characters.
    expect(config({ name: '🔑'.repeat(200) }).name).toHaveLength(400);
    expect(config({ name: 'ü'.repeat(200) }).name).toHaveLength(200);
    expect(pairs({ name: '🔑'.repeat(201) })).toEqual(['name NAME_TOO_LONG']);
  });

  it('rejects control characters inside the name', () => {
    expect(pairs({ name: 'Shop\nAdmin' })).toEqual(['name NAME_INVALID_CHARACTER']);
    expect(pairs({ name: 'Shop\u0000' })).toEqual(['name NAME_INVALID_CHARACTER']);
  });

  it('rejects characters that hide or reorder text, naming the code point (identity/identifiers.ts)', () => {
    expect(violations({ name: 'Shop\u202Egnp.exe' })).toEqual([
      { field: 'name', code: 'NAME_INVALID_CHARACTER', params: { kind: 'bidi-control', codePoint: 'U+202E' } },
    ]);
    expect(pairs({ name: 'Sh\u200Bop' })).toEqual(['name NAME_INVALID_CHARACTER']);
    expect(pairs({ name: 'Sh\u2028op' })).toEqual(['name NAME_INVALID_CHARACTER']);
    expect(pairs({ name: 'Shop\uFFFF' })).toEqual(['name NAME_INVALID_CHARACTER']);
    expect(pairs({ name: '\u2800\u2800' })).toEqual(['name NAME_INVALID_CHARACTER']);
    expect(pairs({ name: '\u0301\u0301' })).toEqual(['name NAME_INVALID_CHARACTER']);
    const [v] = violations({ name: 'Shop\u202E' });
    expect(describeViolation(v, 'en')).toContain('U+202E (a control of the writing direction)');
    expect(describeViolation(v, 'de')).toContain('U+202E (ein Steuerzeichen der Schreibrichtung)');
  });

  it('stores the name in NFC, and keeps emoji that carry a variation selector', () => {
    expect(config({ name: ' Cafe\u0301 ' }).name).toBe('Caf\u00e9');
    expect(config({ name: '❤\uFE0F Shop' }).name).toBe('❤\uFE0F Shop');
  });
});

describe('validateOidcApp: redirect and post-logout URIs', () => {
  it.each([
    ['https://a.example/cb#frag', 'URI_HAS_FRAGMENT'],
    ['https://a.example/cb#', 'URI_HAS_FRAGMENT'],
    ['myapp://cb#x', 'URI_HAS_FRAGMENT'],
    ['/cb', 'URI_NOT_ABSOLUTE'],
    ['cb', 'URI_NOT_ABSOLUTE'],
    ['//a.example/cb', 'URI_NOT_ABSOLUTE'],
    ['', 'URI_EMPTY'],
    ['https://a.example/c b', 'URI_INVALID_CHARACTER'],
    [' https://a.example/cb', 'URI_INVALID_CHARACTER'],
    ['https://a.example/cb\n', 'URI_INVALID_CHARACTER'],
    ['https://a.exa\tmple/cb', 'URI_INVALID_CHARACTER'],
    ['https://a.example/\u0085', 'URI_INVALID_CHARACTER'],
    ['https://[bad/cb', 'URI_MALFORMED'],
    ['http://a.example:99999/cb', 'URI_MALFORMED'],
    ['javascript:alert(1)', 'URI_SCHEME_NOT_ALLOWED'],
    ['DATA:text/html,x', 'URI_SCHEME_NOT_ALLOWED'],
    [`https://a.example/${'x'.repeat(OIDC_BOUNDS.uriMaxChars)}`, 'URI_TOO_LONG'],
  ])('%s → %s, naming the entry', (uri, code) => {
    expect(pairs({ redirectUris: ['https://ok.example/cb', uri] })).toEqual([`redirectUris[1] ${code}`]);
    expect(pairs({ postLogoutRedirectUris: [uri] })).toEqual([`postLogoutRedirectUris[0] ${code}`]);
  });

  it.each([
    'https://a.example/cb',
    'http://localhost:4200/cb?x=1',
    'myapp://cb',
    'com.example.app:/oauth2redirect',
    'urn:ietf:wg:oauth:2.0:oob',
    `https://a.example/${'x'.repeat(OIDC_BOUNDS.uriMaxChars - 'https://a.example/'.length)}`,
  ])('accepts %s', (uri) => {
    expect(config({ redirectUris: [uri], postLogoutRedirectUris: [uri] }).redirectUris).toEqual([uri]);
  });
});

describe('validateOidcApp: clockSkew', () => {
  it.each([
    [{ seconds: 6n, nanos: 0 }, 'CLOCK_SKEW_TOO_LARGE'],
    [{ seconds: 5n, nanos: 1 }, 'CLOCK_SKEW_TOO_LARGE'],
    [{ seconds: 9_999_999_999n, nanos: 0 }, 'CLOCK_SKEW_TOO_LARGE'],
    [{ seconds: -1n, nanos: 0 }, 'CLOCK_SKEW_NEGATIVE'],
    [{ seconds: 0n, nanos: -5 }, 'CLOCK_SKEW_NEGATIVE'],
    [{ seconds: 1n, nanos: -1 }, 'CLOCK_SKEW_INVALID'],
    [{ seconds: -1n, nanos: 5 }, 'CLOCK_SKEW_INVALID'],
    [{ seconds: 0n, nanos: 1_000_000_000 }, 'CLOCK_SKEW_INVALID'],
    [{ seconds: 0n, nanos: 0.5 }, 'CLOCK_SKEW_INVALID'],
  ])('%o → %s', (clockSkew, code) => {
    expect(pairs({ clockSkew })).toEqual([`clockSkew ${code}`]);
  });

  it.each([
    [undefined, 0],
    [{ seconds: 0n, nanos: 0 }, 0],
    [{ seconds: 5n, nanos: 0 }, 5000],
    [{ seconds: 4n, nanos: 999_999_999 }, 4999],
    [{ seconds: 0n, nanos: 999_999 }, 0],
    [{ seconds: 1n, nanos: 500_000_000 }, 1500],
  ])('%o → %d ms', (clockSkew, ms) => {
    expect(config({ clockSkew }).clockSkewMs).toBe(ms);
  });
});

describe('validateOidcApp: additionalOrigins', () => {
  it.each([
    ['https://a.example/path', 'ORIGIN_HAS_PATH'],
    ['https://a.example/', 'ORIGIN_HAS_PATH'],
    ['https://a.example:8443/', 'ORIGIN_HAS_PATH'],
    ['https://a.example?x=1', 'ORIGIN_HAS_QUERY'],
    ['https://a.example#top', 'ORIGIN_HAS_FRAGMENT'],
    ['https://user:pw@a.example', 'ORIGIN_HAS_USERINFO'],
    ['https://user@a.example', 'ORIGIN_HAS_USERINFO'],
    ['a.example', 'ORIGIN_MALFORMED'],
    ['https:a.example', 'ORIGIN_MALFORMED'],
    ['https://', 'ORIGIN_MALFORMED'],
    ['https://a.example:99999', 'ORIGIN_MALFORMED'],
    ['', 'ORIGIN_EMPTY'],
    ['https://a.example ', 'ORIGIN_INVALID_CHARACTER'],
    [`https://${'a'.repeat(OIDC_BOUNDS.uriMaxChars)}.example`, 'ORIGIN_TOO_LONG'],
  ])('%s → %s', (origin, code) => {
    expect(pairs({ additionalOrigins: ['https://ok.example', origin] })).toEqual([`additionalOrigins[1] ${code}`]);
  });

  it.each(['https://a.example:8443', 'https://a.example', 'http://localhost:3000', 'http://127.0.0.1', 'capacitor://localhost'])(
    'accepts %s',
    (origin) => {
      expect(config({ additionalOrigins: [origin] }).additionalOrigins).toEqual([origin]);
    },
  );
});

describe('validateOidcApp: enums', () => {
  it.each([
    ['appType', '7'],
    ['appType', 'OIDC_APP_TYPE_FOO'],
    ['appType', ''],
    ['authMethodType', '4'],
    ['authMethodType', 'oidc_auth_method_type_basic'],
    ['version', 'OIDC_VERSION_2_0'],
    ['version', '1'],
    ['accessTokenType', 'OIDC_TOKEN_TYPE_UNSPECIFIED'],
  ] as const)('%s = %j is unknown', (field, value) => {
    expect(violations({ [field]: value })).toEqual([{ field, code: 'ENUM_UNKNOWN', params: { value } }]);
  });

  it('checks every list entry and names its index', () => {
    expect(pairs({ responseTypes: ['OIDC_RESPONSE_TYPE_CODE', '7', 'OIDC_RESPONSE_TYPE_FOO'] })).toEqual([
      'responseTypes[1] ENUM_UNKNOWN',
      'responseTypes[2] ENUM_UNKNOWN',
    ]);
    expect(pairs({ grantTypes: ['OIDC_GRANT_TYPE_UNSPECIFIED'] })).toEqual(['grantTypes[0] ENUM_UNKNOWN']);
  });

  it('cuts echoed values short', () => {
    const [v] = violations({ appType: 'X'.repeat(5000) });
    expect(String(v.params?.value).length).toBeLessThanOrEqual(64);
  });
});

describe('validateOidcApp: response types need their grants', () => {
  it('ID_TOKEN without IMPLICIT', () => {
    expect(
      violations({
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE', 'OIDC_RESPONSE_TYPE_ID_TOKEN'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      }),
    ).toEqual([
      {
        field: 'responseTypes[1]',
        code: 'RESPONSE_TYPE_NEEDS_GRANT',
        params: { responseType: 'OIDC_RESPONSE_TYPE_ID_TOKEN', grantTypes: 'OIDC_GRANT_TYPE_IMPLICIT' },
      },
    ]);
  });

  it('ID_TOKEN_TOKEN without IMPLICIT, also against the default grant list', () => {
    expect(pairs({ responseTypes: ['OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN'] })).toEqual([
      'responseTypes[0] RESPONSE_TYPE_NEEDS_GRANT',
    ]);
  });

  it('ID_TOKEN and ID_TOKEN_TOKEN with IMPLICIT are fine', () => {
    expect(
      config({
        responseTypes: ['OIDC_RESPONSE_TYPE_ID_TOKEN', 'OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN'],
        grantTypes: ['OIDC_GRANT_TYPE_IMPLICIT'],
      }).grantTypes,
    ).toEqual(['OIDC_GRANT_TYPE_IMPLICIT']);
  });

  it('CODE with only DEVICE_CODE is fine (explicit and defaulted)', () => {
    expect(config({ responseTypes: ['OIDC_RESPONSE_TYPE_CODE'], grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'] }).responseTypes)
      .toEqual(['OIDC_RESPONSE_TYPE_CODE']);
    expect(config({ grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'] }).responseTypes).toEqual(['OIDC_RESPONSE_TYPE_CODE']);
  });

  it('a defaulted CODE is checked too, against the list field itself', () => {
    expect(pairs({ grantTypes: ['OIDC_GRANT_TYPE_IMPLICIT'] })).toEqual(['responseTypes RESPONSE_TYPE_NEEDS_GRANT']);
    expect(pairs({ grantTypes: ['OIDC_GRANT_TYPE_REFRESH_TOKEN'] })).toEqual(['responseTypes RESPONSE_TYPE_NEEDS_GRANT']);
  });

  it('an unknown grant does not also produce a derived response-type error', () => {
    expect(pairs({ responseTypes: ['OIDC_RESPONSE_TYPE_ID_TOKEN'], grantTypes: ['OIDC_GRANT_TYPE_IMPLICT'] })).toEqual([
      'grantTypes[0] ENUM_UNKNOWN',
    ]);
  });
});

describe('validateOidcApp: bounds', () => {
  const uris = (n: number, bad = false) =>
    Array.from({ length: n }, (_, i) => (bad ? `/relative/${i}` : `https://a.example/cb/${i}`));

  it(`allows ${OIDC_BOUNDS.listMaxEntries} entries per list and rejects one more`, () => {
    const max = OIDC_BOUNDS.listMaxEntries;
    expect(config({ redirectUris: uris(max) }).redirectUris).toHaveLength(max);
    expect(violations({ redirectUris: uris(max + 1) })).toEqual([
      { field: 'redirectUris', code: 'LIST_TOO_LONG', params: { max, count: max + 1 } },
    ]);
    expect(pairs({ postLogoutRedirectUris: uris(max + 1) })).toEqual(['postLogoutRedirectUris LIST_TOO_LONG']);
    const origins = Array.from({ length: max + 1 }, (_, i) => `https://o${i}.example`);
    expect(pairs({ additionalOrigins: origins })).toEqual(['additionalOrigins LIST_TOO_LONG']);
    const grants = Array.from({ length: max + 1 }, () => 'OIDC_GRANT_TYPE_AUTHORIZATION_CODE');
    expect(pairs({ grantTypes: grants })).toEqual(['grantTypes LIST_TOO_LONG']);
    const responses = Array.from({ length: max + 1 }, () => 'OIDC_RESPONSE_TYPE_CODE');
    expect(pairs({ responseTypes: responses })).toEqual(['responseTypes LIST_TOO_LONG']);
  });

  it('inspects only the first entries of an oversized list, so the report stays bounded', () => {
    const v = violations({ redirectUris: uris(5000, true) });
    expect(v[0]).toMatchObject({ field: 'redirectUris', code: 'LIST_TOO_LONG', params: { count: 5000 } });
    expect(v).toHaveLength(1 + OIDC_BOUNDS.listMaxEntries);
  });
});

describe('validateOidcApp: every violation at once', () => {
  it('reports all problems of one request together', () => {
    expect(
      pairs({
        name: '   ',
        redirectUris: ['https://a.example/cb#x', '/cb'],
        responseTypes: ['OIDC_RESPONSE_TYPE_ID_TOKEN'],
        appType: '7',
        postLogoutRedirectUris: ['https://a.example/bye#x'],
        accessTokenType: 'OIDC_TOKEN_TYPE_FOO',
        clockSkew: { seconds: 6n, nanos: 0 },
        additionalOrigins: ['https://a.example/'],
      }),
    ).toEqual([
      'name NAME_EMPTY',
      'redirectUris[0] URI_HAS_FRAGMENT',
      'redirectUris[1] URI_NOT_ABSOLUTE',
      'appType ENUM_UNKNOWN',
      'postLogoutRedirectUris[0] URI_HAS_FRAGMENT',
      'accessTokenType ENUM_UNKNOWN',
      'clockSkew CLOCK_SKEW_TOO_LARGE',
      'additionalOrigins[0] ORIGIN_HAS_PATH',
      'responseTypes[0] RESPONSE_TYPE_NEEDS_GRANT',
    ]);
  });

  it('does not crash on input that breaks the type contract', () => {
    const broken = { name: 42, redirectUris: 'https://a.example', grantTypes: [null], clockSkew: 'x' } as unknown as OidcAppInput;
    const r = validateOidcApp(broken);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.violations.map((v) => `${v.field} ${v.code}`)).toEqual([
        'name NAME_EMPTY',
        'grantTypes[0] ENUM_UNKNOWN',
        'clockSkew CLOCK_SKEW_INVALID',
      ]);
    }
  });
});

describe('describeViolation', () => {
  it('has an English and a German sentence for every code the validator produced', () => {
    expect(observed.size).toBeGreaterThan(20);
    for (const code of observed) expect(VIOLATION_CODES).toContain(code);
  });

  it.each(VIOLATION_CODES)('%s reads as a sentence in en and de', (code) => {
    const v: OidcViolationFacts = {
      field: 'redirectUris[2]',
      code,
      params: { max: 100, count: 101, length: 201, value: '7', scheme: 'javascript', responseType: 'R', grantTypes: 'G' },
    };
    const en = describeViolation(v, 'en');
    const de = describeViolation(v, 'de');
    expect(en.length).toBeGreaterThan(10);
    expect(de.length).toBeGreaterThan(10);
    expect(de).not.toBe(en);
    expect(en).not.toContain('undefined');
    expect(de).not.toContain('undefined');
  });

  it('names the field and the offending value', () => {
    const [v] = violations({ redirectUris: ['/cb'] });
    expect(describeViolation(v, 'en')).toContain('redirectUris[0]');
    const [u] = violations({ appType: 'OIDC_APP_TYPE_FOO' });
    expect(describeViolation(u, 'de')).toContain('OIDC_APP_TYPE_FOO');
  });
});

describe('validateOidcApp: backChannelLogoutUri', () => {
  const codes = (overrides: Partial<OidcAppInput>) => {
    const r = validateOidcApp(request(overrides));
    return r.ok ? [] : r.violations.map((v) => `${v.field} ${v.code}`);
  };

  it('keeps an https URI as sent and stores nothing when it is absent or empty', () => {
    const r = validateOidcApp(request({ backChannelLogoutUri: 'https://shop.example/backchannel' }));
    expect(r.ok && r.config.backChannelLogoutUri).toBe('https://shop.example/backchannel');
    const none = validateOidcApp(request({ backChannelLogoutUri: '' }));
    expect(none.ok && none.config.backChannelLogoutUri).toBeUndefined();
  });

  it('refuses what a redirect URI may not hold: a fragment, user info, a relative URI', () => {
    expect(codes({ backChannelLogoutUri: 'https://shop.example/bc#x' })).toEqual(['backChannelLogoutUri URI_HAS_FRAGMENT']);
    expect(codes({ backChannelLogoutUri: 'https://user@shop.example/bc' })).toEqual(['backChannelLogoutUri URI_HAS_USERINFO']);
    expect(codes({ backChannelLogoutUri: '/bc' })).toEqual(['backChannelLogoutUri URI_NOT_ABSOLUTE']);
  });

  it('allows http only to localhost in dev mode, and localhost only in dev mode', () => {
    expect(codes({ backChannelLogoutUri: 'http://shop.example/bc', devMode: true })).toEqual(['backChannelLogoutUri BACK_CHANNEL_LOGOUT_URI_NOT_ALLOWED']);
    expect(codes({ backChannelLogoutUri: 'http://127.0.0.1:3000/bc' })).toEqual(['backChannelLogoutUri BACK_CHANNEL_LOGOUT_URI_NOT_ALLOWED']);
    expect(codes({ backChannelLogoutUri: 'https://localhost/bc' })).toEqual(['backChannelLogoutUri BACK_CHANNEL_LOGOUT_URI_NOT_ALLOWED']);
    expect(codes({ backChannelLogoutUri: 'myapp://bc' })).toEqual(['backChannelLogoutUri BACK_CHANNEL_LOGOUT_URI_NOT_ALLOWED']);
    expect(codes({ backChannelLogoutUri: 'http://127.0.0.1:3000/bc', devMode: true })).toEqual([]);
    expect(codes({ backChannelLogoutUri: 'http://localhost:3000/bc', devMode: true })).toEqual([]);
  });
});
