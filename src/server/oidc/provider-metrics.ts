// What the OpenID Provider's own events tell the operator (metrics.ts):
//   grant.success          — the token endpoint answered tokens: counted by
//                            its grant type and the client's app type
//   authorization.success  — the authorization endpoint answered; counted as
//                            `implicit` when its answer holds a token or an ID
//                            token (implicit and hybrid response types)
//   grant.error            — a refusal; a spent refresh token, code or device
//                            code presented again is a reuse (the grant is
//                            revoked: single-use.ts, refresh-rotation.ts),
//                            told by the error's detail
// Labels come from closed sets: an unknown grant type or client is `other`,
// never its value.
import type { AppType, GrantType, IdentityObserver, ReusedToken } from '../metrics.js';
import { machineUserOf } from './machine-clients.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const GRANT_TYPES: ReadonlyMap<string, GrantType> = new Map([
  ['authorization_code', 'authorization_code'],
  ['refresh_token', 'refresh_token'],
  ['client_credentials', 'client_credentials'],
  ['urn:ietf:params:oauth:grant-type:device_code', 'device_code'],
]);

const APP_TYPES: ReadonlySet<string> = new Set(['web', 'user_agent', 'native']);

/**
 * A reuse, by the refusal's detail (the client is told only "grant request is
 * invalid"): the library's words for a spent code or device code
 * (helpers/grant_source.js) and a used refresh token
 * (actions/grants/refresh_token.js), which single-use.ts answers in the same
 * words when a concurrent request won the consume.
 */
const REUSES: ReadonlyMap<string, ReusedToken> = new Map([
  ['refresh token already used', 'refresh_token'],
  ['authorization code already consumed', 'authorization_code'],
  ['device code already consumed', 'device_code'],
]);

export function appTypeOf(client: Any): AppType {
  if (!client) return 'other';
  if (machineUserOf(client)) return 'machine';
  const type = client.keyhold_app_type ?? client.keyholdAppType;
  return typeof type === 'string' && APP_TYPES.has(type) ? (type as AppType) : 'other';
}

export function countProviderEvents(provider: Any, observer: Pick<IdentityObserver, 'tokensIssued' | 'reuseDetected'>): void {
  provider.on('grant.success', (ctx: Any) => {
    const grantType = ctx?.oidc?.params?.grant_type;
    observer.tokensIssued(typeof grantType === 'string' ? (GRANT_TYPES.get(grantType) ?? 'other') : 'other', appTypeOf(ctx?.oidc?.client));
  });
  provider.on('authorization.success', (ctx: Any, out: Any) => {
    if (out?.access_token || out?.id_token) observer.tokensIssued('implicit', appTypeOf(ctx?.oidc?.client));
  });
  provider.on('grant.error', (_ctx: Any, err: Any) => {
    const token = err?.error === 'invalid_grant' && typeof err.error_detail === 'string' ? REUSES.get(err.error_detail) : undefined;
    if (token) observer.reuseDetected(token);
  });
}
