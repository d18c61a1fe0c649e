// The OIDC compliance report of design §6: which combinations of app type,
// auth method, grant types and redirect URIs depart from OAuth/OIDC best practice.
// A non-compliant app is still created — the report tells the caller what to fix.
//
// The rules are one ordered table of { key, applies(ctx) } rows; the output
// order is the table order. Each row reads only the precomputed context, so a
// row can be understood (and tested) on its own.

import type { Language } from '../i18n/language.js';
import type { OidcAppType, OidcAuthMethodType, OidcConfig, OidcGrantType } from './types.js';
import { classifyRedirectUri, type RedirectUriClass } from './uri-class.js';
import { complianceMessage } from './compliance-messages.js';

export const COMPLIANCE_KEY_PREFIX = 'Application.OIDC.V1.';

export interface ComplianceProblem {
  /** Full key, e.g. 'Application.OIDC.V1.NoRedirectUris'. */
  key: string;
  /** The first redirect URI that causes the problem, when one does. */
  uri?: string;
}

/** What the rules look at; everything a rule needs is computed once here. */
export type ComplianceInput = Pick<OidcConfig, 'appType' | 'authMethodType' | 'grantTypes' | 'redirectUris'>;

type GrantBranch = 'implicit+code' | 'implicit' | 'code' | 'neither';

interface ComplianceContext {
  appType: OidcAppType;
  authMethodType: OidcAuthMethodType;
  has: (grant: OidcGrantType) => boolean;
  redirectUriCount: number;
  /** Which of the §6 redirect-check branches the grant set selects. */
  branch: GrantBranch;
  /** True for an empty list too (design §6): then no redirect check runs. */
  allHttps: boolean;
  /** First URI of each class that matters to a rule; undefined when there is none. */
  firstHttp?: string; // any http, loopback or not
  firstNonLoopbackHttp?: string;
  firstCustom?: string;
  firstNotHttps?: string;
}

function grantBranch(has: (g: OidcGrantType) => boolean): GrantBranch {
  const implicit = has('OIDC_GRANT_TYPE_IMPLICIT');
  const code = has('OIDC_GRANT_TYPE_AUTHORIZATION_CODE');
  if (implicit && code) return 'implicit+code';
  if (implicit) return 'implicit';
  if (code) return 'code';
  return 'neither';
}

function buildContext(config: ComplianceInput): ComplianceContext {
  const grants = new Set<string>(config.grantTypes);
  const has = (g: OidcGrantType) => grants.has(g);
  const classified = config.redirectUris.map((uri) => ({ uri, cls: classifyRedirectUri(uri) }));
  const first = (...classes: RedirectUriClass[]) => classified.find((u) => classes.includes(u.cls))?.uri;
  return {
    appType: config.appType,
    authMethodType: config.authMethodType,
    has,
    redirectUriCount: classified.length,
    branch: grantBranch(has),
    allHttps: classified.every((u) => u.cls === 'https'),
    firstHttp: first('http', 'http-loopback'),
    firstNonLoopbackHttp: first('http'),
    firstCustom: first('custom'),
    firstNotHttps: first('http', 'http-loopback', 'custom'),
  };
}

interface ComplianceRule {
  key: string;
  /** A warning is reported but leaves the app compliant. */
  warning?: true;
  applies: (c: ComplianceContext) => boolean;
  /** The URI to name in the message, if the problem is about one. */
  uri?: (c: ComplianceContext) => string | undefined;
}

const NATIVE: OidcAppType = 'OIDC_APP_TYPE_NATIVE';
const USER_AGENT: OidcAppType = 'OIDC_APP_TYPE_USER_AGENT';

// Redirect checks run only in their grant branch, and not at all when every URI is https.
const redirectChecks = (branch: GrantBranch) => (c: ComplianceContext) => c.branch === branch && !c.allHttps;

// The three problems of the implicit+code branch, named because the warning
// below is defined as "this branch ran and none of them applied".
const implicitAndCode = redirectChecks('implicit+code');
const icCustomNotNative = (c: ComplianceContext) => implicitAndCode(c) && !!c.firstCustom && c.appType !== NATIVE;
const icHttpUserAgent = (c: ComplianceContext) => implicitAndCode(c) && !!c.firstHttp && c.appType === USER_AGENT;
const icNativeNonLoopback = (c: ComplianceContext) =>
  implicitAndCode(c) && !!c.firstNonLoopbackHttp && c.appType === NATIVE;

const implicitOnly = redirectChecks('implicit');
const codeOnly = redirectChecks('code');

const PROBLEM_RULES: readonly ComplianceRule[] = [
  {
    key: 'NoRedirectUris',
    // A device-flow app without the code flow never redirects, so it needs none.
    applies: (c) =>
      c.redirectUriCount === 0 &&
      !(c.has('OIDC_GRANT_TYPE_DEVICE_CODE') && !c.has('OIDC_GRANT_TYPE_AUTHORIZATION_CODE')),
  },
  {
    key: 'GrantType.Refresh.NoAuthCode',
    applies: (c) =>
      c.has('OIDC_GRANT_TYPE_REFRESH_TOKEN') &&
      !c.has('OIDC_GRANT_TYPE_AUTHORIZATION_CODE') &&
      !c.has('OIDC_GRANT_TYPE_DEVICE_CODE'),
  },

  // IMPLICIT + AUTHORIZATION_CODE
  { key: 'Implicit.RedirectUris.CustomNotAllowed', applies: icCustomNotNative, uri: (c) => c.firstCustom },
  { key: 'Code.RedirectUris.HttpOnlyForWeb', applies: icHttpUserAgent, uri: (c) => c.firstHttp },
  { key: 'Native.RedirectUris.MustBeHttpLocalhost', applies: icNativeNonLoopback, uri: (c) => c.firstNonLoopbackHttp },
  {
    key: 'NotAllCombinationsAreAllowed',
    warning: true,
    // "Nothing so far made it non-compliant": in this branch NoRedirectUris cannot
    // apply (an empty list is all-https, so the branch is skipped) and neither can
    // Refresh.NoAuthCode (the branch has AUTHORIZATION_CODE), so only the three
    // rows above can have fired.
    applies: (c) => implicitAndCode(c) && !icCustomNotNative(c) && !icHttpUserAgent(c) && !icNativeNonLoopback(c),
    uri: (c) => c.firstNotHttps,
  },

  // IMPLICIT only
  {
    key: 'Implicit.RedirectUris.CustomNotAllowed',
    applies: (c) => implicitOnly(c) && !!c.firstCustom,
    uri: (c) => c.firstCustom,
  },
  {
    key: 'Native.RedirectUris.MustBeHttpLocalhost',
    applies: (c) => implicitOnly(c) && c.appType === NATIVE && !!c.firstNonLoopbackHttp,
    uri: (c) => c.firstNonLoopbackHttp,
  },
  {
    key: 'Implicit.RedirectUris.HttpNotAllowed',
    applies: (c) => implicitOnly(c) && c.appType !== NATIVE && !!c.firstHttp,
    uri: (c) => c.firstHttp,
  },

  // AUTHORIZATION_CODE only
  {
    key: 'Code.RedirectUris.HttpOnlyForWeb',
    applies: (c) => codeOnly(c) && c.appType === USER_AGENT && !!c.firstHttp,
    uri: (c) => c.firstHttp,
  },
  {
    key: 'Native.RedirectUris.MustBeHttpLocalhost',
    applies: (c) => codeOnly(c) && c.appType === NATIVE && !!c.firstNonLoopbackHttp,
    uri: (c) => c.firstNonLoopbackHttp,
  },
  {
    key: 'Code.RedirectUris.CustomOnlyForNative',
    applies: (c) => codeOnly(c) && c.appType !== NATIVE && !!c.firstCustom,
    uri: (c) => c.firstCustom,
  },

  // App type vs. auth method: public clients cannot keep a secret.
  {
    key: 'Native.AuthMethodType.NotNone',
    applies: (c) => c.appType === NATIVE && c.authMethodType !== 'OIDC_AUTH_METHOD_TYPE_NONE',
  },
  {
    key: 'UserAgent.AuthMethodType.NotNone',
    applies: (c) => c.appType === USER_AGENT && c.authMethodType !== 'OIDC_AUTH_METHOD_TYPE_NONE',
  },
];

/** The whole table, in output order: the summary row first, then the rules. */
export const COMPLIANCE_RULES: readonly ComplianceRule[] = [
  {
    key: 'NotCompliant',
    applies: (c) => PROBLEM_RULES.some((r) => !r.warning && r.applies(c)),
  },
  ...PROBLEM_RULES,
];

/** Every key the report can contain, without prefix (for tests and documentation). */
export const COMPLIANCE_KEYS: readonly string[] = [...new Set(COMPLIANCE_RULES.map((r) => r.key))];

const WARNING_KEYS: ReadonlySet<string> = new Set(
  COMPLIANCE_RULES.filter((r) => r.warning).map((r) => COMPLIANCE_KEY_PREFIX + r.key),
);

/** The compliance problems of a (normalized, stored) OIDC configuration, in report order. */
export function complianceProblems(config: ComplianceInput): ComplianceProblem[] {
  const ctx = buildContext(config);
  return COMPLIANCE_RULES.filter((r) => r.applies(ctx)).map((r) => {
    const uri = r.uri?.(ctx);
    return uri === undefined ? { key: COMPLIANCE_KEY_PREFIX + r.key } : { key: COMPLIANCE_KEY_PREFIX + r.key, uri };
  });
}

const shortKey = (key: string) =>
  key.startsWith(COMPLIANCE_KEY_PREFIX) ? key.slice(COMPLIANCE_KEY_PREFIX.length) : key;

/** True iff any problem other than a warning is present. */
export function isNoneCompliant(problems: readonly ComplianceProblem[]): boolean {
  return problems.some((p) => !WARNING_KEYS.has(p.key));
}

export interface LocalizedCompliance {
  noneCompliant: boolean;
  complianceProblems: { key: string; localizedMessage: string }[];
}

/** The report as the API returns it: every entry, the warning too, with a message in `lang`. */
export function localizeCompliance(problems: readonly ComplianceProblem[], lang: Language): LocalizedCompliance {
  return {
    noneCompliant: isNoneCompliant(problems),
    complianceProblems: problems.map((p) => ({
      key: p.key,
      localizedMessage: complianceMessage(shortKey(p.key), lang, p.uri),
    })),
  };
}
