// Cases of the OpenID Provider the login suite does not cover, with real
// clients (openid-client, jose + plain HTTP, the login pages over HTTP):
// - the ID token's at_hash where one is issued (implicit `id_token token`,
//   hybrid `code id_token token`): base64url of the left half of SHA-256 of
//   the access token (OIDC Core 3.2.2.9, 3.3.2.11), signature against the JWKS;
// - a missing and a wrong PKCE verifier at the token endpoint: invalid_grant;
// - a username two orgs' users hold (rows from before usernames became unique
//   across the instance) logs in only with the org scope urn:keyhold:iam:org:id:{orgId}.
import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLISION_SEPARATOR } from '../../../src/store/rekey-identifiers.js';
import { addOrg, inOrg } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, logIn } from '../../support/oidc-login.js';

let kh: TestKeyhold;
let base: string;
let projectId: string;
const USERNAME = 'hash.checker';
const PASSWORD = 'checked password 17';
const REDIRECT = 'http://localhost:5173/callback';

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Done when' })).body.id;
  const user = await kh.rest('POST', '/v2/users/human', { username: USERNAME, profile: { givenName: 'H', familyName: 'C' }, email: { email: 'h@example.com' }, password: { password: PASSWORD, changeRequired: false } });
  expect(user.status).toBe(200);
}, 60_000);
afterAll(async () => kh?.close());

/** OIDC Core: base64url of the left-most half of the hash of the token's ASCII octets (SHA-256 for RS256 and ES256). */
const halfHash = (token: string) => createHash('sha256').update(token, 'ascii').digest().subarray(0, 16).toString('base64url');

describe('at_hash where an access token comes with the ID token', () => {
  const authorize = (clientId: string, responseType: string) => {
    const url = new URL(`${base}/oauth/v2/authorize`);
    url.search = new URLSearchParams({ client_id: clientId, redirect_uri: 'https://implicit.example/cb', response_type: responseType, scope: 'openid', nonce: 'n-hash', state: 's' }).toString();
    return url;
  };
  const verified = async (idToken: string, clientId: string) =>
    (await jwtVerify(idToken, createRemoteJWKSet(new URL(`${base}/oauth/v2/keys`)), { issuer: base, audience: clientId })).payload;

  it('implicit id_token token: at_hash matches the access token; the signature verifies against the JWKS', async () => {
    const app = await addApp(kh, projectId, {
      redirectUris: ['https://implicit.example/cb'],
      responseTypes: ['OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN'],
      grantTypes: ['OIDC_GRANT_TYPE_IMPLICIT'],
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      appType: 'OIDC_APP_TYPE_USER_AGENT',
    });
    const back = await logIn(browser(base), authorize(app.clientId, 'id_token token'), USERNAME, PASSWORD);
    const fragment = new URLSearchParams(back.hash.slice(1));
    const accessToken = fragment.get('access_token')!;
    expect(accessToken).toBeTruthy();
    const claims = await verified(fragment.get('id_token')!, app.clientId);
    expect(claims.nonce).toBe('n-hash');
    expect(claims.at_hash).toBe(halfHash(accessToken));
    // The check can fail: another token's half hash differs.
    expect(claims.at_hash).not.toBe(halfHash(`${accessToken}x`));
  });

  it('hybrid code id_token token: at_hash of the front-channel access token, c_hash of the code', async () => {
    const app = await addApp(kh, projectId, {
      redirectUris: ['https://implicit.example/cb'],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE', 'OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_IMPLICIT'],
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    });
    const back = await logIn(browser(base), authorize(app.clientId, 'code id_token token'), USERNAME, PASSWORD);
    const fragment = new URLSearchParams(back.hash.slice(1));
    const claims = await verified(fragment.get('id_token')!, app.clientId);
    expect(claims.at_hash).toBe(halfHash(fragment.get('access_token')!));
    expect(claims.c_hash).toBe(halfHash(fragment.get('code')!));
  });
});

describe('PKCE at the token endpoint', () => {
  /** A code issued for a challenge, through the login pages; the token request is plain HTTP so the verifier can be left out. */
  async function codeFor(verifier: string) {
    const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
    const url = new URL(`${base}/oauth/v2/authorize`);
    url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }).toString();
    const back = await logIn(browser(base), url, USERNAME, PASSWORD);
    return { clientId: app.clientId, code: back.searchParams.get('code')! };
  }
  const token = (form: Record<string, string>) =>
    fetch(`${base}/oauth/v2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', redirect_uri: REDIRECT, ...form }) });

  it('a missing verifier and a wrong one: invalid_grant; the right one: tokens', async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const missing = await codeFor(verifier);
    const noVerifier = await token({ client_id: missing.clientId, code: missing.code });
    expect(noVerifier.status).toBe(400);
    expect((await noVerifier.json()).error).toBe('invalid_grant');

    const wrong = await codeFor(verifier);
    const wrongVerifier = await token({ client_id: wrong.clientId, code: wrong.code, code_verifier: oidc.randomPKCECodeVerifier() });
    expect(wrongVerifier.status).toBe(400);
    expect((await wrongVerifier.json()).error).toBe('invalid_grant');

    const right = await codeFor(verifier);
    const ok = await token({ client_id: right.clientId, code: right.code, code_verifier: verifier });
    expect(ok.status).toBe(200);
    expect((await ok.json()).access_token).toBeTruthy();
  });
});

describe('a username two orgs share (rows from before instance-wide uniqueness)', () => {
  it('logs in only with the org scope, each org’s user with its own password', async () => {
    const orgA = await addOrg(kh, `Twins A ${Date.now()}`);
    const orgB = await addOrg(kh, `Twins B ${Date.now()}`);
    const human = (username: string, orgId: string, password: string) =>
      kh.rest('POST', '/v2/users/human', { username, organization: { orgId }, profile: { givenName: 'T', familyName: 'W' }, email: { email: `${username}@example.com` }, password: { password, changeRequired: false } }, inOrg(orgId));
    const a = await human('twin', orgA, 'password of twin a 17');
    expect(a.status).toBe(200);
    // Today a second "twin" is refused across the instance…
    expect((await human('TWIN', orgB, 'password of twin b 17')).status).toBe(409);
    // …so B's row is made as the migration to instance-wide names left such rows: the same
    // username (and per-org key), the login-name key kept apart by the collision suffix.
    const b = await human('twin-b', orgB, 'password of twin b 17');
    expect(b.status).toBe(200);
    await kh.database.sql.query({
      text: `update users set username = a.username, username_key = a.username_key, login_name_key = a.login_name_key || $3 || $2
             from users a where a.id = $1 and users.id = $2`,
      params: [a.body.userId, b.body.userId, COLLISION_SEPARATOR],
    });

    const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
    const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const flow = async (scope: string, password: string) => {
      const verifier = oidc.randomPKCECodeVerifier();
      const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 's' });
      const back = await logIn(browser(base), url, 'twin', password);
      const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: 's' });
      return decodeJwt(tokens.id_token!).sub;
    };
    expect(await flow(`openid urn:keyhold:iam:org:id:${orgA}`, 'password of twin a 17')).toBe(a.body.userId);
    expect(await flow(`openid urn:keyhold:iam:org:id:${orgB}`, 'password of twin b 17')).toBe(b.body.userId);

    // Without the scope the name names nobody: even a right password is "wrong" (nothing tells which org's user exists).
    const b2 = browser(base);
    const verifier = oidc.randomPKCECodeVerifier();
    let step = await b2.follow(oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }));
    const post = async (name: string, form: Record<string, string>) => {
      const res = await b2.request(new URL(formAction(step.html!, name)!, base), { form: { form_token: formToken(step.html!), ...form } });
      const location = res.headers.get('location');
      step = location ? await b2.follow(new URL(location, base)) : { page: res, html: await res.text(), url: step.url };
    };
    await post('username', { username: 'twin' });
    await post('password', { password: 'password of twin a 17' });
    expect(step.left).toBeUndefined();
    expect(step.html).toContain('The username or the password is wrong.');
    // With the other org's scope, A's password is wrong for B's user.
    await expect(flow(`openid urn:keyhold:iam:org:id:${orgB}`, 'password of twin a 17')).rejects.toThrow(/did not return to the app/);
  });
});
