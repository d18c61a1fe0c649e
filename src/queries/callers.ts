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
import type { Caller } from '../access/caller.js';
import type { EventTypeName, StoredEvent } from '../domain/events/index.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import { hashToken } from '../domain/identity/tokens.js';
import { checkSenderConstraint, type ClaimOnce, type Presented, type SenderRefusal } from '../domain/oidc/dpop-proof.js';
import { SECRET_VERSION_CLAIM, secretVersion } from '../domain/oidc/client-secret.js';
import { issuedBeforeEnd } from '../domain/oidc/ended-sessions.js';
import { freshCache } from './fresh-cache.js';
import { userIsLive, type ReadModel } from './read-model.js';

/** A personal access token → its caller, or undefined when the token is unknown or expired. */
export type ResolvePat = (token: string) => Promise<Caller | undefined>;

/**
 * A token as a request presented it (its scheme, the DPoP proof and what the
 * proof is checked against) → its caller; undefined when the token is
 * unknown, expired or no longer good; a KeyholdError when it is good but was
 * presented wrongly (a bound token without its proof, a refused proof).
 */
export type ResolveToken = (presented: Presented) => Promise<Caller | undefined>;

export const TTL_MS = 1_000;
export const MAX_ENTRIES = 10_000;

/** Events after which a cached caller may be wrong: its roles or its token changed. */
const IDENTITY_EVENTS: ReadonlySet<EventTypeName> = new Set<EventTypeName>([
  'instance.member.added',
  'org.member.added',
  'org.member.changed',
  'org.member.removed',
  // A deactivated org's users' tokens are refused (read-model.ts userIsLive).
  'org.deactivated',
  'org.reactivated',
  'org.removed',
  'project.member.added',
  'project.member.changed',
  'project.member.removed',
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
): ResolvePat {
  const cache = freshCache<Entry>(
    async (hash) => {
      const found = await read.patByHash(hash);
      // A deactivated or locked user's tokens do not authenticate (a removed user has none).
      if (!found || !userIsLive(found.user)) return undefined;
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

/** The scope that asks for an access token for Keyhold's own API (ZITADEL's `urn:zitadel:iam:org:project:id:zitadel:aud`). */
export const API_AUDIENCE_SCOPE = 'urn:keyhold:iam:api:aud';

/** What the API needs of a stored OpenID access token (oidc-provider's AccessToken or ClientCredentials payload; store/oidc-store.ts). */
export interface StoredAccessToken {
  accountId?: unknown;
  clientId?: unknown;
  scope?: unknown;
  grantId?: unknown;
  exp?: unknown;
  /** The thumbprint of the key the token is bound to (DPoP), when it is. */
  jkt?: unknown;
  /** Claims the token carries beyond the standard ones (a machine token's secret version). */
  extra?: Record<string, unknown>;
}

/** A machine user's JWT access token, verified: its client, its user, when it was issued (s), and the key it is bound to (`cnf.jkt`). */
export interface MachineJwt {
  clientId: string;
  userId: string;
  iat: number;
  /** The secret it was got with (domain/oidc/client-secret.ts secretVersion); '' when it names none. */
  secretVersion: string;
  jkt?: string;
}

/** A sender-constraint refusal → the API's reason. */
const REFUSALS: Readonly<Record<SenderRefusal['kind'], (problem: string) => KeyholdError>> = {
  required: () => new KeyholdError('DPOP_PROOF_REQUIRED'),
  invalid: (problem) => new KeyholdError('DPOP_PROOF_INVALID', { problem }),
  unbound: () => new KeyholdError('DPOP_TOKEN_NOT_BOUND'),
};

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * Every path from a token to a caller of the API, each checking what the
 * token stands on at every use (docs/security.md, section 1):
 * - a personal access token: its user active (tokenResolver, above);
 * - an opaque OpenID access token whose audience is Keyhold's API (granted the
 *   scope `urn:keyhold:iam:api:aud`): not expired, its grant still there
 *   (a logout, a reuse, ended sessions revoke it), the app it was issued to
 *   still an active app that an instance administrator allows the API
 *   (SetAppAPIAccess: a refusal ends the tokens it already has), its user
 *   active; it acts with the roles its user holds at each call, never more. A
 *   token an app got for its own use (without that scope) is refused: a
 *   third-party app holding a user's token must not act as that user here. JWT
 *   access tokens are for their app's project, never for this API;
 * - a machine user's client-credentials token, opaque or JWT: the machine user
 *   holding that client id now, active; a JWT (never stored, so not deleted
 *   when the user's sessions end) issued after they last ended.
 * Then the token's sender constraint (DPoP): a bound token only with a proof of
 * its key for this request (domain/oidc/dpop-proof.ts).
 * Users, apps and machines are read through the 1 s caches (callers,
 * clients, accounts): the bound a PAT has. The stored tokens and grants are
 * read on every use: a revoked or ended one is refused at once.
 */
export function withOidcAccessTokens(
  resolvePat: ResolvePat,
  deps: {
    findAccessToken: (token: string) => Promise<StoredAccessToken | undefined>;
    grantExists: (grantId: string) => Promise<boolean>;
    read: Pick<ReadModel, 'user' | 'membershipsOf' | 'machineByClientId' | 'appByClientId'>;
    /** A stored opaque client-credentials token (a machine user's). */
    findClientCredentials: (token: string) => Promise<StoredAccessToken | undefined>;
    /** A machine user's JWT access token, verified (signature, issuer, expiry, audience). */
    machineJwt: (token: string) => MachineJwt | undefined;
    /** Claims a DPoP proof's id once (OidcStateStore.insertNew). */
    claimProof: ClaimOnce;
    /** When the user's sessions last ended (ms; OidcStateStore.sessionsEndedAt): a JWT, never stored, is checked against it. */
    sessionsEndedAt: (userId: string) => Promise<number | undefined>;
  },
): ResolveToken {
  const { read } = deps;
  const callerOf = async (userId: string, orgId: string, tokenId: string): Promise<Caller> => {
    const rows = await read.membershipsOf(userId);
    return { userId, orgId, tokenId, memberships: rows.map((m) => ({ scopeType: m.scopeType, scopeId: m.scopeId, orgId: m.orgId, roles: m.roles })) };
  };
  /** The machine user holding this client id now, active, whose secret is the one the token was got with: it acts as with a PAT. */
  const machineCaller = async (clientId: string, token: { userId?: string; secretVersion: unknown }): Promise<Caller | undefined> => {
    const machine = await read.machineByClientId(clientId);
    if (!machine || machine.state !== 'active') return undefined;
    if (token.userId !== undefined && machine.userId !== token.userId) return undefined;
    if (secretVersion(machine.clientSecretHash) !== token.secretVersion) return undefined;
    return callerOf(machine.userId, machine.orgId, 'oidc:client_credentials');
  };
  const live = (token: StoredAccessToken) => typeof token.exp !== 'number' || token.exp * 1000 > Date.now();

  /** The caller the token stands for and the key it is bound to, or undefined. */
  const find = async (token: string): Promise<{ caller: Caller; jkt?: string } | undefined> => {
    const pat = await resolvePat(token);
    if (pat) return { caller: pat };
    if (token.includes('.')) {
      // Only a machine user's JWT (for this API) is taken; an app's JWT is for its project.
      const jwt = token.length <= 8192 ? deps.machineJwt(token) : undefined;
      if (!jwt) return undefined;
      const [caller, endedAt] = await Promise.all([machineCaller(jwt.clientId, jwt), deps.sessionsEndedAt(jwt.userId)]);
      if (!caller || issuedBeforeEnd(jwt.iat, endedAt)) return undefined;
      return { caller, jkt: jwt.jkt };
    }
    if (token.length > 256) return undefined;
    const stored = await deps.findAccessToken(token);
    if (!stored) {
      const credentials = await deps.findClientCredentials(token);
      const clientId = text(credentials?.clientId);
      const caller = credentials && clientId && live(credentials) ? await machineCaller(clientId, { secretVersion: credentials.extra?.[SECRET_VERSION_CLAIM] }) : undefined;
      return caller ? { caller, jkt: text(credentials!.jkt) } : undefined;
    }
    const accountId = text(stored.accountId);
    const clientId = text(stored.clientId);
    const grantId = text(stored.grantId);
    if (!accountId || !clientId || !grantId || !live(stored)) return undefined;
    if (!String(stored.scope ?? '').split(' ').includes(API_AUDIENCE_SCOPE)) return undefined;
    const [granted, app, user] = await Promise.all([deps.grantExists(grantId), read.appByClientId(clientId), read.user(accountId)]);
    if (!granted || app?.state !== 'active' || app.apiAccess !== true || !user || !userIsLive(user)) return undefined;
    return { caller: await callerOf(user.id, user.orgId, `oidc:${grantId}`), jkt: text(stored.jkt) };
  };

  return async (presented) => {
    const found = await find(presented.token);
    if (!found) return undefined;
    const refusal = await checkSenderConstraint(presented, found.jkt, deps.claimProof);
    if (refusal) throw REFUSALS[refusal.kind](refusal.problem);
    return found.caller;
  };
}
