// Bearer token → Caller: hash lookup of the personal access token (with its
// user), expiry check, then the user's memberships.
//
// Resolved callers are cached, because without it every request pays two
// queries before its own work (bench: the largest share of the round trips of
// AddOIDCApp). The cache (./fresh-cache.ts: found values only, TTL, cleared on
// this process's appends) is keyed by the token's SHA-256 hash (the plaintext
// is not kept); only valid tokens are cached; the token's expiry is checked on
// every use, so an expired token is refused at the same instant as without the
// cache; any membership, token or user-lifecycle event appended by this
// process clears it; TTL_MS = 1 s bounds how long a change written by another
// Keyhold process sharing the PostgreSQL takes to show here.
import type { Caller } from '../commands/caller.js';
import type { EventTypeName, StoredEvent } from '../domain/events/index.js';
import { hashToken } from '../domain/identity/tokens.js';
import { freshCache } from './fresh-cache.js';
import type { ReadModel } from './read-model.js';

/** A bearer token → its caller, or undefined when the token is unknown or expired. */
export type ResolveToken = (token: string) => Promise<Caller | undefined>;

export const TTL_MS = 1_000;
export const MAX_ENTRIES = 10_000;

/** Events after which a cached caller may be wrong: its roles or its token changed. */
const IDENTITY_EVENTS: ReadonlySet<EventTypeName> = new Set<EventTypeName>([
  'instance.member.added',
  'org.member.added',
  'project.member.added',
  'user.pat.added',
  'user.pat.removed',
  'user.deactivated',
  'user.reactivated',
  'user.locked',
  'user.unlocked',
  'user.removed',
]);

interface Entry {
  caller: Caller;
  /** The token's own expiry (ms since epoch), or Infinity. */
  expiresAt: number;
}

export function tokenResolver(
  read: Pick<ReadModel, 'patByHash' | 'membershipsOf'>,
  options: {
    ttlMs?: number;
    /** The event store's onAppended: this process's appends that may make a cached caller wrong. */
    onAppended?: (listener: (events: readonly StoredEvent[]) => void) => unknown;
  } = {},
): ResolveToken {
  const cache = freshCache<Entry>(
    async (hash) => {
      const found = await read.patByHash(hash);
      // A deactivated or locked user's tokens do not authenticate (a removed user has none).
      if (!found || found.user.state !== 'active') return undefined;
      const rows = await read.membershipsOf(found.user.id);
      return {
        caller: {
          userId: found.user.id,
          orgId: found.user.orgId,
          tokenId: found.pat.id,
          memberships: rows.map((m) => ({ scopeType: m.scopeType, scopeId: m.scopeId, orgId: m.orgId, roles: m.roles })),
        },
        expiresAt: found.pat.expiresAt ? found.pat.expiresAt.getTime() : Infinity,
      };
    },
    { ttlMs: options.ttlMs ?? TTL_MS, maxEntries: MAX_ENTRIES },
  );
  options.onAppended?.((events) => {
    if (events.some((e) => IDENTITY_EVENTS.has(e.type as EventTypeName))) cache.clear();
  });

  return async (token) => {
    if (token.length > 256) return undefined;
    const entry = await cache.get(hashToken(token));
    if (!entry || entry.expiresAt <= Date.now()) return undefined;
    return entry.caller;
  };
}

/** The scope that asks for an access token for Keyhold's own API (issue 17; ZITADEL's `urn:zitadel:iam:org:project:id:zitadel:aud`). */
export const API_AUDIENCE_SCOPE = 'urn:keyhold:iam:api:aud';

/** What the API needs of a stored OpenID access token (oidc-provider's AccessToken payload; store/oidc-store.ts). */
export interface StoredAccessToken {
  accountId?: unknown;
  clientId?: unknown;
  scope?: unknown;
  grantId?: unknown;
  exp?: unknown;
}

/**
 * PATs first; otherwise an opaque OpenID access token whose audience is
 * Keyhold's API — granted the scope `urn:keyhold:iam:api:aud` (the console
 * asks for it), by an app an instance administrator allows it (SetAppAPIAccess).
 * A token an app got for its own use (without that scope) is refused: a
 * third-party app holding a user's token must not act as that user here. JWT
 * access tokens are for their app's project, never for this API. Looked up on
 * every use (not cached): a revoked token is refused at once. It acts with the
 * roles its user holds at each call, never with more.
 */
export function withOidcAccessTokens(
  resolvePat: ResolveToken,
  deps: {
    findAccessToken: (token: string) => Promise<StoredAccessToken | undefined>;
    grantExists: (grantId: string) => Promise<boolean>;
    read: Pick<ReadModel, 'user' | 'membershipsOf' | 'machineByClientId'>;
    /** Issue 18: a stored opaque client-credentials token (a machine user's). */
    findClientCredentials?: (token: string) => Promise<StoredAccessToken | undefined>;
    /** Issue 18: a machine user's JWT access token, verified (signature, issuer, expiry, audience). */
    machineJwt?: (token: string) => { clientId: string; userId: string } | undefined;
    /** Whether the app with this client id may use Keyhold's API now (SetAppAPIAccess; read within the client cache's 1 s). */
    apiAccessAllowed: (clientId: string) => Promise<boolean>;
  },
): ResolveToken {
  /** The machine user holding this client id now, active: it acts as with a PAT. */
  const machineCaller = async (clientId: string, userId?: string): Promise<Caller | undefined> => {
    const machine = await deps.read.machineByClientId(clientId);
    if (!machine || machine.state !== 'active' || (userId !== undefined && machine.userId !== userId)) return undefined;
    const rows = await deps.read.membershipsOf(machine.userId);
    return {
      userId: machine.userId,
      orgId: machine.orgId,
      tokenId: 'oidc:client_credentials',
      memberships: rows.map((m) => ({ scopeType: m.scopeType, scopeId: m.scopeId, orgId: m.orgId, roles: m.roles })),
    };
  };
  return async (token) => {
    const pat = await resolvePat(token);
    if (pat) return pat;
    if (token.includes('.')) {
      // Only a machine user's JWT (for this API) is taken; an app's JWT is for its project.
      const jwt = token.length <= 8192 ? deps.machineJwt?.(token) : undefined;
      return jwt ? machineCaller(jwt.clientId, jwt.userId) : undefined;
    }
    if (token.length > 256) return undefined;
    const stored = await deps.findAccessToken(token);
    if (!stored) {
      const credentials = await deps.findClientCredentials?.(token);
      if (!credentials || typeof credentials.clientId !== 'string') return undefined;
      if (typeof credentials.exp === 'number' && credentials.exp * 1000 <= Date.now()) return undefined;
      return machineCaller(credentials.clientId);
    }
    if (typeof stored.accountId !== 'string') return undefined;
    const scopes = typeof stored.scope === 'string' ? stored.scope.split(' ') : [];
    if (!scopes.includes(API_AUDIENCE_SCOPE)) return undefined;
    if (typeof stored.exp === 'number' && stored.exp * 1000 <= Date.now()) return undefined;
    // Only while an instance administrator allows its app the API (a refusal ends the tokens it already has).
    if (typeof stored.clientId !== 'string' || !(await deps.apiAccessAllowed(stored.clientId))) return undefined;
    // A revoked grant (logout, refresh-token reuse) ends its access tokens here as at userinfo.
    if (typeof stored.grantId === 'string' && !(await deps.grantExists(stored.grantId))) return undefined;
    const user = await deps.read.user(stored.accountId);
    if (!user) return undefined;
    const rows = await deps.read.membershipsOf(user.id);
    return {
      userId: user.id,
      orgId: user.orgId,
      tokenId: `oidc:${typeof stored.grantId === 'string' ? stored.grantId : 'token'}`,
      memberships: rows.map((m) => ({ scopeType: m.scopeType, scopeId: m.scopeId, orgId: m.orgId, roles: m.roles })),
    };
  };
}
