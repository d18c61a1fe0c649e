import { describe, expect, it } from 'vitest';
import {
  COMPLIANCE_KEYS,
  COMPLIANCE_KEY_PREFIX,
  complianceProblems,
  localizeCompliance,
  type ComplianceInput,
} from '../../../src/domain/oidc/compliance.js';
import { COMPLIANCE_MESSAGE_KEYS } from '../../../src/domain/oidc/compliance-messages.js';
import { validateOidcApp } from '../../../src/domain/oidc/validate.js';
import type { OidcAppType, OidcAuthMethodType, OidcGrantType } from '../../../src/domain/oidc/types.js';
import { request } from './helpers.js';

const WEB: OidcAppType = 'OIDC_APP_TYPE_WEB';
const UA: OidcAppType = 'OIDC_APP_TYPE_USER_AGENT';
const NATIVE: OidcAppType = 'OIDC_APP_TYPE_NATIVE';
const BASIC: OidcAuthMethodType = 'OIDC_AUTH_METHOD_TYPE_BASIC';
const POST: OidcAuthMethodType = 'OIDC_AUTH_METHOD_TYPE_POST';
const NONE: OidcAuthMethodType = 'OIDC_AUTH_METHOD_TYPE_NONE';
const PKJWT: OidcAuthMethodType = 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT';
const CODE: OidcGrantType = 'OIDC_GRANT_TYPE_AUTHORIZATION_CODE';
const IMPLICIT: OidcGrantType = 'OIDC_GRANT_TYPE_IMPLICIT';
const REFRESH: OidcGrantType = 'OIDC_GRANT_TYPE_REFRESH_TOKEN';
const DEVICE: OidcGrantType = 'OIDC_GRANT_TYPE_DEVICE_CODE';

const NC = 'NotCompliant';

interface Row {
  name: string;
  appType: OidcAppType;
  auth: OidcAuthMethodType;
  grants: OidcGrantType[];
  uris: string[];
  /** Expected keys without prefix, in output order. */
  keys: string[];
  /** Expected offending URI per key, where one is named. */
  uri?: Record<string, string>;
}

const row = (
  name: string,
  appType: OidcAppType,
  auth: OidcAuthMethodType,
  grants: OidcGrantType[],
  uris: string[],
  keys: string[],
  uri?: Record<string, string>,
): Row => ({ name, appType, auth, grants, uris, keys, uri });

const TABLE: Row[] = [
  // ---- grant set: implicit + code ----
  row('IC: all https → nothing', WEB, BASIC, [CODE, IMPLICIT], ['https://a.example/cb'], []),
  row('IC: empty list counts as all https → only NoRedirectUris, no warning', WEB, BASIC, [CODE, IMPLICIT], [], [NC, 'NoRedirectUris']),
  row('IC: custom on WEB', WEB, BASIC, [CODE, IMPLICIT], ['https://a.example/cb', 'myapp://cb'],
    [NC, 'Implicit.RedirectUris.CustomNotAllowed'], { 'Implicit.RedirectUris.CustomNotAllowed': 'myapp://cb' }),
  row('IC: custom on NATIVE is only the warning', NATIVE, NONE, [CODE, IMPLICIT], ['myapp://cb'],
    ['NotAllCombinationsAreAllowed'], { NotAllCombinationsAreAllowed: 'myapp://cb' }),
  row('IC: loopback http on USER_AGENT', UA, NONE, [CODE, IMPLICIT], ['http://localhost/cb'],
    [NC, 'Code.RedirectUris.HttpOnlyForWeb'], { 'Code.RedirectUris.HttpOnlyForWeb': 'http://localhost/cb' }),
  row('IC: custom + http on USER_AGENT, design order', UA, NONE, [CODE, IMPLICIT], ['http://a.example/cb', 'myapp://cb'],
    [NC, 'Implicit.RedirectUris.CustomNotAllowed', 'Code.RedirectUris.HttpOnlyForWeb']),
  row('IC: non-loopback http on NATIVE', NATIVE, NONE, [CODE, IMPLICIT], ['http://localhost/cb', 'http://a.example/cb'],
    [NC, 'Native.RedirectUris.MustBeHttpLocalhost'], { 'Native.RedirectUris.MustBeHttpLocalhost': 'http://a.example/cb' }),
  row('IC: loopback http on NATIVE is only the warning', NATIVE, NONE, [CODE, IMPLICIT], ['http://127.0.0.1:9/cb'],
    ['NotAllCombinationsAreAllowed']),
  row('IC: http on WEB is only the warning', WEB, BASIC, [CODE, IMPLICIT, REFRESH], ['https://a.example/cb', 'http://b.example/cb'],
    ['NotAllCombinationsAreAllowed'], { NotAllCombinationsAreAllowed: 'http://b.example/cb' }),
  row('IC: warning is not added once a branch problem fired (with auth problem too)', UA, BASIC, [CODE, IMPLICIT], ['http://a.example/cb'],
    [NC, 'Code.RedirectUris.HttpOnlyForWeb', 'UserAgent.AuthMethodType.NotNone']),

  // ---- grant set: implicit only ----
  row('I: all https → nothing', UA, NONE, [IMPLICIT], ['https://a.example/cb'], []),
  row('I: custom on WEB', WEB, BASIC, [IMPLICIT], ['myapp://cb'], [NC, 'Implicit.RedirectUris.CustomNotAllowed']),
  row('I: custom is not allowed even on NATIVE', NATIVE, NONE, [IMPLICIT], ['myapp://cb'],
    [NC, 'Implicit.RedirectUris.CustomNotAllowed'], { 'Implicit.RedirectUris.CustomNotAllowed': 'myapp://cb' }),
  row('I: non-loopback http on NATIVE', NATIVE, NONE, [IMPLICIT], ['http://localhost/cb', 'http://a.example/cb'],
    [NC, 'Native.RedirectUris.MustBeHttpLocalhost'], { 'Native.RedirectUris.MustBeHttpLocalhost': 'http://a.example/cb' }),
  row('I: loopback http on NATIVE is fine', NATIVE, NONE, [IMPLICIT], ['http://[::1]:3000/cb'], []),
  row('I: loopback http on WEB is still http', WEB, BASIC, [IMPLICIT], ['http://localhost/cb'],
    [NC, 'Implicit.RedirectUris.HttpNotAllowed'], { 'Implicit.RedirectUris.HttpNotAllowed': 'http://localhost/cb' }),
  row('I: custom and http on USER_AGENT, both named', UA, NONE, [IMPLICIT], ['http://a.example/cb', 'myapp://x'],
    [NC, 'Implicit.RedirectUris.CustomNotAllowed', 'Implicit.RedirectUris.HttpNotAllowed'],
    { 'Implicit.RedirectUris.CustomNotAllowed': 'myapp://x', 'Implicit.RedirectUris.HttpNotAllowed': 'http://a.example/cb' }),
  row('I + refresh: refresh without a code grant', WEB, BASIC, [IMPLICIT, REFRESH], ['https://a.example/cb'],
    [NC, 'GrantType.Refresh.NoAuthCode']),

  // ---- grant set: code only ----
  row('C: http on WEB is fine', WEB, BASIC, [CODE], ['http://a.example/cb'], []),
  row('C: custom on WEB', WEB, BASIC, [CODE], ['myapp://cb'],
    [NC, 'Code.RedirectUris.CustomOnlyForNative'], { 'Code.RedirectUris.CustomOnlyForNative': 'myapp://cb' }),
  row('C: custom on USER_AGENT', UA, NONE, [CODE], ['myapp://cb'], [NC, 'Code.RedirectUris.CustomOnlyForNative']),
  row('C: http + custom on USER_AGENT, design order', UA, NONE, [CODE], ['myapp://cb', 'http://a.example/cb'],
    [NC, 'Code.RedirectUris.HttpOnlyForWeb', 'Code.RedirectUris.CustomOnlyForNative'],
    { 'Code.RedirectUris.HttpOnlyForWeb': 'http://a.example/cb', 'Code.RedirectUris.CustomOnlyForNative': 'myapp://cb' }),
  row('C: custom on NATIVE is fine', NATIVE, NONE, [CODE], ['myapp://cb', 'com.example.app:/oauth'], []),
  row('C + refresh on WEB https', WEB, BASIC, [CODE, REFRESH], ['https://a.example/cb'], []),
  row('C + device without URIs still needs URIs', NATIVE, NONE, [CODE, DEVICE], [], [NC, 'NoRedirectUris']),

  // ---- grant set: neither implicit nor code ----
  row('neither: device only skips redirect checks', WEB, BASIC, [DEVICE], ['http://a.example/cb', 'myapp://cb'], []),
  row('neither: device only needs no URIs', NATIVE, NONE, [DEVICE], [], []),
  row('neither: refresh only', WEB, BASIC, [REFRESH], ['https://a.example/cb'], [NC, 'GrantType.Refresh.NoAuthCode']),
  row('neither: refresh only, no URIs', WEB, BASIC, [REFRESH], [], [NC, 'NoRedirectUris', 'GrantType.Refresh.NoAuthCode']),
  row('neither: refresh + device is fine', NATIVE, NONE, [REFRESH, DEVICE], [], []),

  // ---- app types and auth methods ----
  row('WEB with NONE is fine', WEB, NONE, [CODE], ['https://a.example/cb'], []),
  row('WEB with POST is fine', WEB, POST, [CODE], ['https://a.example/cb'], []),
  row('WEB with PRIVATE_KEY_JWT is fine', WEB, PKJWT, [CODE], ['https://a.example/cb'], []),
  row('USER_AGENT with BASIC', UA, BASIC, [CODE], ['https://a.example/cb'], [NC, 'UserAgent.AuthMethodType.NotNone']),
  row('USER_AGENT with POST', UA, POST, [CODE], ['https://a.example/cb'], [NC, 'UserAgent.AuthMethodType.NotNone']),
  row('USER_AGENT with PRIVATE_KEY_JWT', UA, PKJWT, [CODE], ['https://a.example/cb'], [NC, 'UserAgent.AuthMethodType.NotNone']),
  row('USER_AGENT with NONE is fine', UA, NONE, [CODE], ['https://a.example/cb'], []),
  row('NATIVE with BASIC', NATIVE, BASIC, [CODE], ['myapp://cb'], [NC, 'Native.AuthMethodType.NotNone']),
  row('NATIVE with PRIVATE_KEY_JWT', NATIVE, PKJWT, [CODE], ['myapp://cb'], [NC, 'Native.AuthMethodType.NotNone']),
  row('many problems, NotCompliant once', NATIVE, POST, [REFRESH], [],
    [NC, 'NoRedirectUris', 'GrantType.Refresh.NoAuthCode', 'Native.AuthMethodType.NotNone']),

  // ---- scheme and loopback classification (code only) ----
  ...['http://localhost/cb', 'http://localhost:4200/cb', 'http://127.0.0.1/cb', 'http://127.5.5.5/cb',
    'http://[::1]:8080/cb', 'HTTP://LOCALHOST/cb', 'http://LocalHost:1/cb', 'http://127.1/cb']
    .map((u) => row(`loopback: ${u} on NATIVE`, NATIVE, NONE, [CODE], [u], [])),
  ...['http://localhost.evil.com/cb', 'http://128.0.0.1/cb', 'http://[::2]/cb', 'http://127.0.0.1.evil.com/cb',
    'http://example.com/cb', 'HTTP://EXAMPLE.COM/cb']
    .map((u) => row(`not loopback: ${u} on NATIVE`, NATIVE, NONE, [CODE], [u],
      [NC, 'Native.RedirectUris.MustBeHttpLocalhost'], { 'Native.RedirectUris.MustBeHttpLocalhost': u })),
  row('httpx:// is custom, not http (WEB)', WEB, BASIC, [CODE], ['httpx://a.example/cb'], [NC, 'Code.RedirectUris.CustomOnlyForNative']),
  row('httpx:// is custom, not http (NATIVE)', NATIVE, NONE, [CODE], ['httpx://a.example/cb'], []),
  row('HTTPS:// uppercase is https', UA, NONE, [CODE], ['HTTPS://A.EXAMPLE/cb'], []),
  row('uppercase HTTP on USER_AGENT is http', UA, NONE, [CODE], ['HTTP://LOCALHOST/cb'],
    [NC, 'Code.RedirectUris.HttpOnlyForWeb'], { 'Code.RedirectUris.HttpOnlyForWeb': 'HTTP://LOCALHOST/cb' }),
];

const withPrefix = (keys: string[]) => keys.map((k) => COMPLIANCE_KEY_PREFIX + k);

function input(r: Row): ComplianceInput {
  return { appType: r.appType, authMethodType: r.auth, grantTypes: r.grants, redirectUris: r.uris };
}

describe('complianceProblems: rule table', () => {
  it.each(TABLE)('$name', (r) => {
    const problems = complianceProblems(input(r));
    expect(problems.map((p) => p.key)).toEqual(withPrefix(r.keys));
    for (const [key, uri] of Object.entries(r.uri ?? {})) {
      expect(problems.find((p) => p.key === COMPLIANCE_KEY_PREFIX + key)?.uri).toBe(uri);
    }
  });

  it('the table exercises every key the rules can produce', () => {
    const seen = new Set(TABLE.flatMap((r) => r.keys));
    expect([...seen].sort()).toEqual([...COMPLIANCE_KEYS].sort());
    // The eleven keys of design §6, written out so a lost or renamed key fails here.
    expect([...COMPLIANCE_KEYS].sort()).toEqual(
      [
        'NotCompliant', 'NoRedirectUris', 'GrantType.Refresh.NoAuthCode',
        'Implicit.RedirectUris.CustomNotAllowed', 'Implicit.RedirectUris.HttpNotAllowed',
        'Code.RedirectUris.HttpOnlyForWeb', 'Code.RedirectUris.CustomOnlyForNative',
        'Native.RedirectUris.MustBeHttpLocalhost', 'NotAllCombinationsAreAllowed',
        'Native.AuthMethodType.NotNone', 'UserAgent.AuthMethodType.NotNone',
      ].sort(),
    );
  });

  it('NotCompliant comes first and at most once; noneCompliant iff a non-warning problem', () => {
    for (const r of TABLE) {
      const problems = complianceProblems(input(r));
      const nc = problems.filter((p) => p.key === COMPLIANCE_KEY_PREFIX + NC);
      const real = problems.filter(
        (p) => p.key !== COMPLIANCE_KEY_PREFIX + NC && p.key !== COMPLIANCE_KEY_PREFIX + 'NotAllCombinationsAreAllowed',
      );
      expect(nc.length).toBe(real.length > 0 ? 1 : 0);
      if (nc.length) expect(problems[0].key).toBe(COMPLIANCE_KEY_PREFIX + NC);
      expect(localizeCompliance(problems, 'en').noneCompliant).toBe(real.length > 0);
    }
  });
});

describe('compliance: worked examples (through validation and defaults)', () => {
  const examples: { name: string; req: Parameters<typeof request>[0]; noneCompliant: boolean; keys: string[] }[] = [
    { name: 'WEB, code, BASIC, https://a.example/cb', req: { redirectUris: ['https://a.example/cb'] }, noneCompliant: false, keys: [] },
    { name: 'WEB, code, BASIC, no redirect URIs', req: { redirectUris: [] }, noneCompliant: true, keys: ['NotCompliant', 'NoRedirectUris'] },
    {
      name: 'USER_AGENT, code, NONE, http://localhost:4200/cb',
      req: { appType: UA, authMethodType: NONE, redirectUris: ['http://localhost:4200/cb'] },
      noneCompliant: true,
      keys: ['NotCompliant', 'Code.RedirectUris.HttpOnlyForWeb'],
    },
    {
      name: 'NATIVE, code, BASIC, http://example.com/cb',
      req: { appType: NATIVE, authMethodType: BASIC, redirectUris: ['http://example.com/cb'] },
      noneCompliant: true,
      keys: ['NotCompliant', 'Native.RedirectUris.MustBeHttpLocalhost', 'Native.AuthMethodType.NotNone'],
    },
    {
      name: 'NATIVE, code, NONE, http://127.0.0.1:8080/cb + myapp://cb',
      req: { appType: NATIVE, authMethodType: NONE, redirectUris: ['http://127.0.0.1:8080/cb', 'myapp://cb'] },
      noneCompliant: false,
      keys: [],
    },
    {
      name: 'WEB, code + implicit, BASIC, http://a.example/cb',
      req: {
        redirectUris: ['http://a.example/cb'],
        grantTypes: [CODE, IMPLICIT],
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE', 'OIDC_RESPONSE_TYPE_ID_TOKEN'],
      },
      noneCompliant: false,
      keys: ['NotAllCombinationsAreAllowed'],
    },
    {
      name: 'NATIVE, device code only, NONE, no redirect URIs',
      req: { appType: NATIVE, authMethodType: NONE, grantTypes: [DEVICE], redirectUris: [] },
      noneCompliant: false,
      keys: [],
    },
  ];

  it.each(examples)('$name', (ex) => {
    const v = validateOidcApp(request(ex.req));
    if (!v.ok) throw new Error(JSON.stringify(v.violations));
    for (const lang of ['en', 'de'] as const) {
      const report = localizeCompliance(complianceProblems(v.config), lang);
      expect(report.noneCompliant).toBe(ex.noneCompliant);
      expect(report.complianceProblems.map((p) => p.key)).toEqual(withPrefix(ex.keys));
      for (const p of report.complianceProblems) expect(p.localizedMessage.trim()).not.toBe('');
    }
  });
});

describe('localizeCompliance', () => {
  const allProblems = TABLE.flatMap((r) => complianceProblems(input(r)));

  it('every rule key has its own sentence in both languages', () => {
    for (const key of COMPLIANCE_KEYS) expect(COMPLIANCE_MESSAGE_KEYS).toContain(key);
  });

  it('every entry has a non-empty message in en and de, and they differ', () => {
    const en = localizeCompliance(allProblems, 'en').complianceProblems;
    const de = localizeCompliance(allProblems, 'de').complianceProblems;
    expect(en).toHaveLength(allProblems.length);
    en.forEach((p, i) => {
      expect(p.key).toBe(allProblems[i].key);
      expect(p.localizedMessage.trim().length).toBeGreaterThan(10);
      expect(de[i].localizedMessage.trim().length).toBeGreaterThan(10);
      expect(de[i].localizedMessage).not.toBe(p.localizedMessage);
    });
  });

  it('names the offending URI in both languages', () => {
    const withUri = allProblems.filter((p) => p.uri);
    expect(withUri.length).toBeGreaterThan(10);
    for (const lang of ['en', 'de'] as const) {
      const localized = localizeCompliance(withUri, lang).complianceProblems;
      localized.forEach((p, i) => expect(p.localizedMessage).toContain(withUri[i].uri));
    }
  });

  it('names the first offending URI, not a later one', () => {
    const problems = complianceProblems({
      appType: NATIVE,
      authMethodType: NONE,
      grantTypes: [CODE],
      redirectUris: ['https://ok.example/cb', 'http://localhost/cb', 'http://first.example/cb', 'http://second.example/cb'],
    });
    const [, p] = localizeCompliance(problems, 'de').complianceProblems;
    expect(p.key).toBe(COMPLIANCE_KEY_PREFIX + 'Native.RedirectUris.MustBeHttpLocalhost');
    expect(p.localizedMessage).toContain('http://first.example/cb');
    expect(p.localizedMessage).not.toContain('second');
  });

  it('an empty report is compliant', () => {
    expect(localizeCompliance([], 'de')).toEqual({ noneCompliant: false, complianceProblems: [] });
  });

  it('the warning alone keeps the app compliant but still carries a message', () => {
    const r = localizeCompliance([{ key: COMPLIANCE_KEY_PREFIX + 'NotAllCombinationsAreAllowed', uri: 'http://a.example/cb' }], 'en');
    expect(r.noneCompliant).toBe(false);
    expect(r.complianceProblems[0].localizedMessage).toContain('http://a.example/cb');
  });
});
