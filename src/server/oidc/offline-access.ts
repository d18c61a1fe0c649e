// offline_access as clients expect it, as ZITADEL does: an app allowed the
// refresh token grant (OIDC_GRANT_TYPE_REFRESH_TOKEN) that asks for
// `offline_access` in a code flow gets a refresh token, with no
// `prompt=consent` and no extra consent page. oidc-provider drops the scope
// from the authorization request unless prompt=consent is in it
// (lib/actions/authorization/scopes.js), which no client library sends by
// default. OpenID Connect Core §11 allows the OP other conditions permitting
// offline access: here the administrator's registration of the app for the
// refresh grant is that condition.
//
// The scope is put back, read from the request as sent, before the library
// looks for the grant (loadExistingGrant, configuration.ts) and before it
// stores a new interaction (interactions.url, with the org scope: org-scope.ts):
// from there on it is an ordinary requested scope — granted by the first-party
// grant or the consent page, in the code, and the library's own
// issueRefreshToken issues the refresh token (only to apps allowed the grant).
// Keyhold's API scope is untouched: it still needs its consent page.

import { ExtensionCheckFailed } from './extensions.js';
import { sentParams } from './pushed-requests.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const OFFLINE_ACCESS = 'offline_access';

const scopesOf = (scope: unknown): string[] => (typeof scope === 'string' ? scope.split(' ').filter(Boolean) : []);

/**
 * Whether this authorization request sent `offline_access` and may have it:
 * a code flow of an app allowed the refresh token grant.
 */
function offlineAccessAllowed(ctx: Any): boolean {
  const { oidc } = ctx;
  if (oidc?.route !== 'authorization') return false;
  if (!scopesOf(sentParams(ctx)?.scope).includes(OFFLINE_ACCESS)) return false;
  const responseType = String(oidc.params?.response_type ?? '');
  return responseType.split(' ').includes('code') && oidc.client?.grantTypeAllowed('refresh_token') === true;
}

/** `params.scope` with offline_access added back when this request may have it; true when it was added. */
export function keepOfflineAccess(ctx: Any, params: Any): boolean {
  if (!params || !offlineAccessAllowed(ctx)) return false;
  const scopes = scopesOf(params.scope);
  if (scopes.includes(OFFLINE_ACCESS)) return false;
  params.scope = [...scopes, OFFLINE_ACCESS].join(' ');
  return true;
}

/**
 * Start-up self-check: the client still says which grants it is allowed
 * (keepOfflineAccess's test); without it offline_access would go to no app.
 */
export function checkOfflineAccess(provider: Any): void {
  if (typeof provider?.Client?.prototype?.grantTypeAllowed !== 'function') {
    throw new ExtensionCheckFailed('Client.prototype.grantTypeAllowed is gone (offline-access.ts keepOfflineAccess)');
  }
}
