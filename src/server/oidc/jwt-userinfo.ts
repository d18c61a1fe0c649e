// Userinfo for JWT access tokens (accessTokenType JWT). oidc-provider neither
// stores JWT access tokens nor accepts a token with an audience at its
// userinfo endpoint; ZITADEL accepts both token kinds there. So a GET/POST to
// /oidc/v1/userinfo whose bearer token is a JWT is answered here: signature by
// one of Keyhold's current keys, `typ` at+jwt, issuer, expiry, the client still
// an active app of Keyhold and the user still active, issued after the user's
// sessions last ended (the token is not stored, so it cannot be deleted with
// them: store/projections/oidc-sessions.ts), the token's sender
// constraint (DPoP: a bound token only as `DPoP <token>` with a proof of its
// key, domain/oidc/dpop-proof.ts), then the same claims the library gives for
// an opaque token (account.ts, by the token's scope).
import { checkSenderConstraint, DPOP_ALGS, type ClaimOnce, type SenderRefusal } from '../../domain/oidc/dpop-proof.js';
import { issuedBeforeEnd } from '../../domain/oidc/ended-sessions.js';
import type { ReadModel } from '../../queries/read-model.js';
import { checkAccessJwt } from './access-jwt.js';
import { accountClaims, type RolesOf } from './account.js';
import { clientMetadata } from './clients.js';
import { OIDC_ROUTES } from './configuration.js';
import { boundKey } from './machine-clients.js';

export interface JwtUserinfoDeps {
  issuer: () => string;
  signingKeys: () => Record<string, unknown>[];
  read: Pick<ReadModel, 'appByClientId' | 'user' | 'userMetadataOf'>;
  rolesOf: RolesOf;
  /** Whether the user may still log in to the project (its login checks), as for opaque tokens (account.ts). */
  mayUseClient: (userId: string, clientId: string) => Promise<boolean>;
  /** Claims a DPoP proof's id once (OidcStateStore.insertNew). */
  claimProof: ClaimOnce;
  /** When the user's sessions last ended (OidcStateStore.sessionsEndedAt). */
  sessionsEndedAt: (userId: string) => Promise<number | undefined>;
}

/** A JWT as the request presented it: `Bearer` or `DPoP`, with the request's DPoP proof. */
export interface PresentedJwt {
  scheme: 'bearer' | 'dpop';
  token: string;
  proof: string | undefined;
  method: string;
}

/** The access token of the request when it is a JWT (under Bearer or DPoP), else undefined (the library answers). */
export function jwtCredentials(authorization: string | undefined): { scheme: 'bearer' | 'dpop'; token: string } | undefined {
  const m = /^(Bearer|DPoP)\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i.exec(authorization ?? '');
  return m ? { scheme: m[1]!.toLowerCase() === 'dpop' ? 'dpop' : 'bearer', token: m[2]! } : undefined;
}

type Answer = { status: number; body: Record<string, unknown>; wwwAuthenticate?: string };

// The description also goes into a header, so it must stay plain ASCII (Node refuses
// other characters there, and the request would die instead of answering 401).
const invalid = (description: string, scheme = 'Bearer', error = 'invalid_token'): Answer => ({
  status: 401,
  body: { error, error_description: description },
  wwwAuthenticate: `${scheme} error="${error}", error_description="${description.replace(/"/g, "'")}"${scheme === 'DPoP' ? `, algs="${DPOP_ALGS.join(' ')}"` : ''}`,
});

/** RFC 9449 §7.1: a refused proof is `invalid_dpop_proof`; a token sent under the wrong scheme `invalid_token`. */
const REFUSALS: Readonly<Record<SenderRefusal['kind'], (problem: string) => Answer>> = {
  required: (problem) => invalid(problem, 'DPoP'),
  invalid: (problem) => invalid(problem, 'DPoP', 'invalid_dpop_proof'),
  unbound: (problem) => invalid(problem),
};

export async function jwtUserinfo(presented: PresentedJwt, deps: JwtUserinfoDeps): Promise<Answer> {
  const { token } = presented;
  const checked = checkAccessJwt(token, deps.issuer(), deps.signingKeys());
  if (!('payload' in checked)) return invalid(checked.problem === 'not an access token' ? 'not an access token' : 'invalid token');
  const { payload } = checked;
  if (typeof payload.client_id !== 'string' || typeof payload.sub !== 'string') return invalid('invalid token');
  const scope = typeof payload.scope === 'string' ? payload.scope : '';
  if (!scope.split(' ').includes('openid')) return { status: 403, body: { error: 'insufficient_scope', error_description: 'the token has no openid scope' } };
  const app = await deps.read.appByClientId(payload.client_id);
  // A deactivated app's tokens stop here as its opaque ones do at the adapter (DeactivateApp).
  const client = app?.state === 'active' ? clientMetadata(app) : undefined;
  if (!client) return invalid('the app of the token no longer exists or is deactivated');
  const account = await accountClaims({ oidc: { client } }, payload.sub, deps.read, deps.rolesOf);
  if (!account) return invalid('the user of the token no longer exists or is not active');
  if (!(await deps.mayUseClient(payload.sub, payload.client_id))) return invalid('the user of the token may no longer log in to its app');
  if (issuedBeforeEnd(payload.iat, await deps.sessionsEndedAt(payload.sub))) return invalid('the sessions of the user of the token ended after it was issued');
  const refusal = await checkSenderConstraint({ ...presented, url: deps.issuer() + OIDC_ROUTES.userinfo }, boundKey(payload).jkt, deps.claimProof);
  if (refusal) return REFUSALS[refusal.kind](refusal.problem);
  const claims = await account.claims('userinfo', scope);
  // Only the claims of the scopes the token carries (as the library filters for opaque tokens).
  const allowed = new Set(['sub', ...claimsOfScopes(scope)]);
  return { status: 200, body: Object.fromEntries(Object.entries(claims).filter(([k, v]) => allowed.has(k) && v !== undefined)) };
}

const SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = {
  profile: ['name', 'given_name', 'family_name', 'preferred_username', 'locale', 'updated_at'],
  email: ['email', 'email_verified'],
  'urn:keyhold:iam:org:project:roles': ['urn:keyhold:iam:org:project:roles'],
  'urn:zitadel:iam:user:metadata': ['urn:zitadel:iam:user:metadata'],
};

function claimsOfScopes(scope: string): string[] {
  return scope.split(' ').flatMap((s) => SCOPE_CLAIMS[s] ?? []);
}
