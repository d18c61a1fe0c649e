// What app fields do at login, each asserted on the tokens or the flow (and its
// absence when not set): accessTokenType JWT, clockSkew, idTokenUserinfoAssertion,
// additionalOrigins (CORS), postLogoutRedirectUris (end_session), NATIVE's
// success page, devMode globs, PRIVATE_KEY_JWT's refusal.
import * as oidc from 'openid-client';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, logIn, type AppCreated } from '../../support/oidc-login.js';

let kh: TestKeyhold;
let base: string;
let projectId: string;
let userId: string;
const USERNAME = 'fields.user';
const PASSWORD = 'fields are effects 17';
const REDIRECT = 'http://localhost:5174/cb';

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Fields' })).body.id;
  const user = await kh.rest('POST', '/v2/users/human', {
    username: USERNAME,
    profile: { givenName: 'Field', familyName: 'User' },
    email: { email: 'field@example.com' },
    password: { password: PASSWORD, changeRequired: false },
  });
  expect(user.status).toBe(200);
  userId = user.body.userId;
}, 60_000);
afterAll(async () => kh?.close());

const configFor = (app: AppCreated, auth: oidc.ClientAuth) => oidc.discovery(new URL(base), app.clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });

async function codeFlow(config: oidc.Configuration, redirect = REDIRECT, scope = 'openid profile email') {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: redirect, scope, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 's' });
  const back = await logIn(browser(base), url, USERNAME, PASSWORD);
  return oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: 's' });
}

const web = (extra: Record<string, unknown> = {}) => ({ redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true, ...extra });

describe('accessTokenType', () => {
  it('JWT: an RFC 9068 access token verifiable against /oauth/v2/keys, audience the client and the project; clockSkew widens it', async () => {
    const app = await addApp(kh, projectId, web({ accessTokenType: 'OIDC_TOKEN_TYPE_JWT', clockSkew: '5s' }));
    const tokens = await codeFlow(await configFor(app, oidc.ClientSecretBasic(app.clientSecret)));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${base}/oauth/v2/keys`)), { issuer: base, typ: 'at+jwt' });
    expect(protectedHeader.typ).toBe('at+jwt');
    expect(payload.aud).toEqual([app.clientId, projectId]);
    expect(payload.client_id).toBe(app.clientId);
    expect(payload.exp! - payload.iat!).toBe(12 * 3600 + 10);
    // Accepted at userinfo like an opaque token (ZITADEL does; the library alone would refuse it).
    const info = await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ sub: payload.sub, preferred_username: USERNAME, email: 'field@example.com' });
    // A tampered one is not.
    const [h, p, s] = tokens.access_token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: 'someone-else' })).toString('base64url')}.${s}`;
    const refused = await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${forged}` } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('invalid_token');
    void p;
    // Introspection and revocation refuse it by name (RFC 7009 unsupported_token_type), never
    // `active: false`: a resource server must not mistake a live JWT for a revoked one.
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret!)}`).toString("base64")}`;
    for (const path of ['/oauth/v2/introspect', '/oauth/v2/revoke']) {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: tokens.access_token, token_type_hint: 'access_token' }),
      });
      expect(res.status, path).toBe(400);
      expect(await res.json(), path).toMatchObject({ error: 'unsupported_token_type' });
    }
    // Still good at userinfo after the refused revocation.
    expect((await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);
    // Deactivating the app ends it there at once.
    expect((await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${app.appId}/_deactivate`, {})).status).toBe(200);
    expect((await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(401);
  });

  it('BEARER (default): an opaque access token', async () => {
    const app = await addApp(kh, projectId, web());
    const tokens = await codeFlow(await configFor(app, oidc.ClientSecretBasic(app.clientSecret)));
    expect(tokens.access_token.split('.')).toHaveLength(1);
  });
});

describe('clockSkew', () => {
  it('on the ID token: exp later, iat, nbf and auth_time earlier by the skew; without it the library\'s values', async () => {
    const skewed = await addApp(kh, projectId, web({ clockSkew: '5s' }));
    const before = Math.floor(Date.now() / 1000);
    const tokens = await codeFlow(await configFor(skewed, oidc.ClientSecretBasic(skewed.clientSecret)));
    const after = Math.floor(Date.now() / 1000);
    const jwks = createRemoteJWKSet(new URL(`${base}/oauth/v2/keys`));
    const { payload } = await jwtVerify(tokens.id_token!, jwks, { issuer: base, audience: skewed.clientId });
    expect(payload.iat!).toBeGreaterThanOrEqual(before - 5);
    expect(payload.iat!).toBeLessThanOrEqual(after - 5);
    expect(payload.nbf).toBe(payload.iat);
    expect(payload.exp! - payload.iat!).toBe(12 * 3600 + 10);
    expect(payload.auth_time as number).toBeLessThanOrEqual(after - 5);
    expect(payload.auth_time as number).toBeGreaterThanOrEqual(before - 6);

    const plain = await addApp(kh, projectId, web());
    const t2 = await codeFlow(await configFor(plain, oidc.ClientSecretBasic(plain.clientSecret)));
    const p2 = decodeJwt(t2.id_token!);
    expect(p2.nbf).toBeUndefined();
    expect(p2.exp! - p2.iat!).toBe(12 * 3600);
    expect(p2.iat!).toBeGreaterThanOrEqual(before);
    expect(p2.auth_time as number).toBeGreaterThanOrEqual(before - 1);
  });
});

describe('idTokenUserinfoAssertion', () => {
  it('set: profile and email claims are in the ID token; not set: only at userinfo', async () => {
    const on = await addApp(kh, projectId, web({ idTokenUserinfoAssertion: true }));
    const withClaims = decodeJwt((await codeFlow(await configFor(on, oidc.ClientSecretBasic(on.clientSecret)))).id_token!);
    expect(withClaims).toMatchObject({ preferred_username: USERNAME, given_name: 'Field', email: 'field@example.com' });
    const off = await addApp(kh, projectId, web());
    const config = await configFor(off, oidc.ClientSecretBasic(off.clientSecret));
    const tokens = await codeFlow(config);
    const idToken = decodeJwt(tokens.id_token!);
    expect(idToken.preferred_username).toBeUndefined();
    expect(idToken.email).toBeUndefined();
    expect(await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub!)).toMatchObject({ preferred_username: USERNAME, email: 'field@example.com' });
  });
});

describe('additionalOrigins', () => {
  it('CORS at the token and userinfo endpoints for a listed origin and the redirect URIs’ origins, not for others', async () => {
    const app = await addApp(kh, projectId, web({ additionalOrigins: ['https://spa.example'] }));
    const tokens = await codeFlow(await configFor(app, oidc.ClientSecretBasic(app.clientSecret)));
    const userinfo = (origin: string) => fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}`, origin } });
    expect((await userinfo('https://spa.example')).headers.get('access-control-allow-origin')).toBe('https://spa.example');
    expect((await userinfo('http://localhost:5174')).headers.get('access-control-allow-origin')).toBe('http://localhost:5174');
    const other = await userinfo('https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('postLogoutRedirectUris', () => {
  it('end_session redirects to a registered post-logout URI (with id_token_hint) and ends the session; an unregistered one is refused', async () => {
    const app = await addApp(kh, projectId, web({ postLogoutRedirectUris: ['http://localhost:5174/bye'] }));
    const config = await configFor(app, oidc.ClientSecretBasic(app.clientSecret));
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const b = browser(base);
    const back = await logIn(b, url, USERNAME, PASSWORD);
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });

    const refused = await b.follow(oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'https://evil.example/bye' }));
    expect(refused.left).toBeUndefined();
    expect(refused.page!.status).toBe(400);
    expect(refused.html).toContain('post_logout_redirect_uri');

    const confirm = await b.follow(oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'http://localhost:5174/bye', state: 'bye' }));
    expect(confirm.html).toContain('Sign out');
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.html!)![1];
    const action = /action="([^"]+)"/.exec(confirm.html!)![1];
    const done = await b.request(new URL(action, base), { form: { xsrf, logout: 'yes' } });
    const left = await b.follow(new URL(done.headers.get('location')!, base));
    expect(left.left?.href).toBe('http://localhost:5174/bye?state=bye');
    // The session is over: the next authorization asks for the username again.
    const again = await b.follow(url);
    expect(formAction(again.html!, 'username')).toBeTruthy();
  });
});

describe('appType NATIVE', () => {
  it('loopback on any port; a "you may close this window" page before the redirect unless skipNativeAppSuccessPage', async () => {
    for (const skip of [false, true]) {
      const app = await addApp(kh, projectId, {
        appType: 'OIDC_APP_TYPE_NATIVE',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
        redirectUris: ['http://127.0.0.1/cb', 'com.example.app:/cb'],
        skipNativeAppSuccessPage: skip,
      });
      const config = await configFor(app, oidc.None());
      const url = oidc.buildAuthorizationUrl(config, { redirect_uri: 'http://127.0.0.1:49152/cb', scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
      const b = browser(base);
      let step = await b.follow(url);
      for (const [name, form] of [
        ['username', { username: USERNAME }],
        ['password', { password: PASSWORD }],
      ] as const) {
        const res = await b.request(new URL(formAction(step.html!, name)!, base), { form: { form_token: formToken(step.html!), ...form } });
        const location = res.headers.get('location');
        step = location ? await b.follow(new URL(location, base)) : { page: res, html: await res.text(), url: step.url };
      }
      if (skip) {
        expect(step.left?.href).toMatch(/^http:\/\/127\.0\.0\.1:49152\/cb\?code=/);
      } else {
        expect(step.html).toContain('You may close this window');
        const link = /<a href="([^"]+)"/.exec(step.html!)![1].replaceAll('&amp;', '&');
        const left = await b.follow(new URL(link, base));
        expect(left.left?.href).toMatch(/^http:\/\/127\.0\.0\.1:49152\/cb\?code=/);
      }
    }
  });
});

describe('devMode and authMethodType', () => {
  it('devMode: a glob redirect URI matches; without devMode the same glob does not', async () => {
    for (const devMode of [true, false]) {
      const app = await addApp(kh, projectId, { redirectUris: [REDIRECT, 'http://localhost:5174/preview/*'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode });
      const url = new URL(`${base}/oauth/v2/authorize`);
      url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: 'http://localhost:5174/preview/pr-17', response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM', code_challenge_method: 'S256' }).toString();
      const res = await fetch(url, { redirect: 'manual' });
      if (devMode) expect(res.headers.get('location')).toMatch(new RegExp(`^${base}/ui/login/`));
      else expect(res.status).toBe(400);
    }
  });

  it('PRIVATE_KEY_JWT: the authorization request goes to the login (the app proves itself at the token endpoint: private-key-jwt.test.ts)', async () => {
    const app = await addApp(kh, projectId, { redirectUris: ['https://a.example/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' });
    const url = new URL(`${base}/oauth/v2/authorize`);
    url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: 'https://a.example/cb', response_type: 'code', scope: 'openid' }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${base}/ui/login/`));
  });
});

describe('who may log in, and the roles claim', () => {
  it('projectRoleCheck: without a grant a clear page, not a code; with one the roles appear where asserted', async () => {
    const project = await kh.rest('POST', '/management/v1/projects', { name: 'Checked', projectRoleCheck: true });
    expect(project.status).toBe(200);
    const checked = project.body.id as string;
    const app = await addApp(kh, checked, web({ accessTokenType: 'OIDC_TOKEN_TYPE_JWT', accessTokenRoleAssertion: true, idTokenRoleAssertion: true }));
    const config = await configFor(app, oidc.ClientSecretBasic(app.clientSecret));
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
    // No grant yet: the login ends on a page saying so, with no redirect to the app.
    const b = browser(base);
    let step = await b.follow(url);
    for (const [name, form] of [
      ['username', { username: USERNAME }],
      ['password', { password: PASSWORD }],
    ] as const) {
      const res = await b.request(new URL(formAction(step.html!, name)!, base), { form: { form_token: formToken(step.html!), ...form } });
      const location = res.headers.get('location');
      step = location ? await b.follow(new URL(location, base)) : { page: res, html: await res.text(), url: step.url };
    }
    expect(step.left).toBeUndefined();
    expect(step.page!.status).toBe(403);
    expect(step.html).toContain('You have no access to this application.');

    // A role and a grant: now the user logs in, and the roles are in the ID token, the JWT access token and (with the scope) at userinfo.
    expect((await kh.rest('POST', `/management/v1/projects/${checked}/roles`, { roleKey: 'editor', displayName: 'Editor' })).status).toBe(200);
    const grant = await kh.rest('POST', `/management/v1/users/${userId}/grants`, { projectId: checked, roleKeys: ['editor'] });
    expect(grant.status).toBe(200);
    const verifier = oidc.randomPKCECodeVerifier();
    const again = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid urn:keyhold:iam:org:project:roles', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const back = await logIn(browser(base), again, USERNAME, PASSWORD);
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });
    const ROLES = 'urn:keyhold:iam:org:project:roles';
    const idRoles = decodeJwt(tokens.id_token!)[ROLES] as Record<string, Record<string, string>>;
    expect(Object.keys(idRoles)).toEqual(['editor']);
    expect(Object.values(idRoles.editor)).toHaveLength(1);
    expect((decodeJwt(tokens.access_token)[ROLES] as object)).toEqual(idRoles);
    const info = await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await info.json())[ROLES]).toEqual(idRoles);
  });

  it('without idTokenRoleAssertion and without the roles scope: no roles claim in the ID token', async () => {
    const project = (await kh.rest('POST', '/management/v1/projects', { name: 'Unasserted' })).body.id as string;
    expect((await kh.rest('POST', `/management/v1/projects/${project}/roles`, { roleKey: 'viewer', displayName: 'Viewer' })).status).toBe(200);
    expect((await kh.rest('POST', `/management/v1/users/${userId}/grants`, { projectId: project, roleKeys: ['viewer'] })).status).toBe(200);
    const app = await addApp(kh, project, web());
    const tokens = await codeFlow(await configFor(app, oidc.ClientSecretBasic(app.clientSecret)), REDIRECT, 'openid');
    expect(decodeJwt(tokens.id_token!)['urn:keyhold:iam:org:project:roles']).toBeUndefined();
  });
});

describe('roles at introspection', () => {
  it('with the roles scope the introspection answer carries the user\'s current roles; without it none', async () => {
    const project = (await kh.rest('POST', '/management/v1/projects', { name: 'Introspected' })).body.id as string;
    expect((await kh.rest('POST', `/management/v1/projects/${project}/roles`, { roleKey: 'reader', displayName: 'Reader' })).status).toBe(200);
    expect((await kh.rest('POST', `/management/v1/projects/${project}/roles`, { roleKey: 'writer', displayName: 'Writer' })).status).toBe(200);
    const grant = await kh.rest('POST', `/management/v1/users/${userId}/grants`, { projectId: project, roleKeys: ['reader'] });
    expect(grant.status).toBe(200);
    const app = await addApp(kh, project, web());
    const config = await configFor(app, oidc.ClientSecretBasic(app.clientSecret));
    const ROLES = 'urn:keyhold:iam:org:project:roles';
    const withScope = await codeFlow(config, REDIRECT, `openid ${ROLES}`);
    const answer = await oidc.tokenIntrospection(config, withScope.access_token);
    expect(answer.active).toBe(true);
    const roles = answer[ROLES] as Record<string, Record<string, string>>;
    expect(Object.keys(roles)).toEqual(['reader']);
    expect(Object.keys(roles.reader!)).toHaveLength(1);
    const without = await codeFlow(config, REDIRECT, 'openid');
    const plain = await oidc.tokenIntrospection(config, without.access_token);
    expect(plain.active).toBe(true);
    expect(plain[ROLES]).toBeUndefined();
  });
});

describe('responseTypes and grantTypes', () => {
  const authorize = (clientId: string, responseType: string, extra: Record<string, string> = {}) => {
    const url = new URL(`${base}/oauth/v2/authorize`);
    url.search = new URLSearchParams({ client_id: clientId, redirect_uri: 'https://implicit.example/cb', response_type: responseType, scope: 'openid', nonce: 'n', ...extra }).toString();
    return url;
  };

  it('implicit (id_token) and hybrid (code id_token) only where registered; an implicit web app on https logs in', async () => {
    const implicit = await addApp(kh, projectId, {
      redirectUris: ['https://implicit.example/cb'],
      responseTypes: ['OIDC_RESPONSE_TYPE_ID_TOKEN'],
      grantTypes: ['OIDC_GRANT_TYPE_IMPLICIT'],
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      appType: 'OIDC_APP_TYPE_USER_AGENT',
    });
    const back = await logIn(browser(base), authorize(implicit.clientId, 'id_token'), USERNAME, PASSWORD);
    const fragment = new URLSearchParams(back.hash.slice(1));
    expect(decodeJwt(fragment.get('id_token')!).nonce).toBe('n');
    // code is not registered for it: refused back at the app.
    const code = await fetch(authorize(implicit.clientId, 'code', { code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM', code_challenge_method: 'S256' }), { redirect: 'manual' });
    const refusal = new URL(code.headers.get('location')!);
    expect(refusal.searchParams.get('error')).toBe('unauthorized_client');
    expect(refusal.searchParams.get('error_description')).toBe('this app may not use the response type code: add it to its response types (and its grant type to its grant types)');

    const codeOnly = await addApp(kh, projectId, web({ redirectUris: ['https://implicit.example/cb'] }));
    for (const type of ['id_token', 'code id_token']) {
      const res = await fetch(authorize(codeOnly.clientId, type), { redirect: 'manual' });
      const location = new URL(res.headers.get('location')!);
      const params = location.hash ? new URLSearchParams(location.hash.slice(1)) : location.searchParams;
      expect(params.get('error')).toBe('unauthorized_client');
      expect(params.get('error_description')).toContain(`may not use the response type ${type}`);
    }

    const hybrid = await addApp(kh, projectId, {
      redirectUris: ['https://implicit.example/cb'],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE', 'OIDC_RESPONSE_TYPE_ID_TOKEN'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_IMPLICIT'],
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    });
    const hybridBack = await logIn(browser(base), authorize(hybrid.clientId, 'code id_token'), USERNAME, PASSWORD);
    const parts = new URLSearchParams(hybridBack.hash.slice(1));
    expect(parts.get('code')).toBeTruthy();
    expect(decodeJwt(parts.get('id_token')!).c_hash).toBeTruthy();
  });

  it('ui_locales picks the login page language over Accept-Language', async () => {
    const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
    const url = new URL(`${base}/oauth/v2/authorize`);
    url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', ui_locales: 'fr de', login_hint: USERNAME, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM', code_challenge_method: 'S256' }).toString();
    const page = await browser(base, { 'accept-language': 'en' }).follow(url);
    expect(page.html).toContain('<html lang="de">');
    expect(page.html).toContain('Benutzername');
    // login_hint fills the username field.
    expect(page.html).toContain(`value="${USERNAME}"`);
  });
});
