// Pushed authorization requests (RFC 9126, POST /oauth/v2/par) and signed
// request objects (RFC 9101, the `request` parameter), for every app: what an
// app may push or sign, where the library needs more than configuration. An
// extension of oidc-provider (README "Extensions of oidc-provider" 10.), with
// its start-up self-check (checkPushedRequests); the rule and its abuse cases
// are docs/security.md section 22.
//
// - A request object is verified with the app's own keys (AddAppKey; only
//   PRIVATE_KEY_JWT apps have any), RS256 only: those are the only keys an app
//   can hold (RSA, made by Keyhold). No HS256: the library holds the client
//   secret's hash, and a key made of it would let a copy of the database sign
//   for the app. No `alg: none` from a client.
// - It carries `exp`, at most REQUEST_OBJECT_MAX_SECONDS ahead, and no `sub`:
//   signed with the key of the app's client assertions, a JWT naming the app
//   as `iss` and `sub` and the issuer as `aud` would pass as one at the token
//   endpoint once it leaked from a browser's address bar or history.
// - `request_uri` is only the handle /par gave; the library fetches no URL
//   (discovery says request_uri_parameter_supported: false), so no request
//   Keyhold makes is aimed by a client.
// - Keyhold's hooks read the scope as the app sent it (org-scope.ts,
//   offline-access.ts): in a request object or a pushed request that is not
//   the query or the body but the object's claims (sentParams). The library
//   stores a plain pushed request as its parameters after its own checks
//   dropped the org scope and offline_access; Keyhold stores the scope as sent
//   (PushedAuthorizationRequest.prototype.save), and the authorization request
//   that uses it goes through every check again.
// - One code per request_uri: the library marks it used when it issues the
//   code, and the adapter keeps the record past its 60 s for as long as a
//   login may run (adapter.ts), so a second login started with it ends
//   without a code however long either took.
import Provider, { errors } from 'oidc-provider';
import { refuseNul } from './adapter.js';
import { ExtensionCheckFailed, requestInProcess } from './extensions.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** What a request object may be signed with: what the keys an app can hold verify. */
export const REQUEST_OBJECT_ALGS = ['RS256'] as const;

/** How far ahead a request object's `exp` may be (seconds). */
export const REQUEST_OBJECT_MAX_SECONDS = 3600;

/** The claims of the request object (or pushed request) of each authorization request being handled. */
const sentClaims = new WeakMap<object, Record<string, unknown>>();

/**
 * features.requestObjects.assertJwtClaimsAndHeader: Keyhold's rule for a
 * request object's claims (the library has checked `iss`, `aud` and the
 * times it finds); called for a pushed request too, when it is used.
 */
export function assertRequestObject(ctx: Any, claims: Record<string, unknown>): void {
  if (claims.sub !== undefined) {
    throw new errors.InvalidRequestObject("sub: a request object must not carry it (a JWT with the app as iss and sub is a client assertion's shape)");
  }
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== 'number') throw new errors.InvalidRequestObject('exp: a request object must carry it');
  if (claims.exp - now > REQUEST_OBJECT_MAX_SECONDS) {
    throw new errors.InvalidRequestObject(`exp: a request object may be valid for at most ${REQUEST_OBJECT_MAX_SECONDS} seconds`);
  }
  if (ctx && typeof ctx === 'object') sentClaims.set(ctx, claims);
}

/**
 * The authorization request's parameters as the app sent them: the request
 * object's (or pushed request's) claims when it came with one, else the body
 * of a POST or the query.
 */
export function sentParams(ctx: Any): Record<string, unknown> | undefined {
  return (ctx && sentClaims.get(ctx)) ?? (ctx?.method === 'POST' ? ctx?.oidc?.body : ctx?.query);
}

const b64json = (part: string | undefined): Any => JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));
const jsonb64 = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/**
 * The request a push stores: the library's unsecured record of a plain
 * push with the scope as sent; a request object as it came. Refuses what
 * holds U+0000 (invalid_request naming the parameter), as at /authorize.
 */
export function pushedRecord(request: string, sentScope: unknown): string {
  const [head, body, signature] = request.split('.');
  const payload = b64json(body);
  refuseNul(payload, 'request');
  const header = b64json(head);
  if (header?.alg !== 'none' || typeof sentScope !== 'string' || payload.scope === sentScope) return request;
  return `${head}.${jsonb64({ ...payload, scope: sentScope })}.${signature ?? ''}`;
}

export function applyPushedRequests(provider: Any): void {
  const PushedAuthorizationRequest = provider.PushedAuthorizationRequest;
  const proto = PushedAuthorizationRequest?.prototype;
  if (typeof proto?.save !== 'function') throw new ExtensionCheckFailed('PushedAuthorizationRequest.prototype.save is gone');
  const save = proto.save as (this: Any, ttl?: number) => Promise<string>;
  proto.save = function keyholdPushedRequestSave(this: Any, ttl?: number): Promise<string> {
    const oidc = (Provider as Any).ctx?.oidc;
    if (oidc?.route === 'pushed_authorization_request' && typeof this.request === 'string') {
      // A plain push (no request object in the body) keeps the scope the body sent.
      this.request = pushedRecord(this.request, oidc.body?.request === undefined ? oidc.body?.scope : undefined);
    }
    return save.call(this, ttl);
  };
}

/**
 * Proves the extension takes hold on this provider, at start (after
 * applyPushedRequests): the pushed request's save is Keyhold's and the model
 * still stores the request and whether it was used; discovery names the
 * pushed request endpoint under the issuer, the request parameter with only
 * REQUEST_OBJECT_ALGS, and no request_uri by reference.
 */
export async function checkPushedRequests(provider: Any, issuer: string, parPath: string): Promise<void> {
  if (provider.PushedAuthorizationRequest?.prototype?.save?.name !== 'keyholdPushedRequestSave') {
    throw new ExtensionCheckFailed('PushedAuthorizationRequest.prototype.save is no longer Keyhold\'s (the scope as sent)');
  }
  const stored = new Set<string>(provider.PushedAuthorizationRequest.IN_PAYLOAD ?? []);
  if (!stored.has('request') || !stored.has('consumed')) throw new ExtensionCheckFailed('PushedAuthorizationRequest no longer stores request and consumed');
  const answer = await requestInProcess(provider.callback(), '/.well-known/openid-configuration', { headers: { host: 'localhost', accept: 'application/json' } });
  let discovery: Record<string, unknown> = {};
  try {
    discovery = JSON.parse(answer.body);
  } catch {
    // judged below
  }
  const algs = discovery.request_object_signing_alg_values_supported;
  const ok =
    discovery.pushed_authorization_request_endpoint === `${issuer}${parPath}` &&
    discovery.request_parameter_supported === true &&
    discovery.request_uri_parameter_supported === false &&
    Array.isArray(algs) &&
    algs.length === REQUEST_OBJECT_ALGS.length &&
    REQUEST_OBJECT_ALGS.every((a) => algs.includes(a));
  if (!ok) {
    throw new ExtensionCheckFailed(
      `discovery no longer advertises pushed requests and request objects as configured (pushed_authorization_request_endpoint ${String(discovery.pushed_authorization_request_endpoint)}, request_uri_parameter_supported ${String(discovery.request_uri_parameter_supported)}, request_object_signing_alg_values_supported ${JSON.stringify(algs)})`,
    );
  }
}
