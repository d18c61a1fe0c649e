// Keyhold as an OpenID Provider, end to end with real clients: openid-client v6
// for discovery and the grants, jose + plain HTTP for the ID token and the JWKS,
// the login UI driven over HTTP with a cookie jar (test/support/oidc-login.ts).
// Each app is created by AddOIDCApp a moment before it logs in.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../support/databases.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, logIn, type AppCreated } from '../../support/oidc-login.js';

/**
 * The whole login suite on one engine: login-flow.pglite.test.ts and
 * login-flow.postgres.test.ts run it on each, so both serve the same logins.
 */
export function loginFlowSuite(engine: 'pglite' | 'postgres'): void {
  describe.skipIf(engine === 'postgres' && !postgresAvailable)(`on ${engine}`, () => {
    let kh: TestKeyhold;
    let base: string;
    let projectId: string;
    let userId: string;
    const USERNAME = 'ada.lovelace';
    const PASSWORD = 'correct horse battery staple 17';

    beforeAll(async () => {
      kh = await startTestKeyhold({ postgres: engine === 'postgres' });
      base = `http://localhost:${kh.port}`;
      projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Login' })).body.id;
      const user = await kh.rest('POST', '/v2/users/human', {
        username: USERNAME,
        profile: { givenName: 'Ada', familyName: 'Lovelace' },
        email: { email: 'ada@example.com' },
        password: { password: PASSWORD, changeRequired: false },
      });
      expect(user.status).toBe(200);
      userId = user.body.userId;
    }, 60_000);

    /** The user's events of these types, oldest first. */
    async function eventsOf(id: string, ...types: string[]): Promise<{ type: string; payload: any }[]> {
      const rows = await kh.database.sql.query<{ type: string; payload: any }>({
        text: 'select type, payload from events where aggregate_type = $1 and aggregate_id = $2 order by sequence',
        params: ['user', id],
      });
      return rows.filter((r) => types.includes(r.type));
    }
    afterAll(async () => kh?.close());

    const REDIRECT = 'http://localhost:5173/callback';

    async function configFor(app: AppCreated, auth: oidc.ClientAuth): Promise<oidc.Configuration> {
      return oidc.discovery(new URL(base), app.clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });
    }

    /** The whole code flow with PKCE through the login UI; the token response and what was sent. */
    async function codeFlow(config: oidc.Configuration, extra: Record<string, string> = {}, consent = true) {
      const verifier = oidc.randomPKCECodeVerifier();
      const nonce = oidc.randomNonce();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid profile email',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        nonce,
        state,
        ...extra,
      });
      const back = await logIn(browser(base), url, USERNAME, PASSWORD, { consent });
      const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: state });
      return { tokens, nonce, verifier, back };
    }

    /** Resolves when the promise rejects with this OAuth error (in the body or in a WWW-Authenticate challenge). */
    async function refusedAs(promise: Promise<unknown>, error: string): Promise<void> {
      const e: any = await promise.then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e, `expected ${error}, got success`).toBeTruthy();
      expect(e.error ?? e.cause?.[0]?.parameters?.error ?? e.cause?.error).toBe(error);
    }

    describe('discovery', () => {
      it('openid-client discovers the issuer; the metadata names ZITADEL’s paths', async () => {
        const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
        const config = await configFor(app, oidc.None());
        const meta = config.serverMetadata();
        expect(meta.issuer).toBe(base);
        expect(meta.authorization_endpoint).toBe(`${base}/oauth/v2/authorize`);
        expect(meta.token_endpoint).toBe(`${base}/oauth/v2/token`);
        expect(meta.introspection_endpoint).toBe(`${base}/oauth/v2/introspect`);
        expect(meta.revocation_endpoint).toBe(`${base}/oauth/v2/revoke`);
        expect(meta.jwks_uri).toBe(`${base}/oauth/v2/keys`);
        expect(meta.userinfo_endpoint).toBe(`${base}/oidc/v1/userinfo`);
        expect(meta.end_session_endpoint).toBe(`${base}/oidc/v1/end_session`);
        expect(meta.code_challenge_methods_supported).toEqual(['S256']);
        expect(meta.token_endpoint_auth_methods_supported).not.toContain('client_secret_jwt');
        expect(meta.id_token_signing_alg_values_supported).not.toContain('HS256');
      });

      it('plain HTTP: the JWKS publishes an RS256 and an ES256 key and no private part', async () => {
        const res = await fetch(`${base}/oauth/v2/keys`);
        const { keys } = (await res.json()) as { keys: Record<string, string>[] };
        expect(keys.map((k) => k.alg).sort()).toEqual(['ES256', 'RS256']);
        for (const k of keys) expect(k.d).toBeUndefined();
      });
    });

    describe('code + PKCE', () => {
      it('a NONE app (USER_AGENT) logs a user in; the ID token verifies against /oauth/v2/keys', async () => {
        const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
        const config = await configFor(app, oidc.None());
        const { tokens, nonce } = await codeFlow(config);
        const { payload, protectedHeader } = await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(`${base}/oauth/v2/keys`)), { issuer: base, audience: app.clientId });
        expect(protectedHeader.alg).toBe('RS256');
        expect(payload.nonce).toBe(nonce);
        expect(typeof payload.auth_time).toBe('number');
        expect(Math.abs((payload.auth_time as number) - Date.now() / 1000)).toBeLessThan(120);
        expect(payload.amr).toContain('pwd');
        // Opaque (BEARER) access token: userinfo answers with the standard claims.
        const info = await oidc.fetchUserInfo(config, tokens.access_token, payload.sub!);
        expect(info).toMatchObject({ sub: payload.sub, preferred_username: USERNAME, given_name: 'Ada', family_name: 'Lovelace', name: 'Ada Lovelace', email: 'ada@example.com' });
        expect(typeof info.updated_at).toBe('number');
        // No REFRESH_TOKEN grant registered: no refresh token.
        expect(tokens.refresh_token).toBeUndefined();
        // The login is an event of the user, naming the app; no password in it.
        const logins = await eventsOf(userId, 'user.login.succeeded');
        expect(logins.some((e) => e.payload.clientId === app.clientId && e.payload.amr.includes('pwd'))).toBe(true);
        expect(JSON.stringify(logins)).not.toContain(PASSWORD);
      });

      it('changeRequired: the login asks for a new password, sets it, then goes on to the app', async () => {
        const initial = 'initial password for bob 17';
        const created = await kh.rest('POST', '/v2/users/human', {
          username: 'bob.change',
          profile: { givenName: 'Bob', familyName: 'Change' },
          email: { email: 'bob@example.com' },
          password: { password: initial, changeRequired: true },
        });
        expect(created.status).toBe(200);
        const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
        const config = await configFor(app, oidc.None());
        const verifier = oidc.randomPKCECodeVerifier();
        const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 'st' });
        const b = browser(base);
        let step = await b.follow(url);
        const post = async (name: string, form: Record<string, string>) => {
          const res = await b.request(new URL(formAction(step.html!, name)!, base), { form: { form_token: formToken(step.html!), ...form } });
          const location = res.headers.get('location');
          step = location ? await b.follow(new URL(location, base)) : { page: res, html: await res.text(), url: step.url };
        };
        await post('username', { username: 'bob.change' });
        await post('password', { password: initial });
        expect(step.html).toContain('autocomplete="new-password"');
        await post('change', { new_password: 'short', confirm_password: 'short' });
        expect(step.html).toContain('class="error"');
        expect(step.left).toBeUndefined();
        await post('change', { new_password: 'a brand new passphrase 17', confirm_password: 'a brand new passphrase 17' });
        expect(step.left?.origin + step.left!.pathname).toBe(REDIRECT);
        const tokens = await oidc.authorizationCodeGrant(config, step.left!, { pkceCodeVerifier: verifier, expectedState: 'st' });
        expect(tokens.claims()!.sub).toBe(created.body.userId);
        // The old password no longer logs in; the new one does.
        await expect(logIn(browser(base), url, 'bob.change', initial)).rejects.toThrow(/did not return/);
        expect((await logIn(browser(base), url, 'bob.change', 'a brand new passphrase 17')).pathname).toBe('/callback');
      });

      it('a BASIC app and a POST app log in; each only with its own auth method', async () => {
        for (const [method, auth, other] of [
          ['OIDC_AUTH_METHOD_TYPE_BASIC', oidc.ClientSecretBasic, oidc.ClientSecretPost],
          ['OIDC_AUTH_METHOD_TYPE_POST', oidc.ClientSecretPost, oidc.ClientSecretBasic],
        ] as const) {
          const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: method, devMode: true });
          expect(app.clientSecret).toBeTruthy();
          const { tokens } = await codeFlow(await configFor(app, auth(app.clientSecret)));
          expect(decodeJwt(tokens.id_token!).aud).toBe(app.clientId);
          // The other method is refused at the token endpoint.
          await refusedAs(codeFlow(await configFor(app, other(app.clientSecret))), 'invalid_client');
        }
      });

      it('refresh tokens rotate (offline_access with prompt=consent, REFRESH_TOKEN registered); the old one, once its successor was used, is refused', async () => {
        const app = await addApp(kh, projectId, {
          redirectUris: [REDIRECT],
          authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
          grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
          devMode: true,
        });
        const config = await configFor(app, oidc.ClientSecretBasic(app.clientSecret));
        const { tokens } = await codeFlow(config, { scope: 'openid profile offline_access', prompt: 'consent' });
        expect(tokens.refresh_token).toBeTruthy();
        const next = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
        expect(next.refresh_token).toBeTruthy();
        expect(next.refresh_token).not.toBe(tokens.refresh_token);
        expect(next.access_token).not.toBe(tokens.access_token);
        // The successor used: the old token is spent for good (before, its presentation would be a retry).
        const third = await oidc.refreshTokenGrant(config, next.refresh_token!);
        await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
        // Reuse of a rotated token revokes the whole grant: the newest refresh and access tokens end too.
        await expect(oidc.refreshTokenGrant(config, third.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
        expect(await oidc.tokenIntrospection(config, third.access_token)).toMatchObject({ active: false });
      });

      it('introspection and revocation for a confidential app', async () => {
        const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });
        const config = await configFor(app, oidc.ClientSecretBasic(app.clientSecret));
        const { tokens } = await codeFlow(config);
        const live = await oidc.tokenIntrospection(config, tokens.access_token);
        expect(live).toMatchObject({ active: true, client_id: app.clientId, token_type: 'Bearer' });
        await oidc.tokenRevocation(config, tokens.access_token);
        expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: false });
        const userinfo = await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
        expect(userinfo.status).toBe(401);
      });
    });

    describe('the bootstrapped human admin', () => {
      it('logs in with the password from admin.password and must choose a new one first', async () => {
        const initial = readFileSync(path.join(path.dirname(kh.config.adminPatFile), 'admin.password'), 'utf8').trim();
        const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
        const config = await configFor(app, oidc.None());
        const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid profile', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
        const b = browser(base);
        let step = await b.follow(url);
        const post = async (name: string, form: Record<string, string>) => {
          const res = await b.request(new URL(formAction(step.html!, name)!, base), { form: { form_token: formToken(step.html!), ...form } });
          const location = res.headers.get('location');
          step = location ? await b.follow(new URL(location, base)) : { page: res, html: await res.text(), url: step.url };
        };
        await post('username', { username: 'keyhold-admin' });
        await post('password', { password: initial });
        expect(step.html).toContain('autocomplete="new-password"');
        await post('change', { new_password: 'the admin chose this one 17', confirm_password: 'the admin chose this one 17' });
        expect(step.left?.origin + step.left!.pathname).toBe(REDIRECT);
      });
    });

    describe('refusals', () => {
      it('an unregistered redirect_uri: an error page naming the registered URIs, no redirect', async () => {
        const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
        const url = new URL(`${base}/oauth/v2/authorize`);
        url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: 'http://localhost:5173/callbak', response_type: 'code', scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' }).toString();
        const res = await fetch(url, { redirect: 'manual' });
        expect(res.status).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
        const html = await res.text();
        expect(html).toContain('invalid_redirect_uri');
        expect(html).toContain(REDIRECT);
        expect(html).toContain('http://localhost:5173/callbak');
      });

      it('a wrong PKCE verifier is refused at the token endpoint', async () => {
        const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
        const config = await configFor(app, oidc.None());
        const verifier = oidc.randomPKCECodeVerifier();
        const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 's' });
        const back = await logIn(browser(base), url, USERNAME, PASSWORD);
        await expect(oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: oidc.randomPKCECodeVerifier(), expectedState: 's' })).rejects.toMatchObject({ error: 'invalid_grant' });
      });

      it('a NONE app without PKCE is refused', async () => {
        const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
        const url = new URL(`${base}/oauth/v2/authorize`);
        url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid' }).toString();
        const res = await fetch(url, { redirect: 'manual' });
        const back = new URL(res.headers.get('location')!);
        expect(back.origin + back.pathname).toBe(REDIRECT);
        expect(back.searchParams.get('error')).toBe('invalid_request');
        expect(back.searchParams.get('error_description')).toMatch(/PKCE/);
      });

      it('a wrong client secret and a regenerated secret are refused; a removed app is unknown at once', async () => {
        const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_POST', devMode: true });
        await refusedAs(codeFlow(await configFor(app, oidc.ClientSecretPost(`${app.clientSecret}x`))), 'invalid_client');
        const regenerated = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${app.appId}/oidc_config/_generate_client_secret`, {});
        expect(regenerated.status).toBe(200);
        await refusedAs(codeFlow(await configFor(app, oidc.ClientSecretPost(app.clientSecret))), 'invalid_client');
        const { tokens } = await codeFlow(await configFor(app, oidc.ClientSecretPost(regenerated.body.clientSecret)));
        expect(tokens.id_token).toBeTruthy();
        expect((await kh.rest('DELETE', `/management/v1/projects/${projectId}/apps/${app.appId}`)).status).toBe(200);
        const url = new URL(`${base}/oauth/v2/authorize`);
        url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid' }).toString();
        const res = await fetch(url, { redirect: 'manual' });
        expect(res.status).toBe(400);
        expect(await res.text()).toContain('invalid_client');
      });

      it('a wrong password shows the form again with one message for wrong name or password', async () => {
        const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
        const config = await configFor(app, oidc.None());
        const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
        for (const [username, password] of [[USERNAME, 'not the password'], ['nobody-here', PASSWORD]]) {
          const b = browser(base, { 'accept-language': 'de-CH, en;q=0.5' });
          const first = await b.follow(url);
          // The browser's saved usernames, and its passkeys as autofill (passkeys are allowed by default).
          expect(first.html).toContain('autocomplete="username webauthn"');
          expect(first.html).toContain('<label for="username">Benutzername</label>');
          const next = await b.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: formToken(first.html!), username } });
          const pw = await b.follow(new URL(next.headers.get('location')!, base));
          expect(pw.html).toContain('autocomplete="current-password"');
          const wrong = await b.request(new URL(formAction(pw.html!, 'password')!, base), { form: { form_token: formToken(pw.html!), password } });
          expect(wrong.status).toBe(200);
          expect(await wrong.text()).toContain('Benutzername oder Passwort ist falsch.');
        }
        // The wrong password for an existing user is an event; the password typed is in no event.
        const failed = await eventsOf(userId, 'user.password.check.failed');
        expect(failed.some((e) => e.payload.clientId === app.clientId)).toBe(true);
        expect(JSON.stringify(failed)).not.toContain('not the password');
      });

      it('a form post without the form token (cross-site) changes nothing', async () => {
        const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
        const config = await configFor(app, oidc.None());
        const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
        const b = browser(base);
        const first = await b.follow(url);
        const res = await b.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: 'forged', username: USERNAME } });
        expect(res.status).toBe(400);
        // Without the interaction cookie (another browser) the same.
        const other = browser(base);
        const res2 = await other.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: formToken(first.html!), username: USERNAME } });
        expect(res2.status).toBe(400);
      });
    });
  });
}
