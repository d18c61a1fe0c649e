// The org scope `urn:keyhold:iam:org:id:{orgId}` (as ZITADEL's), kept for the
// login. oidc-provider drops every scope it does not know from the
// authorization request's parameters before it stores the interaction (when
// no resource indicator is asked: shared/check_resource.js filterStatics), and
// a scope with an org id in it cannot be listed in its `scopes`. So the login
// (interactions.ts, the login's org) would never see it, and a username two orgs' users hold
// could never log in. This extension puts the org scope back into the stored
// interaction's `scope`, read from the request as sent, in the one hook the
// library calls with the fresh interaction: `interactions.url`.
//
// Self-check: the interaction model still has `params`, `exp` and `save(ttl)`.

import { sentParams } from './pushed-requests.js';

import { ORG_SCOPE_PREFIX } from '../../domain/oidc/scope-names.js';

export { ORG_SCOPE_PREFIX };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** The org scope of a space-separated scope string, or undefined. */
export function orgScopeIn(scope: unknown): string | undefined {
  if (typeof scope !== 'string') return undefined;
  return scope.split(' ').find((s) => s.startsWith(ORG_SCOPE_PREFIX) && s.length > ORG_SCOPE_PREFIX.length);
}

/**
 * Called from `interactions.url` (configuration.ts): adds the org scope the
 * request sent back to the stored interaction, and saves it again when that or
 * `changed` (another scope put back: offline-access.ts) changed its params.
 */
export async function keepOrgScope(ctx: Any, interaction: Any, changed = false): Promise<void> {
  // The authorization request's parameters as sent: the query or body, or its request object's or pushed request's claims.
  const org = orgScopeIn(sentParams(ctx)?.scope);
  if (!org && !changed) return;
  if (!interaction?.params || typeof interaction.save !== 'function' || typeof interaction.exp !== 'number') {
    throw new Error('oidc-provider changed: the interaction has no params, exp or save(ttl); the org scope extension (src/server/oidc/org-scope.ts) needs a look');
  }
  const scope = String(interaction.params.scope ?? '');
  if (org && !orgScopeIn(scope)) interaction.params.scope = scope ? `${scope} ${org}` : org;
  else if (!changed) return;
  // Saved again with the time it has left (it was saved a moment ago).
  await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)));
}
