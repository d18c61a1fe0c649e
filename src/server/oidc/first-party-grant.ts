// Every app of Keyhold is first-party: the login asks for consent only when the
// app asks for it (prompt=consent; src/login/steps/consent.ts) or for
// Keyhold's own API (api-audience.ts), and otherwise grants what was asked.
// This is that grant, made where the library first looks for one
// (loadExistingGrant, oidc-provider's documented place to skip consent for
// first-party clients), instead of in a consent interaction of its own after
// the login.
//
// Why: that interaction cost every login two more requests (a second resume
// and a page of the login UI that only granted and went on) and 26 of its 85
// SQL statements — a new interaction stored, read twice and deleted, sessions
// and the project's access read again (counted with log_statement = all);
// logins 60–76 → 86–88/s at c=64 on PostgreSQL (paired bench runs).
//
// The grant holds what the consent prompt's checks would have found missing
// from an empty grant — the requested OIDC scopes and resource scopes
// (oidc-provider's lib/helpers/interaction_policy/prompts/consent.js) — which
// is what interactions.ts grantConsent grants from the prompt's details. Claims
// by name (the claims parameter) are off in Keyhold; were they asked, their
// check would still find them missing and the consent interaction would run.
// Where the consent interaction still has work to do, it still runs: a
// requested consent page, a native app (its consent check always asks, for the
// "you may close this window" page), and every route but the authorization
// endpoint and its resume (the device flow's pages). And the grant is made
// only where no login can follow on the same request (prompt=login, max_age,
// id_token_hint): there the session's account may not be the one that logs in,
// and a grant stored for it would be an event of a user who never asked.
// Nor does it ever hold the scope of Keyhold's own API: that one is granted on
// the consent page only (api-audience.ts).
import { grantableWithoutConsent } from './api-audience.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const ROUTES = new Set(['authorization', 'resume']);

/**
 * Whether the login prompt may still ask for a login on this request (the
 * grant is then made after it, not for the session's account before it):
 * not when the login just happened; otherwise when the app asks for one
 * (prompt=login), or its max_age or id_token_hint may.
 */
function loginMayFollow(oidc: Any): boolean {
  if (oidc.result?.login) return false;
  return oidc.prompts.has('login') || oidc.params.max_age !== undefined || oidc.params.id_token_hint !== undefined || oidc.params.claims !== undefined;
}

/** Whether this request would pass the consent interaction without a page of its own, with no login to come. */
export function grantsWithoutConsentPage(ctx: Any): boolean {
  const { oidc } = ctx;
  return (
    ROUTES.has(oidc.route) &&
    !oidc.prompts.has('consent') &&
    oidc.client.applicationType !== 'native' &&
    !oidc.params.authorization_details &&
    !loginMayFollow(oidc)
  );
}

/** A saved grant of what this authorization request asks, for the session's account; undefined when it asks for nothing grantable. */
export async function firstPartyGrant(ctx: Any): Promise<Any> {
  const { oidc } = ctx;
  const grant = new oidc.provider.Grant({ accountId: oidc.session.accountId, clientId: oidc.client.clientId });
  // Never the API audience: its consent page always runs (api-audience.ts).
  const scopes = grantableWithoutConsent([...oidc.requestParamOIDCScopes]);
  if (scopes.length) grant.addOIDCScope(scopes.join(' '));
  const requested = grantableWithoutConsent([...oidc.requestParamScopes]);
  for (const [indicator, server] of Object.entries(oidc.resourceServers ?? {}) as [string, Any][]) {
    const granted = requested.filter((s: string) => server.scopes.has(s));
    if (granted.length) grant.addResourceScope(indicator, granted.join(' '));
  }
  // Nothing to grant (only scopes no resource knows): the library's own refusal follows, with no empty grant stored.
  if (!scopes.length && !Object.keys(grant.resources ?? {}).length) return undefined;
  await grant.save();
  return grant;
}
