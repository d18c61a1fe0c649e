// What the lifecycle calls mean at login: a deactivated app is no
// client, a locked or deactivated user cannot log in and its tokens stop at
// userinfo, and a changed username is still a login name unique across the
// instance. Real clients: openid-client and the login UI over HTTP.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, logIn } from '../../support/oidc-login.js';

let kh: TestKeyhold;
let base: string;
let projectId: string;
const REDIRECT = 'http://localhost:5173/callback';
const PASSWORD = 'a long enough passphrase 42';

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Lifecycle at login' })).body.id;
}, 60_000);
afterAll(async () => kh?.close());

async function addUser(username: string): Promise<string> {
  const res = await kh.rest('POST', '/v2/users/human', {
    username,
    profile: { givenName: 'Grace', familyName: 'Hopper' },
    email: { email: `${username}@example.com` },
    password: { password: PASSWORD, changeRequired: false },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.userId;
}

async function publicApp() {
  const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
  const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  return { app, config };
}

async function authorizeUrl(config: oidc.Configuration) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid profile', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
  return { url, verifier };
}

/** Name, then password, through the login UI: the page answered to the password. */
async function passwordPage(url: URL, username: string, password: string, b = browser(base)): Promise<string> {
  const first = await b.follow(url);
  const next = await b.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: formToken(first.html!), username } });
  const pw = await b.follow(new URL(next.headers.get('location')!, base));
  const answer = await b.request(new URL(formAction(pw.html!, 'password')!, base), { form: { form_token: formToken(pw.html!), password } });
  return answer.text();
}

describe('a deactivated app', () => {
  it('is no client until it is reactivated', async () => {
    const { app, config } = await publicApp();
    const apps = `/management/v1/projects/${projectId}/apps/${app.appId}`;
    expect((await kh.rest('POST', `${apps}/_deactivate`, {})).status).toBe(200);
    const { url } = await authorizeUrl(config);
    const refused = await fetch(url, { redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('invalid_client');

    expect((await kh.rest('POST', `${apps}/_reactivate`, {})).status).toBe(200);
    await addUser('grace.reactivated');
    const { url: again, verifier } = await authorizeUrl(config);
    const back = await logIn(browser(base), again, 'grace.reactivated', PASSWORD, { consent: true });
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });
    expect(tokens.id_token).toBeTruthy();
  });
});

describe('a locked or deactivated user', () => {
  it('cannot log in (whatever the password, the same answer; told only in the browser that signed in before), and its access token ends', async () => {
    const userId = await addUser('grace.locked');
    const { config } = await publicApp();
    const { url, verifier } = await authorizeUrl(config);
    const own = browser(base);
    const back = await logIn(own, url, 'grace.locked', PASSWORD, { consent: true });
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });
    const sub = tokens.claims()!.sub;
    expect((await oidc.fetchUserInfo(config, tokens.access_token, sub)).sub).toBe(userId);

    for (const [step, undo] of [['lock', 'unlock'], ['deactivate', 'reactivate']]) {
      expect((await kh.rest('POST', `/v2/users/${userId}/${step}`, {})).status).toBe(200);
      const fresh = (await authorizeUrl(config)).url;
      fresh.searchParams.set('prompt', 'login');
      // Elsewhere the right password is answered as a wrong one is: nothing about the password or the state.
      for (const password of [PASSWORD, 'not the right passphrase']) {
        const answer = await passwordPage(fresh, 'grace.locked', password);
        expect(answer).toContain('The username or the password is wrong.');
        expect(answer).not.toContain('locked or deactivated');
      }
      // The browser that signed in before is told, whatever the password.
      for (const password of [PASSWORD, 'not the right passphrase']) expect(await passwordPage(fresh, 'grace.locked', password, own)).toContain('This account is locked or deactivated.');
      const userinfo = await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(userinfo.status, `userinfo after ${step}`).toBe(401);
      expect((await kh.rest('POST', `/v2/users/${userId}/${undo}`, {})).status).toBe(200);
    }
    // Ended, not paused: unlocking and reactivating bring no old token back.
    const after = await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(after.status).toBe(401);
  });
});

describe('a changed username', () => {
  it('stays unique across the instance (409) and is the new login name', async () => {
    const userId = await addUser('grace.before');
    await addUser('grace.taken');
    const update = (username: string) =>
      kh.rest('PUT', `/v2/users/human/${userId}`, { username, profile: { givenName: 'Grace', familyName: 'Hopper' } });
    const taken = await update('GRACE.taken');
    expect(taken.status).toBe(409);
    expect(JSON.stringify(taken.body)).toContain('USERNAME_TAKEN');
    expect((await update('grace.after')).status).toBe(200);

    const { config } = await publicApp();
    const { url, verifier } = await authorizeUrl(config);
    const back = await logIn(browser(base), url, 'grace.after', PASSWORD, { consent: true });
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });
    expect(tokens.claims()!.sub).toBe(userId);
    const old = await passwordPage((await authorizeUrl(config)).url, 'grace.before', PASSWORD);
    expect(old).toContain('The username or the password is wrong.');
  });
});
