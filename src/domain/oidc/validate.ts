// Validation and normalization of an AddOIDCApp request (design §6).
//
// Modelled on node-oidc-provider's client metadata schema: the rules are data —
// one table row per stored field naming its kind, one table of cross-field
// requirements — and a single validator walks them. Every violation is
// collected, so a client fixes its request in one round trip, not one per field.

import {
  OIDC_APP_TYPES,
  OIDC_AUTH_METHOD_TYPES,
  OIDC_GRANT_TYPES,
  OIDC_RESPONSE_TYPES,
  OIDC_TOKEN_TYPES,
  OIDC_VERSIONS,
  type DurationInput,
  type OidcAppInput,
  type OidcConfig,
  type OidcGrantType,
  type OidcResponseType,
} from './types.js';
import { checkDisplayName, type NameProblem } from '../identity/identifiers.js';
import { OIDC_BOUNDS } from './bounds.js';
import { checkOrigin, checkRedirectUri, type UriCheck } from './uri-rules.js';
import { oidcViolation, type CodedViolation } from './violations.js';

export { describeViolation, type CodedViolation, type OidcViolationFacts } from './violations.js';

export type OidcValidationResult =
  | { ok: true; config: OidcConfig }
  | { ok: false; violations: CodedViolation[] };

/** What a field rule found: the field, the rule's code and its parameters. */
interface Found {
  field: string;
  code: string;
  params?: Record<string, string | number>;
}

/** Defaults of design §6; each enum default is also the schema's zero value. */
export const OIDC_DEFAULTS = {
  responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
  grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
  appType: 'OIDC_APP_TYPE_WEB',
  authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
  version: 'OIDC_VERSION_1_0',
  accessTokenType: 'OIDC_TOKEN_TYPE_BEARER',
  clockSkewMs: 0,
} as const satisfies Partial<OidcConfig>;

/**
 * For each response type, the grant types of which at least one must be
 * present (design §6). CODE is also satisfied by DEVICE_CODE, so a device-flow
 * app keeps the default response type without having to add AUTHORIZATION_CODE.
 */
export const RESPONSE_TYPE_GRANTS: Readonly<Record<OidcResponseType, readonly OidcGrantType[]>> = {
  OIDC_RESPONSE_TYPE_CODE: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_DEVICE_CODE'],
  OIDC_RESPONSE_TYPE_ID_TOKEN: ['OIDC_GRANT_TYPE_IMPLICIT'],
  OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN: ['OIDC_GRANT_TYPE_IMPLICIT'],
};

// ---------------------------------------------------------------------------
// Field kinds: read a raw value, report what is wrong, return the normalized value.
// The raw value is `unknown` on purpose — the input type is a promise made by
// another layer, and a validator must not crash when that promise is broken.

type Report = (v: Found) => void;
type Kind<T> = (raw: unknown, field: string, report: Report) => T;

// Echoed values are cut short so an error body stays small whatever was sent.
const shown = (raw: unknown): string => String(raw).slice(0, 64);

// The app name is a display name (../identity/identifiers.ts decides what it
// may hold); its problems keep this catalogue's NAME_* codes.
const NAME_CODES: Readonly<Record<NameProblem['code'], string>> = {
  EMPTY: 'NAME_EMPTY',
  TOO_LONG: 'NAME_TOO_LONG',
  CHARACTER: 'NAME_INVALID_CHARACTER',
  NOTHING_VISIBLE: 'NAME_NOTHING_VISIBLE',
  BIDI_RULE: 'NAME_INVALID_CHARACTER', // usernames only; listed for completeness
  NORMALIZED_TOO_LONG: 'NAME_NORMALIZED_TOO_LONG',
};

function displayName(max: number): Kind<string> {
  return (raw, field, report) => {
    const { value, problem } = checkDisplayName(typeof raw === 'string' ? raw : '', max);
    if (problem) {
      const { code, ...params } = problem;
      report({ field, code: NAME_CODES[code], ...(Object.keys(params).length ? { params } : {}) });
    }
    return value;
  };
}

function oneOf<T extends string>(values: readonly T[], fallback: T): Kind<T> {
  const known: ReadonlySet<string> = new Set(values);
  return (raw, field, report) => {
    // Absent at runtime means the zero value, which is the default. An empty
    // string is NOT absent: it is a value nobody defined, and is rejected.
    if (raw === undefined || raw === null) return fallback;
    if (typeof raw === 'string' && known.has(raw)) return raw as T;
    report({ field, code: 'ENUM_UNKNOWN', params: { value: shown(raw) } });
    return fallback;
  };
}

const flag: Kind<boolean> = (raw) => raw === true;

/** The entries of a list field, cut to the bound (which is itself reported). */
function boundedEntries(raw: unknown, field: string, report: Report): readonly unknown[] {
  const items: readonly unknown[] = Array.isArray(raw) ? raw : [];
  const max = OIDC_BOUNDS.listMaxEntries;
  if (items.length <= max) return items;
  // Entries past the bound are not inspected: the request fails anyway, and
  // hundreds of per-entry errors would only bury the one that matters.
  report({ field, code: 'LIST_TOO_LONG', params: { max, count: items.length } });
  return items.slice(0, max);
}

function enumList<T extends string>(values: readonly T[], fallback: readonly T[]): Kind<T[]> {
  const known: ReadonlySet<string> = new Set(values);
  return (raw, field, report) => {
    const out = new Set<T>();
    boundedEntries(raw, field, report).forEach((item, i) => {
      if (typeof item === 'string' && known.has(item)) out.add(item as T);
      else report({ field: `${field}[${i}]`, code: 'ENUM_UNKNOWN', params: { value: shown(item) } });
    });
    // Duplicates are harmless in a request but meaningless in a config: keep one.
    return out.size > 0 ? [...out] : [...fallback];
  };
}

/** A list of URIs, each stored in the form its check returns (./uri-rules.ts); an entry sent twice is kept once. */
function uriList(check: (raw: string) => UriCheck, notAString: string): Kind<string[]> {
  return (raw, field, report) => {
    const out = new Set<string>();
    boundedEntries(raw, field, report).forEach((item, i) => {
      const checked: UriCheck = typeof item === 'string' ? check(item) : { problem: { code: notAString } };
      if (checked.problem) report({ field: `${field}[${i}]`, ...checked.problem });
      else out.add(checked.value);
    });
    return [...out];
  };
}

/** One URI or none (absent or '': undefined, not stored), by the same check as a redirect URI. */
function optionalUri(check: (raw: string) => UriCheck): Kind<string | undefined> {
  return (raw, field, report) => {
    if (raw === undefined || raw === null || raw === '') return undefined;
    const checked: UriCheck = typeof raw === 'string' ? check(raw) : { problem: { code: 'URI_MALFORMED' } };
    if (checked.problem) {
      report({ field, ...checked.problem });
      return undefined;
    }
    return checked.value;
  };
}

const NANOS_PER_SECOND = 1_000_000_000n;
const NANOS_PER_MS = 1_000_000n;

/**
 * A protobuf Duration → whole milliseconds, within 0..maxMs inclusive.
 * Compared in exact nanoseconds (bigint), so 5.000000001s is rejected rather
 * than rounded into range; sub-millisecond remainders of valid values are truncated.
 */
function durationMs(maxMs: number): Kind<number> {
  return (raw, field, report) => {
    if (raw === undefined || raw === null) return OIDC_DEFAULTS.clockSkewMs;
    const { seconds, nanos } = (typeof raw === 'object' ? raw : {}) as Partial<DurationInput>;
    const s =
      typeof seconds === 'bigint' ? seconds
      : typeof seconds === 'number' && Number.isSafeInteger(seconds) ? BigInt(seconds)
      : undefined;
    // protobuf's own Duration invariants: |nanos| < 1s, and nanos shares the sign of seconds.
    const wellFormed =
      s !== undefined &&
      typeof nanos === 'number' &&
      Number.isInteger(nanos) &&
      Math.abs(nanos) < 1_000_000_000 &&
      !(s > 0n && nanos < 0) &&
      !(s < 0n && nanos > 0);
    if (!wellFormed) {
      report({ field, code: 'CLOCK_SKEW_INVALID' });
      return OIDC_DEFAULTS.clockSkewMs;
    }
    const total = s * NANOS_PER_SECOND + BigInt(nanos);
    if (total < 0n) {
      report({ field, code: 'CLOCK_SKEW_NEGATIVE' });
      return OIDC_DEFAULTS.clockSkewMs;
    }
    if (total > BigInt(maxMs) * NANOS_PER_MS) {
      report({ field, code: 'CLOCK_SKEW_TOO_LARGE', params: { max: `${maxMs / 1000}s` } });
      return OIDC_DEFAULTS.clockSkewMs;
    }
    return Number(total / NANOS_PER_MS);
  };
}

// ---------------------------------------------------------------------------
// The schema: one row per stored field. Typed as a mapped type, so adding a
// field to OidcConfig without a rule here is a compile error.

interface FieldRule<T> {
  /** The request field (and JSON path) it is read from, when it differs from the config key. */
  from?: keyof OidcAppInput;
  kind: Kind<T>;
}

const FIELD_RULES: { readonly [K in keyof OidcConfig]: FieldRule<OidcConfig[K]> } = {
  name: { kind: displayName(OIDC_BOUNDS.nameMaxChars) },
  redirectUris: { kind: uriList(checkRedirectUri, 'URI_MALFORMED') },
  responseTypes: { kind: enumList(OIDC_RESPONSE_TYPES, OIDC_DEFAULTS.responseTypes) },
  grantTypes: { kind: enumList(OIDC_GRANT_TYPES, OIDC_DEFAULTS.grantTypes) },
  appType: { kind: oneOf(OIDC_APP_TYPES, OIDC_DEFAULTS.appType) },
  authMethodType: { kind: oneOf(OIDC_AUTH_METHOD_TYPES, OIDC_DEFAULTS.authMethodType) },
  postLogoutRedirectUris: { kind: uriList(checkRedirectUri, 'URI_MALFORMED') },
  version: { kind: oneOf(OIDC_VERSIONS, OIDC_DEFAULTS.version) },
  devMode: { kind: flag },
  accessTokenType: { kind: oneOf(OIDC_TOKEN_TYPES, OIDC_DEFAULTS.accessTokenType) },
  accessTokenRoleAssertion: { kind: flag },
  idTokenRoleAssertion: { kind: flag },
  idTokenUserinfoAssertion: { kind: flag },
  clockSkewMs: { from: 'clockSkew', kind: durationMs(OIDC_BOUNDS.clockSkewMaxMs) },
  additionalOrigins: { kind: uriList(checkOrigin, 'ORIGIN_MALFORMED') },
  skipNativeAppSuccessPage: { kind: flag },
  backChannelLogoutUri: { kind: optionalUri(checkRedirectUri) },
};

// ---------------------------------------------------------------------------
// Cross-field rules run on the normalized config (so defaults count), and only
// when the fields they read are clean: a typo in one grant type should produce
// one error, not a second, derived one about a response type.

interface CrossFieldRule {
  reads: readonly (keyof OidcConfig)[];
  check: (config: OidcConfig, input: OidcAppInput, report: Report) => void;
}

const responseTypesHaveTheirGrants: CrossFieldRule = {
  reads: ['responseTypes', 'grantTypes'],
  check: (config, input, report) => {
    const sent: readonly unknown[] = Array.isArray(input.responseTypes) ? input.responseTypes : [];
    for (const responseType of config.responseTypes) {
      const needed = RESPONSE_TYPE_GRANTS[responseType];
      if (needed.some((g) => config.grantTypes.includes(g))) continue;
      // Point at the entry that was sent; a defaulted list has no entry to point at.
      const i = sent.indexOf(responseType);
      report({
        field: i >= 0 ? `responseTypes[${i}]` : 'responseTypes',
        code: 'RESPONSE_TYPE_NEEDS_GRANT',
        params: { responseType, grantTypes: needed.join(', ') },
      });
    }
  },
};

// Keyhold itself posts to the back-channel logout URI, from the server: https, or
// http only to a loopback host of an app in dev mode; and a loopback host (which
// is Keyhold's own machine) only in dev mode (docs/security.md section 33).
const backChannelLogoutUriIsReachable: CrossFieldRule = {
  reads: ['backChannelLogoutUri', 'devMode'],
  check: (config, _input, report) => {
    const uri = config.backChannelLogoutUri;
    if (!uri) return;
    const url = new URL(uri);
    const loopback = isLoopbackHost(url.hostname);
    if (url.protocol === 'https:' && (!loopback || config.devMode)) return;
    if (url.protocol === 'http:' && loopback && config.devMode) return;
    report({ field: 'backChannelLogoutUri', code: 'BACK_CHANNEL_LOGOUT_URI_NOT_ALLOWED' });
  },
};

/** Hosts that are this machine: a back-channel logout URI there is for development only. */
export const isLoopbackHost = (hostname: string): boolean =>
  hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);

const CROSS_FIELD_RULES: readonly CrossFieldRule[] = [responseTypesHaveTheirGrants, backChannelLogoutUriIsReachable];

// ---------------------------------------------------------------------------

/** Checks an AddOIDCApp request and returns either the normalized config or every violation. */
export function validateOidcApp(input: OidcAppInput): OidcValidationResult {
  const violations: CodedViolation[] = [];
  const found = (v: Found) => violations.push(oidcViolation(v.field, v.code, v.params));
  const dirty = new Set<keyof OidcConfig>();
  const config: Record<string, unknown> = {};
  const safeInput = (input ?? {}) as OidcAppInput;
  const raw = safeInput as unknown as Record<string, unknown>;

  for (const key of Object.keys(FIELD_RULES) as (keyof OidcConfig)[]) {
    const rule = FIELD_RULES[key] as FieldRule<unknown>;
    const path = rule.from ?? key;
    config[key] = rule.kind(raw[path], path, (v) => {
      dirty.add(key);
      found(v);
    });
  }

  const normalized = config as unknown as OidcConfig;
  for (const rule of CROSS_FIELD_RULES) {
    if (rule.reads.some((k) => dirty.has(k))) continue;
    rule.check(normalized, safeInput, found);
  }

  return violations.length > 0 ? { ok: false, violations } : { ok: true, config: normalized };
}

/** The name alone, by the same rule as on create (UpdateApp). */
export function validateAppName(name: unknown): { ok: true; name: string } | { ok: false; violations: CodedViolation[] } {
  const violations: CodedViolation[] = [];
  const value = FIELD_RULES.name.kind(name, 'name', (v) => violations.push(oidcViolation(v.field, v.code, v.params)));
  return violations.length > 0 ? { ok: false, violations } : { ok: true, name: value };
}
