// Keyhold's management API as a protected resource, on the OpenID Provider's
// side. The scope urn:keyhold:iam:api:aud turns an app's access token into a
// credential for Keyhold's API that acts as its user (queries/callers.ts), so:
//
// - Only apps an instance administrator allowed (SetAppAPIAccess) may ask for
//   it. The others' client metadata carries a `scope` allow-list without it
//   (clients.ts): the library then answers invalid_scope at the authorization
//   and the device authorization endpoints (lib/actions/authorization/scopes.js).
// - It is never granted without its user's consent: the first-party grant
//   leaves it out (first-party-grant.ts), so the library's consent check finds
//   it missing — the consent page follows (src/login/steps/consent.ts: it shows the page whenever
//   the missing scopes hold this one), and prompt=none is consent_required.
//   The consent lives in the grant of the sign-in session: a new sign-in asks again.
// - A device sign-in (RFC 8628) that asks for it passes the consent page every
//   time: a grant of an earlier device sign-in is not reused for it.
import { API_AUDIENCE_SCOPE } from '../../queries/callers.js';
import { METADATA_SCOPE, ROLES_SCOPE } from './account.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

export { API_AUDIENCE_SCOPE };

/** The scopes every app may ask for. */
const APP_SCOPES = ['openid', 'offline_access', 'profile', 'email', ROLES_SCOPE, METADATA_SCOPE] as const;

/** Every scope the provider knows (configuration.ts `scopes`; discovery's scopes_supported). */
export const PROVIDER_SCOPES: readonly string[] = [...APP_SCOPES, API_AUDIENCE_SCOPE];

/** An app's `scope` client metadata: the library refuses a known scope outside it (invalid_scope). */
export const scopeAllowList = (apiAccess: boolean): string => (apiAccess ? PROVIDER_SCOPES : APP_SCOPES).join(' ');

/** Whether a space-separated scope value holds the API audience. */
export const holdsApiAudience = (scope: unknown): boolean => typeof scope === 'string' && scope.split(' ').includes(API_AUDIENCE_SCOPE);

/** What a grant made without a consent page may hold: everything asked but the API audience. */
export const grantableWithoutConsent = (scopes: readonly string[]): string[] => scopes.filter((s) => s !== API_AUDIENCE_SCOPE);

/** Whether the consent prompt of this interaction is missing the API audience: then the page is shown, never skipped. */
export function consentNeededForApi(interaction: Any): boolean {
  const missing: unknown = interaction?.prompt?.details?.missingOIDCScope;
  return Array.isArray(missing) && missing.includes(API_AUDIENCE_SCOPE);
}

const DEVICE_ROUTES = new Set(['code_verification', 'device_resume']);

/**
 * Whether a device sign-in must not reuse an existing grant: it asks for the
 * API audience and has not passed this sign-in's consent page yet.
 */
export function deviceAsksApiAudience(ctx: Any): boolean {
  const { oidc } = ctx;
  return DEVICE_ROUTES.has(oidc.route) && !oidc.result?.consent && holdsApiAudience(oidc.params?.scope);
}
