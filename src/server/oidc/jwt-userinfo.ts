// Userinfo for JWT access tokens (accessTokenType JWT). oidc-provider neither
// stores JWT access tokens nor accepts a token with an audience at its
// userinfo endpoint; ZITADEL accepts both token kinds there. So a GET/POST to
// /oidc/v1/userinfo whose bearer token is a JWT is answered here: signature by
// one of Keyhold's current keys, `typ` at+jwt, issuer, expiry, the client still
// an app of Keyhold and the user still there, then the same claims the library
// gives for an opaque token (account.ts, by the token's scope).
import type { ReadModel } from '../../queries/read-model.js';
import { checkAccessJwt } from './access-jwt.js';
import { accountClaims, type RolesOf } from './account.js';
import { clientMetadata } from './clients.js';

export interface JwtUserinfoDeps {
  issuer: () => string;
  signingKeys: () => Record<string, unknown>[];
  read: Pick<ReadModel, 'appByClientId' | 'user'>;
  rolesOf: RolesOf;
}

/** The bearer token of the request when it is a JWT, else undefined (the library answers). */
export function jwtBearer(authorization: string | undefined): string | undefined {
  const m = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i.exec(authorization ?? '');
  return m?.[1];
}

type Answer = { status: number; body: Record<string, unknown>; wwwAuthenticate?: string };

// The description also goes into a header, so it must stay plain ASCII (Node refuses
// other characters there, and the request would die instead of answering 401).
const invalid = (description: string): Answer => ({
  status: 401,
  body: { error: 'invalid_token', error_description: description },
  wwwAuthenticate: `Bearer error="invalid_token", error_description="${description}"`,
});

export async function jwtUserinfo(token: string, deps: JwtUserinfoDeps): Promise<Answer> {
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
  const claims = await account.claims('userinfo', scope);
  // Only the claims of the scopes the token carries (as the library filters for opaque tokens).
  const allowed = new Set(['sub', ...claimsOfScopes(scope)]);
  return { status: 200, body: Object.fromEntries(Object.entries(claims).filter(([k, v]) => allowed.has(k) && v !== undefined)) };
}

const SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = {
  profile: ['name', 'given_name', 'family_name', 'preferred_username', 'locale', 'updated_at'],
  email: ['email', 'email_verified'],
  'urn:keyhold:iam:org:project:roles': ['urn:keyhold:iam:org:project:roles'],
};

function claimsOfScopes(scope: string): string[] {
  return scope.split(' ').flatMap((s) => SCOPE_CLAIMS[s] ?? []);
}
