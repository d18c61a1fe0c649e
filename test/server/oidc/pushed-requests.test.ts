// Pushed authorization requests (RFC 9126) and signed request objects
// (RFC 9101) with real clients: openid-client (buildAuthorizationUrlWithPAR,
// buildAuthorizationUrlWithJAR) and a client written here from the RFCs with
// node:crypto and fetch alone — openid-client's PAR and JAR are oauth4webapi's,
// and both are by the library's own author, so the second client shares none
// of their code. Each logs a user in through the login UI, redeems the code and
// checks the ID token. Then the refusals: a request object signed with a key
// the app does not hold, `alg: none`, HS256, a `sub`; a request_uri used again
// or by another app, or fetched from a URL; a pushed request with an
// unregistered redirect URI, the API scope of an app not allowed it, no PKCE
// from a public app, a response type the app lacks, no or wrong client
// authentication, a body over the limit (docs/security.md section 20).
import { createHash, createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign as signWith, verify as verifyWith, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, importPKCS8, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn, type AppCreated } from '../../support/oidc-login.js';

let kh: TestKeyhold;
let base: string;
let projectId: string;
let userId: string;
const USERNAME = 'pushed.user';
const PASSWORD = 'requests pushed ahead of the browser';
const REDIRECT = 'http://localhost:5174/cb';
const REFRESH_GRANTS = ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'];

interface KeyFile {
  keyId: string;
  key: string;
  clientId: string;
}

/** A PRIVATE_KEY_JWT app and the key file AddAppKey gave for it. */
interface KeyApp extends AppCreated {
  file: KeyFile;
  pem: KeyObject;
}

let basicApp: AppCreated;
let keyApp: KeyApp;

async function addKeyApp(body: Record<string, unknown> = {}): Promise<KeyApp> {
  const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT', ...body });
  const res = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${app.appId}/keys`, { type: 'KEY_TYPE_JSON' });
  expect(res.status).toBe(200);
  const file = JSON.parse(Buffer.from(res.body.keyDetails, 'base64').toString('utf8')) as KeyFile;
  return { ...app, file, pem: createPrivateKey(file.key) };
}

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Pushed requests' })).body.id;
  const user = await kh.rest('POST', '/v2/users/human', {
    username: USERNAME,
    profile: { givenName: 'Push', familyName: 'Ed' },
    email: { email: 'pushed@example.com' },
    password: { password: PASSWORD, changeRequired: false },
  });
  expect(user.status).toBe(200);
  userId = user.body.userId;
  [basicApp, keyApp] = await Promise.all([addApp(kh, projectId, { redirectUris: [REDIRECT], grantTypes: REFRESH_GRANTS }), addKeyApp({ grantTypes: REFRESH_GRANTS })]);
}, 60_000);
afterAll(async () => kh?.close());

// ---- a client from the RFCs: node:crypto and fetch ----

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A JWS (RFC 7515) signed with node:crypto: RS256 with an RSA key, HS256 with a secret; `none` unsigned. */
function jws(payload: Record<string, unknown>, key: { rsa: KeyObject; kid: string } | { secret: string } | 'none'): string {
  const alg = key === 'none' ? 'none' : 'rsa' in key ? 'RS256' : 'HS256';
  const header = { alg, typ: 'oauth-authz-req+jwt', ...(key !== 'none' && 'kid' in key ? { kid: key.kid } : {}) };
  const input = `${b64(header)}.${b64(payload)}`;
  if (key === 'none') return `${input}.`;
  const signature = 'rsa' in key ? signWith('sha256', Buffer.from(input), key.rsa) : createHmac('sha256', key.secret).update(input).digest();
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}

/** A request object (RFC 9101 §4) for `clientId` with these parameters; `claims` override the usual ones. */
function requestObject(clientId: string, params: Record<string, string>, key: Parameters<typeof jws>[1], claims: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return jws({ iss: clientId, aud: base, client_id: clientId, jti: randomUUID(), iat: now, nbf: now, exp: now + 60, ...params, ...claims }, key);
}

/** private_key_jwt's client assertion (RFC 7523) for the key app. */
function clientAssertion(app: KeyApp): Record<string, string> {
  const now = Math.floor(Date.now() / 1000);
  const assertion = jws({ iss: app.clientId, sub: app.clientId, aud: base, jti: randomUUID(), iat: now, exp: now + 60 }, { rsa: app.pem, kid: app.file.keyId });
  return { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion };
}

const basicAuth = (app: AppCreated) => ({ authorization: `Basic ${Buffer.from(`${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret!)}`).toString('base64')}` });

/** POST /oauth/v2/par as RFC 9126 §2.1 says: the form, the client's authentication. */
async function push(form: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${base}/oauth/v2/par`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form) });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** S256 PKCE (RFC 7636) made here. */
function pkce(): { verifier: string; challenge: string } {
  const verifier = randomUUID() + randomUUID();
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The ID token checked as OIDC Core §3.1.3.7 says: the signature by the issuer's published key, iss, aud, exp, nonce. */
async function checkIdToken(idToken: string, clientId: string, nonce: string): Promise<Record<string, unknown>> {
  const [head, body, signature] = idToken.split('.');
  const header = JSON.parse(Buffer.from(head!, 'base64url').toString());
  expect(header.alg).toBe('RS256');
  const { keys } = (await (await fetch(`${base}/oauth/v2/keys`)).json()) as { keys: Array<Record<string, string>> };
  const jwk = keys.find((k) => k.kid === header.kid);
  expect(jwk).toBeDefined();
  expect(verifyWith('sha256', Buffer.from(`${head}.${body}`), createPublicKey({ key: jwk as never, format: 'jwk' }), Buffer.from(signature!, 'base64url'))).toBe(true);
  const claims = JSON.parse(Buffer.from(body!, 'base64url').toString());
  expect(claims).toMatchObject({ iss: base, aud: clientId, sub: userId, nonce });
  expect(claims.exp).toBeGreaterThan(Date.now() / 1000);
  return claims;
}

/** The authorization endpoint with a request_uri, as a browser is sent there after a push. */
const withRequestUri = (clientId: string, requestUri: string, extra: Record<string, string> = {}) =>
  `${base}/oauth/v2/authorize?${new URLSearchParams({ client_id: clientId, request_uri: requestUri, ...extra })}`;

/** An authorization request a browser makes, without following: Keyhold's answer. */
async function visit(url: string): Promise<{ status: number; location: URL | undefined; text: string }> {
  const res = await fetch(url, { redirect: 'manual' });
  const location = res.headers.get('location');
  return { status: res.status, location: location ? new URL(location, base) : undefined, text: await res.text() };
}

// ---- openid-client ----

async function configFor(app: AppCreated, auth: oidc.ClientAuth): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(base), app.clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });
}

async function keyAuth(app: KeyApp) {
  const key = await importPKCS8(app.file.key, 'RS256');
  return { key, kid: app.file.keyId };
}

describe('discovery', () => {
  it('advertises the pushed request endpoint under the issuer, the request parameter with RS256 only, no request_uri by reference', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      const metadata = await (await fetch(base + path)).json();
      expect(metadata.pushed_authorization_request_endpoint, path).toBe(`${base}/oauth/v2/par`);
      expect(metadata.require_pushed_authorization_requests, path).toBeUndefined();
      expect(metadata.request_parameter_supported, path).toBe(true);
      expect(metadata.request_uri_parameter_supported, path).toBe(false);
      expect(metadata.request_object_signing_alg_values_supported, path).toEqual(['RS256']);
      expect(metadata.require_signed_request_object, path).toBeUndefined();
    }
  });
});

describe('openid-client: a user logs in through a pushed request and through a request object', () => {
  it('PAR (client_secret_basic): the browser carries only client_id and request_uri; the code redeems; offline_access as sent gives a refresh token', async () => {
    const config = await configFor(basicApp, oidc.ClientSecretBasic(basicApp.clientSecret!));
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const url = await oidc.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: REDIRECT,
      scope: 'openid profile offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'par',
      nonce,
    });
    expect(url.origin + url.pathname).toBe(`${base}/oauth/v2/authorize`);
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    const back = await logIn(browser(base), url, USERNAME, PASSWORD);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: 'par', expectedNonce: nonce });
    expect(tokens.claims()).toMatchObject({ iss: base, aud: basicApp.clientId, sub: userId, nonce });
    const metadata = config.serverMetadata();
    await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(metadata.jwks_uri!)), { issuer: base, audience: basicApp.clientId });
    expect(tokens.scope?.split(' ')).toContain('offline_access');
    expect(tokens.refresh_token).toBeTruthy();
  });

  it('JAR (private_key_jwt, the request object signed with the app key): the code redeems; offline_access inside the object gives a refresh token', async () => {
    const signing = await keyAuth(keyApp);
    const config = await configFor(keyApp, oidc.PrivateKeyJwt(signing));
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const url = await oidc.buildAuthorizationUrlWithJAR(
      config,
      { redirect_uri: REDIRECT, scope: 'openid offline_access', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 'jar', nonce },
      signing,
    );
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request']);
    const back = await logIn(browser(base), url, USERNAME, PASSWORD);
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: 'jar', expectedNonce: nonce });
    expect(tokens.claims()).toMatchObject({ aud: keyApp.clientId, sub: userId });
    await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!)), { issuer: base, audience: keyApp.clientId });
    expect(tokens.refresh_token).toBeTruthy();
  });

  it('JAR pushed through PAR: the signed object goes to /par, the browser gets the request_uri', async () => {
    const signing = await keyAuth(keyApp);
    const config = await configFor(keyApp, oidc.PrivateKeyJwt(signing));
    const verifier = oidc.randomPKCECodeVerifier();
    const { searchParams } = await oidc.buildAuthorizationUrlWithJAR(
      config,
      { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 'both' },
      signing,
    );
    const url = await oidc.buildAuthorizationUrlWithPAR(config, searchParams);
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const back = await logIn(browser(base), url, USERNAME, PASSWORD);
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: 'both' });
    expect(tokens.claims()?.sub).toBe(userId);
  });
});

describe('a client from the RFCs (node:crypto, fetch): a signed request object pushed with private_key_jwt', () => {
  it('logs the user in, redeems the code with a client assertion, and the ID token verifies against the published keys', async () => {
    const { verifier, challenge } = pkce();
    const nonce = randomUUID();
    const request = requestObject(
      keyApp.clientId,
      { response_type: 'code', redirect_uri: REDIRECT, scope: 'openid email', state: 'rfc', nonce, code_challenge: challenge, code_challenge_method: 'S256' },
      { rsa: keyApp.pem, kid: keyApp.file.keyId },
    );
    const pushed = await push({ client_id: keyApp.clientId, request, ...clientAssertion(keyApp) });
    expect(pushed.status).toBe(201);
    expect(pushed.headers.get('cache-control')).toBe('no-store');
    expect(pushed.body.expires_in).toBeGreaterThan(0);
    expect(pushed.body.expires_in).toBeLessThanOrEqual(60);
    const back = await logIn(browser(base), withRequestUri(keyApp.clientId, pushed.body.request_uri), USERNAME, PASSWORD);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('rfc');
    expect(back.searchParams.get('iss')).toBe(base);
    const res = await fetch(`${base}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier, client_id: keyApp.clientId, ...clientAssertion(keyApp) }),
    });
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { id_token: string; access_token: string };
    const claims = await checkIdToken(tokens.id_token, keyApp.clientId, nonce);
    expect(claims.email).toBeUndefined(); // the app does not assert userinfo in the ID token: email is at userinfo
    const userinfo = await (await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).json();
    expect(userinfo).toMatchObject({ sub: userId, email: 'pushed@example.com' });
  });
});

describe('request objects: only the app’s own key, RS256, with exp and without sub', () => {
  const params = () => ({ response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256' });
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

  it('signed with a key the app does not hold (under its key id, or another app’s key): invalid_request_object at /par and at /authorize', async () => {
    const other = await addKeyApp();
    const forged = [
      requestObject(keyApp.clientId, params(), { rsa: stranger, kid: keyApp.file.keyId }),
      requestObject(keyApp.clientId, params(), { rsa: other.pem, kid: other.file.keyId }),
    ];
    for (const request of forged) {
      const pushed = await push({ client_id: keyApp.clientId, request, ...clientAssertion(keyApp) });
      expect([pushed.status, pushed.body.error]).toEqual([400, 'invalid_request_object']);
      expect(pushed.body.request_uri).toBeUndefined();
      const front = await visit(`${base}/oauth/v2/authorize?${new URLSearchParams({ client_id: keyApp.clientId, request })}`);
      expect(front.location?.searchParams.has('code') ?? false).toBe(false);
      expect(front.status === 400 ? front.text : front.location!.searchParams.get('error')).toContain('invalid_request_object');
    }
  });

  it('alg none, and HS256 keyed with a confidential app’s client secret: refused, even with the right secret', async () => {
    const none = requestObject(basicApp.clientId, params(), 'none');
    const hs256 = requestObject(basicApp.clientId, params(), { secret: basicApp.clientSecret! });
    for (const request of [none, hs256]) {
      const pushed = await push({ client_id: basicApp.clientId, request }, basicAuth(basicApp));
      expect([pushed.status, pushed.body.error]).toEqual([400, 'invalid_request_object']);
    }
  });

  it('without exp, exp more than an hour ahead, or carrying sub: invalid_request_object naming the claim', async () => {
    const key = { rsa: keyApp.pem, kid: keyApp.file.keyId };
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, Record<string, unknown>]> = [
      ['exp', { exp: undefined }],
      ['exp', { exp: now + 7200 }],
      ['sub', { sub: keyApp.clientId }],
    ];
    for (const [claim, claims] of cases) {
      const pushed = await push({ client_id: keyApp.clientId, request: requestObject(keyApp.clientId, params(), key, claims), ...clientAssertion(keyApp) });
      expect([pushed.status, pushed.body.error], JSON.stringify(claims)).toEqual([400, 'invalid_request_object']);
      expect(pushed.body.error_description).toMatch(new RegExp(`^${claim}:`));
    }
  });
});

describe('request_uri: used once, by its app, never fetched', () => {
  const pushedFor = async (app: AppCreated, extra: Record<string, string> = {}) => {
    const { verifier, challenge } = pkce();
    const pushed = await push({ client_id: app.clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state: 'once', code_challenge: challenge, code_challenge_method: 'S256', ...extra }, basicAuth(app));
    expect(pushed.status).toBe(201);
    return { requestUri: pushed.body.request_uri as string, verifier };
  };

  it('used again after its login gave a code: invalid_request_uri, no code', async () => {
    const { requestUri } = await pushedFor(basicApp);
    const back = await logIn(browser(base), withRequestUri(basicApp.clientId, requestUri), USERNAME, PASSWORD);
    expect(back.searchParams.get('code')).toBeTruthy();
    // The same browser (signed in) and a fresh one.
    for (const b of [browser(base), browser(base)]) {
      const again = await b.follow(withRequestUri(basicApp.clientId, requestUri));
      expect(again.left?.searchParams.has('code') ?? false).toBe(false);
      expect(again.left ? again.left.searchParams.get('error') : again.html).toContain('invalid_request_uri');
    }
  });

  it('two logins started with one request_uri that end after it expired: one code, the other refused', async () => {
    // A request object valid 2 s: the pushed request expires with it (RFC 9126 §2.2), and both logins outlive it.
    const { verifier, challenge } = pkce();
    const exp = Math.floor(Date.now() / 1000) + 2;
    const request = requestObject(
      keyApp.clientId,
      { response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state: 'twice', code_challenge: challenge, code_challenge_method: 'S256' },
      { rsa: keyApp.pem, kid: keyApp.file.keyId },
      { exp },
    );
    const pushed = await push({ client_id: keyApp.clientId, request, ...clientAssertion(keyApp) });
    expect(pushed.status).toBe(201);
    const url = withRequestUri(keyApp.clientId, pushed.body.request_uri);
    const [a, b] = [browser(base), browser(base)];
    const [startA, startB] = [await a.follow(url), await b.follow(url)];
    expect(startA.html).toContain('username');
    expect(startB.html).toContain('username');
    await new Promise((r) => setTimeout(r, Math.max(0, exp * 1000 + 200 - Date.now())));
    const [backA, backB] = [await logIn(a, startA.url, USERNAME, PASSWORD), await logIn(b, startB.url, USERNAME, PASSWORD)];
    expect(backA.searchParams.get('code')).toBeTruthy();
    expect(backB.searchParams.get('code')).toBeNull();
    expect(backB.searchParams.get('error')).toBe('invalid_request_uri');
    void verifier;
  });

  it('another app’s request_uri is refused; a redirect_uri beside it in the query is ignored (the pushed one is used)', async () => {
    const other = await addApp(kh, projectId, { redirectUris: [REDIRECT, 'https://elsewhere.example/cb'] });
    const { requestUri } = await pushedFor(basicApp);
    const stolen = await visit(withRequestUri(other.clientId, requestUri));
    expect(stolen.location?.searchParams.has('code') ?? false).toBe(false);
    expect(stolen.status === 400 ? stolen.text : stolen.location!.searchParams.get('error')).toContain('invalid_request_object');

    const { requestUri: mine } = await pushedFor(other);
    const back = await logIn(browser(base), withRequestUri(other.clientId, mine, { redirect_uri: 'https://elsewhere.example/cb', state: 'changed' }), USERNAME, PASSWORD);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('once');
  });

  it('a request_uri that is a URL is not fetched: request_uri_not_supported, and the URL saw no request', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end(requestObject(basicApp.clientId, { response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' }, 'none'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const at = `http://127.0.0.1:${(server.address() as AddressInfo).port}/request.jwt`;
      const front = await visit(withRequestUri(basicApp.clientId, at));
      expect(front.location?.searchParams.has('code') ?? false).toBe(false);
      expect(front.status === 400 ? front.text : front.location!.searchParams.get('error')).toContain('request_uri_not_supported');
      expect(hits).toBe(0);
    } finally {
      server.close();
    }
  });
});

describe('a pushed request meets every rule of an authorization request', () => {
  const form = (extra: Record<string, string> = {}) => ({ client_id: basicApp.clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', code_challenge: pkce().challenge, code_challenge_method: 'S256', ...extra });

  it('an unregistered redirect_uri: refused, no request_uri', async () => {
    for (const redirect of ['https://evil.example/cb', `${REDIRECT}/`, 'http://localhost:5175/cb']) {
      const pushed = await push(form({ redirect_uri: redirect }), basicAuth(basicApp));
      expect(pushed.status, redirect).toBe(400);
      expect(pushed.body.error_description, redirect).toContain('redirect_uri');
      expect(pushed.body.request_uri).toBeUndefined();
    }
  });

  it('the API scope from an app not allowed it: invalid_scope', async () => {
    const pushed = await push(form({ scope: 'openid urn:keyhold:iam:api:aud' }), basicAuth(basicApp));
    expect([pushed.status, pushed.body.error]).toEqual([400, 'invalid_scope']);
    // Signed, from the key app: the same.
    const request = requestObject(keyApp.clientId, form({ client_id: keyApp.clientId, scope: 'openid urn:keyhold:iam:api:aud' }), { rsa: keyApp.pem, kid: keyApp.file.keyId });
    const signed = await push({ client_id: keyApp.clientId, request, ...clientAssertion(keyApp) });
    expect([signed.status, signed.body.error]).toEqual([400, 'invalid_scope']);
  });

  it('a public app without PKCE: refused; with it: accepted without any secret', async () => {
    const pub = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE' });
    const { code_challenge: _c, code_challenge_method: _m, ...withoutPkce } = form();
    const refused = await push({ ...withoutPkce, client_id: pub.clientId });
    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_request']);
    expect(refused.body.error_description).toContain('PKCE');
    expect((await push({ ...form(), client_id: pub.clientId })).status).toBe(201);
  });

  it('a response type the app lacks: unauthorized_client', async () => {
    const deviceOnly = await addApp(kh, projectId, {
      appType: 'OIDC_APP_TYPE_NATIVE',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'],
      redirectUris: ['http://127.0.0.1/cb'],
    });
    const pushed = await push(form({ client_id: deviceOnly.clientId, redirect_uri: 'http://127.0.0.1/cb' }));
    expect([pushed.status, pushed.body.error]).toEqual([400, 'unauthorized_client']);
  });

  it('a confidential app authenticates as at the token endpoint: none, a wrong secret, or the secret by the wrong transport is invalid_client', async () => {
    const none = await push(form());
    const wrong = await push(form(), basicAuth({ ...basicApp, clientSecret: `${basicApp.clientSecret}x` }));
    const inBody = await push({ ...form(), client_secret: basicApp.clientSecret! });
    const noAssertion = await push(form({ client_id: keyApp.clientId }));
    for (const [name, answer] of Object.entries({ none, wrong, inBody, noAssertion })) {
      expect([answer.status, answer.body.error], name).toEqual([401, 'invalid_client']);
    }
  });

  it('a body over 56 KiB, or a parameter holding U+0000: invalid_request, nothing stored', async () => {
    const large = await push(form({ state: 'x'.repeat(57 * 1024) }), basicAuth(basicApp));
    expect([large.status, large.body.error, large.body.request_uri]).toEqual([400, 'invalid_request', undefined]);
    const nul = await push(form({ state: 'a\u0000b' }), basicAuth(basicApp));
    expect([nul.status, nul.body.error, nul.body.error_description, nul.body.request_uri]).toEqual([400, 'invalid_request', 'state: contains the NUL character (U+0000)', undefined]);
  });
});
