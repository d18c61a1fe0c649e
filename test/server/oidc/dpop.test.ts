// Sender-constrained tokens (DPoP, RFC 9449) wherever Keyhold checks a token
// itself: a token openid-client had bound to its key (its DPoP handle at the
// token endpoint) is refused as a plain bearer token and accepted as
// `Authorization: DPoP <token>` with a proof of that key for that request — on
// the API over REST, Connect, gRPC and gRPC-Web, and at userinfo for JWT access
// tokens; every other proof is refused, naming what is wrong. Tokens: a user's
// opaque API token (the console app), an app's JWT access token, a machine
// user's client-credentials tokens (opaque and JWT).
import { createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../../gen/keyhold/auth/v1/auth_pb.js';
import { dpopKey, proof, type DpopKey } from '../../support/dpop.js';
import { restReason, rpcError } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn } from '../../support/oidc-login.js';

const API_SCOPE = 'urn:keyhold:iam:api:aud';
const USERNAME = 'bound.user';
const PASSWORD = 'bound to a key 2024';
const ME = '/auth/v1/users/me';
const GET_MY_USER = '/keyhold.auth.v1.AuthService/GetMyUser';
let kh: TestKeyhold;
let base: string;
let userId: string;

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  const user = await kh.rest('POST', '/v2/users/human', { username: USERNAME, profile: { givenName: 'B', familyName: 'U' }, email: { email: 'b@example.com' }, password: { password: PASSWORD, changeRequired: false } });
  expect(user.status).toBe(200);
  userId = user.body.userId;
}, 60_000);
afterAll(async () => kh?.close());

const discover = (clientId: string, auth: oidc.ClientAuth = oidc.None()) => oidc.discovery(new URL(base), clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });

/** A code flow through the login UI whose token request carries a proof of `key` (openid-client's DPoP handle). */
async function boundLogin(config: oidc.Configuration, redirect: string, scope: string, key: DpopKey) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: redirect, scope, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
  const back = await logIn(browser(base), url, USERNAME, PASSWORD);
  return oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier }, undefined, { DPoP: key.handle(config) });
}

/** The console app's API token, bound to `key`. */
async function boundApiToken(key: DpopKey) {
  const config = await discover('keyhold-console');
  const tokens = await boundLogin(config, `${base}/console/`, `openid profile ${API_SCOPE}`, key);
  return { config, token: tokens.access_token, tokenType: tokens.token_type };
}

/** GET /auth/v1/users/me with these headers: status and the ErrorInfo reason or the user id. */
async function me(headers: Record<string, string>) {
  const res = await fetch(`${base}${ME}`, { headers });
  const body = await res.json();
  return { status: res.status, reason: restReason(body), message: body.message as string | undefined, userId: body.user?.userId as string | undefined };
}

/** An AuthService client over gRPC or gRPC-Web that presents `token` as DPoP with a fresh proof of `key` on every call. */
function dpopClient(protocol: 'grpc' | 'grpcWeb', token: string, key: DpopKey) {
  const withProof: Interceptor = (next) => async (req) => {
    req.header.set('authorization', `DPoP ${token}`);
    req.header.set('dpop', await proof(key, { htm: 'POST', htu: `${base}${GET_MY_USER}`, token }));
    return next(req);
  };
  const transport = protocol === 'grpc' ? createGrpcTransport({ baseUrl: base, interceptors: [withProof] }) : createGrpcWebTransport({ baseUrl: base, httpVersion: '1.1', interceptors: [withProof] });
  return createClient(AuthService, transport);
}

describe('a bound token on the API', () => {
  it('is refused as a bearer token and accepted with a proof of its key over REST, Connect, gRPC and gRPC-Web', async () => {
    const key = await dpopKey();
    const { config, token, tokenType } = await boundApiToken(key);
    expect(tokenType.toLowerCase()).toBe('dpop');

    // Stolen without the key, it is worth nothing: every protocol says why.
    expect(await me({ authorization: `Bearer ${token}` })).toMatchObject({ status: 401, reason: 'DPOP_PROOF_REQUIRED' });
    expect((await rpcError(kh.client(AuthService, 'grpc', token).getMyUser({}))).reason).toBe('DPOP_PROOF_REQUIRED');
    expect((await rpcError(kh.client(AuthService, 'connect', token).getMyUser({}))).reason).toBe('DPOP_PROOF_REQUIRED');

    // With the key, through openid-client's protected-resource request (a fresh proof each time).
    const rest = await oidc.fetchProtectedResource(config, token, new URL(`${base}${ME}`), 'GET', undefined, undefined, { DPoP: key.handle(config) });
    expect(rest.status).toBe(200);
    expect((await rest.json()).user.userId).toBe(userId);
    const connect = await oidc.fetchProtectedResource(config, token, new URL(`${base}${GET_MY_USER}`), 'POST', '{}', new Headers({ 'content-type': 'application/json' }), {
      DPoP: key.handle(config),
    });
    expect(connect.status).toBe(200);
    expect((await connect.json()).user.userId).toBe(userId);
    // gRPC and gRPC-Web: POST to <issuer>/<package.Service>/<Method>.
    for (const protocol of ['grpc', 'grpcWeb'] as const) {
      expect((await dpopClient(protocol, token, key).getMyUser({})).user?.userId, protocol).toBe(userId);
    }
  });

  it('is refused with any proof that is not a fresh one of its key for this request, naming what is wrong', async () => {
    const key = await dpopKey();
    const { token } = await boundApiToken(key);
    const htu = `${base}${ME}`;
    const send = (dpop: string, scheme = 'DPoP', value = token) => me({ authorization: `${scheme} ${value}`, dpop });
    const good = await proof(key, { htm: 'GET', htu, token });
    expect((await send(good)).userId).toBe(userId);

    const otherKey = await dpopKey();
    const otherToken = (await boundApiToken(otherKey)).token;
    const cases: [string, Promise<string>, RegExp][] = [
      ['the same proof again', Promise.resolve(good), /used before/],
      ['a proof for another endpoint', proof(key, { htm: 'GET', htu: `${base}/v2/users/${userId}`, token }), /htu/],
      ['a proof for another method', proof(key, { htm: 'POST', htu, token }), /htm/],
      ['a proof for another token', proof(key, { htm: 'GET', htu, token: otherToken }), /ath/],
      ['a proof without ath', proof(key, { htm: 'GET', htu }), /ath/],
      ['a proof ten minutes old', proof(key, { htm: 'GET', htu, token, iat: Math.floor(Date.now() / 1000) - 600 }), /iat/],
      ['a proof of another key', proof(otherKey, { htm: 'GET', htu, token }), /another key/],
      ['a proof typed as a plain JWT', proof(key, { htm: 'GET', htu, token, header: { typ: 'JWT' } }), /typ/],
      ['a proof with a nonce nobody issued', proof(key, { htm: 'GET', htu, token, claims: { nonce: 'n' } }), /nonce/],
      ['a proof without jti', proof(key, { htm: 'GET', htu, token, claims: { jti: undefined } }), /jti/],
      ['a proof whose jwk carries a private part', proof(key, { htm: 'GET', htu, token, header: { jwk: { ...key.publicJwk, d: 'AAAA' } } }), /public/],
      ['a proof with a forged signature', proof(key, { htm: 'GET', htu, token }).then((p) => `${p.slice(0, p.lastIndexOf('.'))}.${'A'.repeat(86)}`), /signature/],
      ['no proof at all', Promise.resolve(''), /compact JWT/],
    ];
    for (const [what, made, problem] of cases) {
      const answer = await send(await made);
      expect(answer, what).toMatchObject({ status: 401, reason: 'DPOP_PROOF_INVALID' });
      expect(answer.message, what).toMatch(problem);
    }
    // The token itself is still good with a good proof: a refused proof changes nothing.
    expect((await send(await proof(key, { htm: 'GET', htu, token }))).userId).toBe(userId);
    // A token bound to no key (the admin's PAT) is not taken as DPoP either.
    expect(await send(await proof(key, { htm: 'GET', htu, token: kh.adminToken }), 'DPoP', kh.adminToken)).toMatchObject({ status: 401, reason: 'DPOP_TOKEN_NOT_BOUND' });
  });
});

describe('a bound JWT access token at userinfo', () => {
  it('is refused as a bearer token (invalid_token, a DPoP challenge) and answered with a proof (openid-client fetchUserInfo)', async () => {
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Bound JWTs' })).body.id;
    const redirect = 'http://localhost:5175/cb';
    const app = await addApp(kh, projectId, { redirectUris: [redirect], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', accessTokenType: 'OIDC_TOKEN_TYPE_JWT', devMode: true });
    const config = await discover(app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
    const key = await dpopKey('EdDSA');
    const tokens = await boundLogin(config, redirect, 'openid profile', key);
    expect((decodeJwt(tokens.access_token).cnf as { jkt?: string } | undefined)?.jkt).toBeTruthy();

    const bearer = await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(bearer.status).toBe(401);
    expect(await bearer.json()).toMatchObject({ error: 'invalid_token' });
    expect(bearer.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);

    const info = await oidc.fetchUserInfo(config, tokens.access_token, userId, { DPoP: key.handle(config) });
    expect(info).toMatchObject({ sub: userId, preferred_username: USERNAME });

    const once = await proof(key, { htm: 'GET', htu: `${base}/oidc/v1/userinfo`, token: tokens.access_token });
    const first = await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `DPoP ${tokens.access_token}`, dpop: once } });
    expect(first.status).toBe(200);
    const replay = await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `DPoP ${tokens.access_token}`, dpop: once } });
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ error: 'invalid_dpop_proof' });
  });
});

describe("a machine user's bound client-credentials tokens", () => {
  it('opaque and JWT: refused as bearer tokens on the API, accepted with a proof', async () => {
    for (const accessTokenType of ['ACCESS_TOKEN_TYPE_BEARER', 'ACCESS_TOKEN_TYPE_JWT']) {
      const added = await kh.rest('POST', '/management/v1/users/machine', { userName: `bound-${accessTokenType}`, name: 'Bound', accessTokenType });
      const secret = await kh.rest('PUT', `/management/v1/users/${added.body.userId}/secret`, {});
      const config = await discover(secret.body.clientId, oidc.ClientSecretBasic(secret.body.clientSecret));
      const key = await dpopKey();
      const tokens = await oidc.clientCredentialsGrant(config, undefined, { DPoP: key.handle(config) });
      expect(tokens.token_type.toLowerCase(), accessTokenType).toBe('dpop');
      expect(await me({ authorization: `Bearer ${tokens.access_token}` }), accessTokenType).toMatchObject({ status: 401, reason: 'DPOP_PROOF_REQUIRED' });
      const res = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${base}${ME}`), 'GET', undefined, undefined, { DPoP: key.handle(config) });
      expect(res.status, accessTokenType).toBe(200);
      expect((await res.json()).user.userId).toBe(added.body.userId);
    }
  });
});
