// Which request paths belong to the OpenID Provider (hijacked by mount.ts),
// and the name a request log gives them: one of its routes, never the path as
// sent (only its query holds login_hint or id_token_hint, but an unknown path
// under /oauth/v2/ is client input too).
import { OIDC_ROUTES } from './configuration.js';

export const DISCOVERY_PATH = '/.well-known/openid-configuration';
/** RFC 8414's metadata: the same document (the issuer is an origin, so no path goes after the well-known part). */
export const AS_METADATA_PATH = '/.well-known/oauth-authorization-server';
const KNOWN = new Set<string>([DISCOVERY_PATH, AS_METADATA_PATH, ...Object.values(OIDC_ROUTES)]);
/** The device sign-in pages the library serves (its code_verification route, and /<uid> to resume after the login). */
const DEVICE = OIDC_ROUTES.code_verification;

export const isOidcPath = (path: string): boolean =>
  path === DISCOVERY_PATH || path === AS_METADATA_PATH || path.startsWith('/oauth/v2/') || path.startsWith('/oidc/v1/') || path === DEVICE || path.startsWith(`${DEVICE}/`);

/** "POST /oauth/v2/token" for a route of the provider; the prefix alone for any other path under it. */
export function oidcRouteOf(method: string, path: string): string {
  if (KNOWN.has(path)) return `${method} ${path}`;
  if (path.startsWith(`${DEVICE}/`)) return `${method} ${DEVICE}/…`;
  return `${method} ${path.startsWith('/oidc/v1/') ? '/oidc/v1/' : '/oauth/v2/'}…`;
}
