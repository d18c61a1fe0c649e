// A user's sessions end with the change that ends them, everywhere at once:
// an administrator's password reset (with or without changeRequired),
// LockUser and DeactivateUser (and stay ended after unlock / reactivate),
// RemoveUser and the user's own RemoveMySessions. "Ended" as a client sees
// it: the browser's silent sign-in (prompt=none) is login_required, the
// refresh token invalid_grant, the opaque access token refused at userinfo and
// introspection, the API token refused on the API, the JWT access token
// refused at userinfo. The user's own new password ends nothing; another
// user's sessions are untouched. A browser whose session belongs to a locked
// user is shown the login, not an error. On PGlite and PostgreSQL; real
// clients: openid-client and the login UI over HTTP.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, logIn, type AppCreated, type Browser } from '../../support/oidc-login.js';

const API_SCOPE = 'urn:keyhold:iam:api:aud';
const REDIRECT = 'http://localhost:5176/cb';
const PASSWORD = 'sessions end here 1';
const NEW_PASSWORD = 'a new passphrase 2';

announcePostgresSkip('ending sessions on PostgreSQL');

const nextSecond = () => new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 10));

for (const backend of ['PGlite', 'PostgreSQL'] as const) {
  describe.skipIf(backend === 'PostgreSQL' && !postgresAvailable)(`ending sessions (${backend})`, () => {
    let kh: TestKeyhold;
    let base: string;
    let web: { app: AppCreated; config: oidc.Configuration };
    let jwtApp: { app: AppCreated; config: oidc.Configuration };
    let consoleConfig: oidc.Configuration;

    beforeAll(async () => {
      kh = await startTestKeyhold({ postgres: backend === 'PostgreSQL' });
      base = `http://localhost:${kh.port}`;
      const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Sessions' })).body.id;
      const discover = (app: AppCreated) =>
        oidc.discovery(new URL(base), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret!), { execute: [oidc.allowInsecureRequests] });
      const webApp = await addApp(kh, projectId, {
        redirectUris: [REDIRECT],
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
        devMode: true,
      });
      web = { app: webApp, config: await discover(webApp) };
      const jwt = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', accessTokenType: 'OIDC_TOKEN_TYPE_JWT', devMode: true });
      jwtApp = { app: jwt, config: await discover(jwt) };
      consoleConfig = await oidc.discovery(new URL(base), 'keyhold-console', undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    }, 90_000);
    afterAll(async () => kh?.close());

    async function addUser(username: string): Promise<string> {
      const res = await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'S', familyName: 'E' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.userId;
    }

    async function codeFlow(b: Browser, config: oidc.Configuration, redirect: string, username: string, password: string, params: Record<string, string> = {}) {
      const verifier = oidc.randomPKCECodeVerifier();
      const url = oidc.buildAuthorizationUrl(config, { redirect_uri: redirect, scope: 'openid profile', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', ...params });
      const back = await logIn(b, url, username, password);
      return oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });
    }

    /** Three sessions of the user, in three browsers: the web app's tokens (with a refresh token), an API token (the console), a JWT access token. */
    async function signIn(username: string, password = PASSWORD) {
      const browsers = { web: browser(base), api: browser(base), jwt: browser(base) };
      const webTokens = await codeFlow(browsers.web, web.config, REDIRECT, username, password, { scope: 'openid profile offline_access', prompt: 'consent' });
      const apiTokens = await codeFlow(browsers.api, consoleConfig, `${base}/console/`, username, password, { scope: `openid profile ${API_SCOPE}` });
      const jwtTokens = await codeFlow(browsers.jwt, jwtApp.config, REDIRECT, username, password);
      expect(webTokens.refresh_token).toBeTruthy();
      // The refresh token rotates at each use: the holder keeps the newest.
      return { browsers, web: webTokens, refresh: { token: webTokens.refresh_token! }, api: apiTokens.access_token, jwt: jwtTokens.access_token };
    }
    type Sessions = Awaited<ReturnType<typeof signIn>>;

    /** What each of the user's sessions answers now, as its client sees it. */
    async function state(s: Sessions) {
      const silent = await s.browsers.web.follow(
        oidc.buildAuthorizationUrl(web.config, { redirect_uri: REDIRECT, scope: 'openid', prompt: 'none', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256' }),
      );
      const refresh = await oidc.refreshTokenGrant(web.config, s.refresh.token).then(
        (t) => {
          s.refresh.token = t.refresh_token!;
          return 'ok';
        },
        (e: { error?: string }) => e.error ?? 'failed',
      );
      const userinfo = async (token: string) => (await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status;
      return {
        silentSignIn: silent.left?.searchParams.get('code') ? 'code' : (silent.left?.searchParams.get('error') ?? `page ${silent.page?.status}`),
        refresh,
        userinfo: await userinfo(s.web.access_token),
        introspection: (await oidc.tokenIntrospection(web.config, s.web.access_token)).active,
        api: (await fetch(`${base}/auth/v1/users/me`, { headers: { authorization: `Bearer ${s.api}` } })).status,
        jwtUserinfo: await userinfo(s.jwt),
      };
    }
    const LIVE = { silentSignIn: 'code', refresh: 'ok', userinfo: 200, introspection: true, api: 200, jwtUserinfo: 200 };
    const ENDED = { silentSignIn: 'login_required', refresh: 'invalid_grant', userinfo: 401, introspection: false, api: 401, jwtUserinfo: 401 };

    const admin = (path: string, body: unknown = {}) => kh.rest('POST', path, body).then((r) => expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200));
    /** The changes that end every session of the user; `password`: the one to sign in with afterwards (none: the user cannot). */
    const ENDING: { what: string; change: (userId: string, s: Sessions) => Promise<unknown>; password?: string }[] = [
      { what: "an administrator's password reset", change: (id) => admin(`/v2/users/${id}/password`, { newPassword: { password: NEW_PASSWORD } }), password: NEW_PASSWORD },
      { what: "an administrator's password reset with changeRequired", change: (id) => admin(`/v2/users/${id}/password`, { newPassword: { password: NEW_PASSWORD, changeRequired: true } }) },
      { what: 'LockUser, then UnlockUser', change: async (id) => (await admin(`/v2/users/${id}/lock`), admin(`/v2/users/${id}/unlock`)), password: PASSWORD },
      { what: 'DeactivateUser, then ReactivateUser', change: async (id) => (await admin(`/v2/users/${id}/deactivate`), admin(`/v2/users/${id}/reactivate`)), password: PASSWORD },
      {
        what: "the user's own RemoveMySessions (with its API token)",
        change: async (_id, s) => expect((await kh.rest('DELETE', '/auth/v1/users/me/sessions', undefined, { authorization: `Bearer ${s.api}` })).status).toBe(200),
        password: PASSWORD,
      },
      { what: 'RemoveUser', change: (id) => kh.rest('DELETE', `/v2/users/${id}`).then((r) => expect(r.status).toBe(200)) },
    ];

    for (const { what, change, password } of ENDING) {
      it(`${what} ends every session and token of the user, and no other user's`, async () => {
        const name = `ends.${ENDING.findIndex((e) => e.what === what)}`;
        const userId = await addUser(name);
        await addUser(`${name}.other`);
        const sessions = await signIn(name);
        const others = await signIn(`${name}.other`);
        expect(await state(sessions)).toEqual(LIVE);

        await change(userId, sessions);
        expect(await state(sessions)).toEqual(ENDED);
        expect(await state(others), 'another user').toEqual(LIVE);
        if (password) {
          // A JWT access token issued in the second the sessions ended is refused too (its iat cannot tell before from after).
          await nextSecond();
          expect(await state(await signIn(name, password)), 'a new sign-in').toEqual(LIVE);
        }
      });
    }

    it("the user's own new password ends nothing", async () => {
      const userId = await addUser('keeps.own');
      const sessions = await signIn('keeps.own');
      const res = await kh.rest('POST', `/v2/users/${userId}/password`, { newPassword: { password: NEW_PASSWORD } }, { authorization: `Bearer ${sessions.api}` });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await state(sessions)).toEqual(LIVE);
    });

    it('RemoveMySessions is audited as the user\'s event; a personal access token stays', async () => {
      const userId = await addUser('audited.ends');
      const sessions = await signIn('audited.ends');
      const res = await kh.rest('DELETE', '/auth/v1/users/me/sessions', undefined, { authorization: `Bearer ${sessions.api}` });
      expect(res.status).toBe(200);
      expect(res.body.details.resourceOwner).toBeTruthy();
      const events = await kh.database.sql.query<{ type: string; creator: string }>({ text: `select type, creator from events where aggregate_id = $1 and type = 'user.sessions.ended'`, params: [userId] });
      expect(events).toEqual([{ type: 'user.sessions.ended', creator: userId }]);
      // The admin (a machine user with a PAT) ends its own sessions: it has none, and its PAT is no session.
      expect((await kh.rest('DELETE', '/auth/v1/users/me/sessions')).status).toBe(200);
      expect((await kh.rest('GET', '/auth/v1/users/me')).status).toBe(200);
    });

    describe('a browser whose session belongs to a user since locked', () => {
      /** The browser's next authorization request: the login page (its username form), not an error. */
      async function nextSignIn(b: Browser) {
        const url = oidc.buildAuthorizationUrl(web.config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
        const step = await b.follow(url);
        return { status: step.page?.status, loginForm: /action="[^"]*\/username"/.test(step.html ?? ''), left: step.left?.toString() };
      }

      it('is shown the login', async () => {
        const userId = await addUser('locked.browser');
        const sessions = await signIn('locked.browser');
        await admin(`/v2/users/${userId}/lock`);
        expect(await nextSignIn(sessions.browsers.web)).toEqual({ status: 200, loginForm: true, left: undefined });
      });

      it('is shown the login also when the session outlived the lock (not deleted with it: stored before sessions named their user)', async () => {
        const userId = await addUser('locked.kept');
        const sessions = await signIn('locked.kept');
        await kh.database.sql.query({ text: `update oidc_payloads set account_id = null where model = 'Session' and account_id = $1`, params: [userId] });
        await admin(`/v2/users/${userId}/lock`);
        expect(await nextSignIn(sessions.browsers.web)).toEqual({ status: 200, loginForm: true, left: undefined });
      });

      it('locked between its right password and its return to the app: the app is told access_denied', async () => {
        const userId = await addUser('locked.midway');
        const b = browser(base);
        const url = oidc.buildAuthorizationUrl(web.config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
        const named = await b.follow(url);
        const toPassword = await b.request(new URL(formAction(named.html!, 'username')!, named.url), { form: { form_token: formToken(named.html!), username: 'locked.midway' } });
        const asked = await b.follow(new URL(toPassword.headers.get('location')!, named.url));
        const signedIn = await b.request(new URL(formAction(asked.html!, 'password')!, asked.url), { form: { form_token: formToken(asked.html!), password: PASSWORD } });
        const toApp = signedIn.headers.get('location');
        expect(toApp, 'the password step sends the browser on').toBeTruthy();
        await admin(`/v2/users/${userId}/lock`);
        const back = await b.follow(new URL(toApp!, asked.url));
        expect(back.left?.searchParams.get('error')).toBe('access_denied');
      });
    });

    it('a session saved again by a request in flight when the sessions ended does not sign in silently', async () => {
      const userId = await addUser('saved.again');
      const sessions = await signIn('saved.again');
      const kept = await kh.database.sql.query<{ model: string; key: string; payload: unknown; expires_at: Date }>({
        text: `select model, key, payload::text as payload, expires_at from oidc_payloads where model = 'Session' and account_id = $1`,
        params: [userId],
      });
      expect(kept.length).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 1100)); // the sign-ins lie in an earlier second than the end
      await admin(`/v2/users/${userId}/password`, { newPassword: { password: NEW_PASSWORD } });
      // What a request that loaded the session before the reset writes after it: the session as it was.
      for (const row of kept) {
        await kh.database.sql.query({
          text: `insert into oidc_payloads (model, key, payload, expires_at, account_id) values ($1, $2, $3::jsonb, $4, $5)`,
          params: [row.model, row.key, row.payload, row.expires_at, userId],
        });
      }
      expect((await state(sessions)).silentSignIn).toBe('login_required');
    });
  });
}
