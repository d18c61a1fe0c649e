// What an independent relying party expects of an OpenID Provider, checked
// with openid-client and, where it hides status codes, headers or raw
// metadata, with plain fetch and jose: redirect and post-logout URIs used as
// registered (and RFC 8252 loopback ports), `unauthorized_client` for a grant
// or response type the app may not use, RFC 8414 metadata, auth methods of
// introspection and revocation, only the ID token algorithms apps get, and
// token answers no cache keeps. The same findings again through a second
// relying party that shares no code with openid-client (or with oidc-provider,
// whose author wrote both): passport-openidconnect, on node-oauth and
// node:http, driven as passport's middleware drives it, without Express.
import http from 'node:http';
import * as oidc from 'openid-client';
import OpenIDConnectStrategy from 'passport-openidconnect';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn, type AppCreated } from '../../support/oidc-login.js';

let kh: TestKeyhold;
let base: string;
let projectId: string;
let userId: string;
const USERNAME = 'conform.user';
const PASSWORD = 'relying parties agree on everything';

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Conformance' })).body.id;
  const user = await kh.rest('POST', '/v2/users/human', {
    username: USERNAME,
    profile: { givenName: 'Con', familyName: 'Form' },
    email: { email: 'conform@example.com' },
    password: { password: PASSWORD, changeRequired: false },
  });
  expect(user.status).toBe(200);
  userId = user.body.userId;
}, 60_000);
afterAll(async () => kh?.close());

/** Every answer of the token endpoint openid-client got, by the config it is set on. */
const tokenAnswers: Response[] = [];
const recording: oidc.CustomFetch = async (url, options) => {
  const res = await fetch(url, options as RequestInit);
  if (new URL(url).pathname === '/oauth/v2/token') tokenAnswers.push(res.clone());
  return res;
};

async function configFor(app: AppCreated, auth: oidc.ClientAuth, algorithm?: 'oauth2'): Promise<oidc.Configuration> {
  const config = await oidc.discovery(new URL(base), app.clientId, undefined, auth, { execute: [oidc.allowInsecureRequests], algorithm });
  config[oidc.customFetch] = recording;
  return config;
}

const secretBasic = (app: AppCreated) => oidc.ClientSecretBasic(app.clientSecret!);

/** The authorization request as a browser sends it: where Keyhold answers (its login, the app with an error, or its own error page). */
async function authorize(clientId: string, params: Record<string, string>): Promise<{ status: number; location?: URL }> {
  const url = new URL('/oauth/v2/authorize', base);
  const verifier = oidc.randomPKCECodeVerifier();
  url.search = new URLSearchParams({ client_id: clientId, response_type: 'code', scope: 'openid', state: 's', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', ...params }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  await res.body?.cancel();
  const location = res.headers.get('location');
  return { status: res.status, location: location ? new URL(location, base) : undefined };
}

/** Accepted: the browser goes on to Keyhold's login. */
const toLogin = (answer: { status: number; location?: URL }) => answer.status >= 300 && answer.status < 400 && answer.location?.origin === base;
/** Refused without a redirect: Keyhold's own error page. */
const refusedHere = (answer: { status: number; location?: URL }) => answer.status === 400 && answer.location === undefined;

/** Signs the user in through openid-client's authorization URL and redeems the code through openid-client. */
async function codeFlow(config: oidc.Configuration, redirectUri: string) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 's' });
  const b = browser(base);
  const back = await logIn(b, url, USERNAME, PASSWORD);
  const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: 's' });
  return { b, back, tokens };
}

describe('redirect and post-logout URIs as registered', () => {
  it('a URI without a path is kept as registered, logs in through openid-client and ends the session there', async () => {
    const app = await addApp(kh, projectId, { redirectUris: ['http://localhost:3000'], postLogoutRedirectUris: ['http://localhost:3000'] });
    const stored = await kh.rest('GET', `/management/v1/projects/${projectId}/apps/${app.appId}`);
    expect(stored.body.app.oidcConfig.redirectUris).toEqual(['http://localhost:3000']);
    expect(stored.body.app.oidcConfig.postLogoutRedirectUris).toEqual(['http://localhost:3000']);

    const config = await configFor(app, secretBasic(app));
    // openid-client redeems with the callback URL as its parser serializes it ("http://localhost:3000/").
    const { b, back, tokens } = await codeFlow(config, 'http://localhost:3000');
    expect(back.origin).toBe('http://localhost:3000');
    expect(tokens.claims()?.aud).toBe(app.clientId);

    const confirm = await b.follow(oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'http://localhost:3000', state: 'bye' }));
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.html!)![1]!;
    const action = /action="([^"]+)"/.exec(confirm.html!)![1]!;
    const done = await b.request(new URL(action, base), { form: { xsrf, logout: 'yes' } });
    const left = await b.follow(new URL(done.headers.get('location')!, base));
    expect(left.left?.origin).toBe('http://localhost:3000');
    expect(left.left?.searchParams.get('state')).toBe('bye');
  });

  it('the authorization endpoint compares the exact string: other spellings of a registered URI are refused', async () => {
    const app = await addApp(kh, projectId, { redirectUris: ['https://app.example/cb', 'http://localhost:3000'] });
    expect(toLogin(await authorize(app.clientId, { redirect_uri: 'https://app.example/cb' }))).toBe(true);
    for (const other of ['https://app.example/cb/', 'HTTPS://APP.EXAMPLE/cb', 'https://app.example:443/cb', 'https://app.example/CB', 'http://localhost:3000/x']) {
      expect(refusedHere(await authorize(app.clientId, { redirect_uri: other })), other).toBe(true);
    }
  });

  it('a registration with the path "/" (how registrations without a path were once stored) still takes the URI without it', async () => {
    const app = await addApp(kh, projectId, { redirectUris: ['http://localhost:3001/'] });
    expect(toLogin(await authorize(app.clientId, { redirect_uri: 'http://localhost:3001' }))).toBe(true);
    expect(toLogin(await authorize(app.clientId, { redirect_uri: 'http://localhost:3001/' }))).toBe(true);
    const { back } = await codeFlow(await configFor(app, secretBasic(app)), 'http://localhost:3001');
    expect(back.origin).toBe('http://localhost:3001');
  });

  it('NATIVE: loopback IP redirect URIs on any port (RFC 8252 §7.3), registered with a port or without, with a path or without', async () => {
    const app = await addApp(kh, projectId, {
      appType: 'OIDC_APP_TYPE_NATIVE',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      redirectUris: ['http://127.0.0.1/cb', 'http://[::1]:8080/cb', 'http://127.0.0.1'],
      skipNativeAppSuccessPage: true,
    });
    for (const sent of ['http://127.0.0.1:49152/cb', 'http://127.0.0.1/cb', 'http://[::1]:51000/cb', 'http://[::1]/cb', 'http://127.0.0.1:5000']) {
      expect(toLogin(await authorize(app.clientId, { redirect_uri: sent })), sent).toBe(true);
    }
    for (const sent of ['http://127.0.0.1:49152/other', 'http://127.0.0.2:49152/cb', 'https://127.0.0.1:49152/cb']) {
      expect(refusedHere(await authorize(app.clientId, { redirect_uri: sent })), sent).toBe(true);
    }
    const { back, tokens } = await codeFlow(await configFor(app, oidc.None()), 'http://127.0.0.1:5000');
    expect(back.host).toBe('127.0.0.1:5000');
    expect(tokens.access_token).toBeTruthy();
  });
});

describe('unauthorized_client for a grant or response type the app may not use', () => {
  let codeOnly: AppCreated;
  let deviceOnly: AppCreated;
  beforeAll(async () => {
    codeOnly = await addApp(kh, projectId, { redirectUris: ['https://app.example/cb'] });
    deviceOnly = await addApp(kh, projectId, {
      appType: 'OIDC_APP_TYPE_NATIVE',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'],
      redirectUris: ['http://127.0.0.1/cb'],
    });
  });

  it('at the authorization endpoint: redirected to the app with unauthorized_client (code for a device-only app, id_token and hybrid for a code-only app)', async () => {
    const cases: Array<[string, Record<string, string>, 'query' | 'fragment']> = [
      [deviceOnly.clientId, { redirect_uri: 'http://127.0.0.1/cb' }, 'query'],
      [codeOnly.clientId, { redirect_uri: 'https://app.example/cb', response_type: 'id_token', nonce: 'n' }, 'fragment'],
      [codeOnly.clientId, { redirect_uri: 'https://app.example/cb', response_type: 'code id_token', nonce: 'n' }, 'fragment'],
    ];
    for (const [clientId, params, mode] of cases) {
      const { status, location } = await authorize(clientId, params);
      expect(status, JSON.stringify(params)).toBe(303);
      expect(`${location!.origin}${location!.pathname}`).toBe(params.redirect_uri);
      const answer = new URLSearchParams(mode === 'query' ? location!.search : location!.hash.slice(1));
      expect(answer.get('error'), JSON.stringify(params)).toBe('unauthorized_client');
      expect(answer.get('state')).toBe('s');
    }
  });

  it('at the token endpoint, for every grant: authorization_code, refresh_token, device_code, client_credentials', async () => {
    const codeConfig = await configFor(codeOnly, secretBasic(codeOnly));
    const deviceConfig = await configFor(deviceOnly, oidc.None());
    // Each request made only when its refusal is awaited: started together, the later ones would reject unobserved.
    const refusals: Array<[string, () => Promise<unknown>]> = [
      ['authorization_code', () => oidc.genericGrantRequest(deviceConfig, 'authorization_code', { code: 'x', redirect_uri: 'http://127.0.0.1/cb', code_verifier: oidc.randomPKCECodeVerifier() })],
      ['refresh_token', () => oidc.refreshTokenGrant(codeConfig, 'x')],
      ['device_code (poll)', () => oidc.genericGrantRequest(codeConfig, 'urn:ietf:params:oauth:grant-type:device_code', { device_code: 'x' })],
      ['device_code (authorization)', () => oidc.initiateDeviceAuthorization(codeConfig, { scope: 'openid' })],
      ['client_credentials', () => oidc.clientCredentialsGrant(codeConfig)],
    ];
    for (const [grant, refused] of refusals) {
      await expect(refused(), grant).rejects.toMatchObject({ error: 'unauthorized_client', status: 400 });
    }
  });
});

describe('metadata', () => {
  it('RFC 8414 metadata at /.well-known/oauth-authorization-server is the discovery document, and openid-client uses it', async () => {
    const [openid, oauth] = await Promise.all([fetch(`${base}/.well-known/openid-configuration`), fetch(`${base}/.well-known/oauth-authorization-server`)]);
    expect(oauth.status).toBe(200);
    expect(oauth.headers.get('content-type')).toContain('application/json');
    expect(oauth.headers.get('cache-control')).toBe(openid.headers.get('cache-control'));
    const metadata = await oauth.json();
    expect(metadata).toEqual(await openid.json());
    expect(metadata.issuer).toBe(base);
    const app = await addApp(kh, projectId, { redirectUris: ['https://app.example/cb'] });
    const config = await configFor(app, secretBasic(app), 'oauth2');
    expect(config.serverMetadata().token_endpoint).toBe(`${base}/oauth/v2/token`);
  });

  it('introspection and revocation name the auth methods they accept, and accept each of them', async () => {
    const metadata = await (await fetch(`${base}/.well-known/openid-configuration`)).json();
    const methods = ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'];
    for (const name of ['token_endpoint', 'introspection_endpoint', 'revocation_endpoint']) {
      expect([...metadata[`${name}_auth_methods_supported`]].sort(), name).toEqual([...methods].sort());
      expect(metadata[`${name}_auth_signing_alg_values_supported`], name).toEqual(['RS256', 'ES256']);
    }
    const auths: Array<[string, (app: AppCreated) => oidc.ClientAuth]> = [
      ['OIDC_AUTH_METHOD_TYPE_BASIC', secretBasic],
      ['OIDC_AUTH_METHOD_TYPE_POST', (app) => oidc.ClientSecretPost(app.clientSecret!)],
      ['OIDC_AUTH_METHOD_TYPE_NONE', () => oidc.None()],
    ];
    for (const [authMethodType, auth] of auths) {
      const app = await addApp(kh, projectId, { redirectUris: ['https://app.example/cb'], authMethodType });
      const config = await configFor(app, auth(app));
      expect(await oidc.tokenIntrospection(config, 'no-such-token'), authMethodType).toMatchObject({ active: false });
      await expect(oidc.tokenRevocation(config, 'no-such-token'), authMethodType).resolves.toBeUndefined();
    }
  });

  it('ID token algorithms: only what an app gets; its ID token verifies with them', async () => {
    const metadata = await (await fetch(`${base}/.well-known/openid-configuration`)).json();
    expect(metadata.id_token_signing_alg_values_supported).toEqual(['RS256']);
    const app = await addApp(kh, projectId, { redirectUris: ['http://localhost:3002/cb'] });
    const { tokens } = await codeFlow(await configFor(app, secretBasic(app)), 'http://localhost:3002/cb');
    expect(metadata.id_token_signing_alg_values_supported).toContain(decodeProtectedHeader(tokens.id_token!).alg);
    await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(metadata.jwks_uri)), { issuer: base, audience: app.clientId, algorithms: metadata.id_token_signing_alg_values_supported });
  });

  it('every token endpoint answer openid-client got (tokens and refusals) carries Cache-Control: no-store and Pragma: no-cache', async () => {
    expect(tokenAnswers.filter((r) => r.status === 200).length).toBeGreaterThan(2);
    expect(tokenAnswers.filter((r) => r.status === 400).length).toBeGreaterThan(2);
    for (const res of tokenAnswers) {
      expect(res.headers.get('cache-control'), String(res.status)).toBe('no-store');
      expect(res.headers.get('pragma'), String(res.status)).toBe('no-cache');
    }
  });
});

describe('a second relying party: passport-openidconnect, configured from RFC 8414 metadata', () => {
  /** How passport ended one request: the outcome its middleware would act on. */
  type Outcome = { redirect?: string; user?: { issuer: string; profile: Record<string, unknown>; idToken: string }; fail?: unknown; error?: { code?: string; message?: string } };

  /** One request through the strategy as passport's authenticate middleware runs it: its actions set on a copy of the strategy. */
  function authenticate(strategy: OpenIDConnectStrategy, req: { query?: Record<string, string>; session: Record<string, unknown> }): Promise<Outcome> {
    return new Promise((resolve) => {
      const run = Object.assign(Object.create(strategy), {
        redirect: (url: string) => resolve({ redirect: url }),
        success: (user: Outcome['user']) => resolve({ user }),
        fail: (challenge: unknown) => resolve({ fail: challenge ?? 'failed' }),
        error: (err: Outcome['error']) => resolve({ error: err }),
        pass: () => resolve({ fail: 'passed' }),
      });
      run.authenticate(req, {});
    });
  }

  /** The strategy for `app` from /.well-known/oauth-authorization-server, and every token endpoint answer its HTTP client received. */
  async function passportFor(app: AppCreated, callbackURL: string) {
    const res = await fetch(`${base}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const metadata = await res.json();
    const strategy = new OpenIDConnectStrategy(
      {
        issuer: metadata.issuer,
        authorizationURL: metadata.authorization_endpoint,
        tokenURL: metadata.token_endpoint,
        clientID: app.clientId,
        clientSecret: app.clientSecret,
        callbackURL,
        scope: 'profile',
        nonce: true,
      },
      (issuer, profile, _context, idToken, done) => done(null, { issuer, profile, idToken }),
    );
    // node-oauth picks its HTTP library per URL (OAuth2#_chooseHttpLibrary): node:http, recording each answer's status and head.
    const answers: Array<{ status: number; headers: http.IncomingHttpHeaders }> = [];
    strategy._oauth2._chooseHttpLibrary = () => ({
      request: (options, callback) => {
        // Keyhold listens on 127.0.0.1; the Host header node-oauth set still names localhost.
        const req = http.request({ ...options, host: options.host === 'localhost' ? '127.0.0.1' : options.host }, callback);
        req.on('response', (answer) => answers.push({ status: answer.statusCode ?? 0, headers: answer.headers }));
        return req;
      },
    });
    return { strategy, answers };
  }

  it('logs in with http://localhost:3000 as registered, redeems the code with client_secret_post, checks the ID token; the token answer has Pragma: no-cache', async () => {
    const app = await addApp(kh, projectId, { redirectUris: ['http://localhost:3000'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_POST' });
    const { strategy, answers } = await passportFor(app, 'http://localhost:3000');
    const session: Record<string, unknown> = {};
    const start = await authenticate(strategy, { session });
    const url = new URL(start.redirect!);
    expect(url.origin + url.pathname).toBe(`${base}/oauth/v2/authorize`);
    expect(url.searchParams.get('redirect_uri')).toBe('http://localhost:3000');
    const back = await logIn(browser(base), url, USERNAME, PASSWORD);
    expect(back.origin).toBe('http://localhost:3000');
    const done = await authenticate(strategy, { query: Object.fromEntries(back.searchParams), session });
    expect(done.error ?? done.fail).toBeUndefined();
    expect(done.user!.issuer).toBe(base);
    expect(done.user!.profile.id).toBe(userId);
    // passport checks iss, aud, exp and the nonce but not the signature: checked here against the published keys.
    await jwtVerify(done.user!.idToken, createRemoteJWKSet(new URL(`${base}/oauth/v2/keys`)), { issuer: base, audience: app.clientId });
    expect(answers.map((a) => a.status)).toEqual([200]);
    expect(answers[0]!.headers['cache-control']).toBe('no-store');
    expect(answers[0]!.headers.pragma).toBe('no-cache');
  });

  it('unauthorized_client: at the authorization endpoint for an app without the code grant, and at the token endpoint (with Pragma: no-cache)', async () => {
    const deviceOnly = await addApp(kh, projectId, {
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_POST',
      grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'],
      redirectUris: ['https://app.example/cb'],
    });
    const { strategy, answers } = await passportFor(deviceOnly, 'https://app.example/cb');
    const session: Record<string, unknown> = {};
    const start = await authenticate(strategy, { session });
    const res = await fetch(start.redirect!, { redirect: 'manual' });
    await res.body?.cancel();
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe('https://app.example/cb');
    const refused = await authenticate(strategy, { query: Object.fromEntries(back.searchParams), session });
    expect(refused.error?.code).toBe('unauthorized_client');

    // A code passport would redeem (the state its session holds): the token endpoint refuses the grant itself.
    const again = new URL((await authenticate(strategy, { session })).redirect!);
    const redeemed = await authenticate(strategy, { query: { code: 'not-a-code', state: again.searchParams.get('state')! }, session });
    expect(redeemed.error?.code).toBe('unauthorized_client');
    expect(answers.map((a) => a.status)).toEqual([400]);
    expect(answers[0]!.headers['cache-control']).toBe('no-store');
    expect(answers[0]!.headers.pragma).toBe('no-cache');
  });
});
