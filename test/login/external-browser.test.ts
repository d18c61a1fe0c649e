// Signing in with another identity provider in Chromium, end to end, with
// three real upstreams the test starts: a second Keyhold (generic OpenID
// Connect, its own login page at another host), a bare oidc-provider (generic
// OpenID Connect, the profile in userinfo) and a GitHub-shaped OAuth 2.0
// server (no ID token, a numeric id from /user). The providers are configured
// through the admin API as an operator would: added, the answer's redirect URI
// registered at the upstream, then the client id and secret set. An app signs
// in with openid-client. A first sign-in creating a user just in time; an
// identity linked to an existing account only after the person signs in to it
// with its own password (an unverified address at the upstream proves
// nothing), then signing in by itself; forceMfa that an upstream's word does
// not satisfy, so Keyhold's own second factor follows (added there by a user
// made just in time); a removed provider no longer offered.
import { createServer } from 'node:net';
import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminService } from '../../gen/keyhold/admin/v1/admin_pb.js';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { appLogin, catchRedirect, continueAfterCodes, humanUser, PASSWORD, redeem, startApp, stopApp } from '../support/key-login.js';
import { addApp } from '../support/oidc-login.js';
import { gitHubUpstream, oidcUpstream, type Upstream } from '../support/upstreams.js';

const skip = !chromiumAvailable();
announceChromiumSkip('signing in with another identity provider in Chromium');

/** A port free right now (the second Keyhold's issuer names it before it listens). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.skipIf(skip)('another identity provider, in Chromium', () => {
  let kh: TestKeyhold;
  /** The second Keyhold, at 127.0.0.1 (the first is at localhost): each keeps its own cookies in one browser. */
  let upstreamKh: TestKeyhold;
  let chromium: Browser;
  let corp: Upstream;
  let gh: Awaited<ReturnType<typeof gitHubUpstream>>;
  const ids: Record<'keyhold' | 'corp' | 'github', string> = { keyhold: '', corp: '', github: '' };
  const admin = () => kh.client(AdminService, 'grpc', kh.adminToken);

  beforeAll(async () => {
    const port = await freePort();
    [kh, upstreamKh, chromium] = await Promise.all([
      startTestKeyhold({ env: { KEYHOLD_IDP_PRIVATE_NETWORKS: 'allow' } }),
      startTestKeyhold({ env: { KEYHOLD_PORT: String(port), KEYHOLD_ISSUER: `http://127.0.0.1:${port}` } }),
      launchChromium(),
      startApp(),
    ]);

    // 1. The second Keyhold: the provider first (its answer names the redirect URI), then the app there, then its credentials here.
    const added = await admin().addGenericOIDCProvider({ name: 'Keyhold Two', issuer: upstreamKh.issuer, clientId: 'set-below', clientSecret: 'set-below', scopes: ['openid', 'profile', 'email'], providerOptions: { isCreationAllowed: true, isAutoCreation: true } });
    ids.keyhold = added.id;
    expect(added.callbackUrl).toBe(`${kh.issuer}/ui/login/idp/${added.id}/callback`);
    const projectId = (await upstreamKh.rest('POST', '/management/v1/projects', { name: 'Federation' })).body.id;
    const app = await addApp(upstreamKh, projectId, { redirectUris: [added.callbackUrl], authMethodType: 'OIDC_AUTH_METHOD_TYPE_POST', appType: 'OIDC_APP_TYPE_WEB', devMode: true });
    await admin().updateGenericOIDCProvider({ id: added.id, name: 'Keyhold Two', issuer: upstreamKh.issuer, clientId: app.clientId, clientSecret: app.clientSecret!, scopes: ['openid', 'profile', 'email'], providerOptions: { isCreationAllowed: true, isAutoCreation: true } });

    // 2. A bare oidc-provider that allows linking only (no creation).
    const corpAdded = await admin().addGenericOIDCProvider({ name: 'Corp SSO', issuer: 'http://127.0.0.1:9', clientId: 'set-below', clientSecret: 'set-below', scopes: ['openid', 'profile', 'email'], providerOptions: { isLinkingAllowed: true } });
    ids.corp = corpAdded.id;
    corp = await oidcUpstream([corpAdded.callbackUrl], { sub: 'nobody' });
    await admin().updateGenericOIDCProvider({ id: corpAdded.id, name: 'Corp SSO', issuer: corp.url, clientId: corp.clientId, clientSecret: corp.clientSecret, scopes: ['openid', 'profile', 'email'], providerOptions: { isLinkingAllowed: true } });

    // 3. A GitHub-shaped OAuth 2.0 server, creating users.
    const ghFields = { name: 'GitHub', authorizationEndpoint: '', tokenEndpoint: '', userEndpoint: '', scopes: ['read:user', 'user:email'], idAttribute: 'id', mapping: { email: 'email', preferredUsername: 'login', name: 'name' }, providerOptions: { isCreationAllowed: true, isAutoCreation: true } };
    const ghAdded = await admin().addGenericOAuthProvider({ ...ghFields, clientId: 'set-below', clientSecret: 'set-below', authorizationEndpoint: 'http://127.0.0.1:9/login/oauth/authorize', tokenEndpoint: 'http://127.0.0.1:9/login/oauth/access_token', userEndpoint: 'http://127.0.0.1:9/user' });
    ids.github = ghAdded.id;
    gh = await gitHubUpstream([ghAdded.callbackUrl], { sub: '', id: 583231, preferred_username: 'octo-browser', name: 'Octo Browser', email: 'octo-browser@example.com' });
    await admin().updateGenericOAuthProvider({ id: ghAdded.id, ...ghFields, clientId: gh.clientId, clientSecret: gh.clientSecret, authorizationEndpoint: `${gh.url}/login/oauth/authorize`, tokenEndpoint: `${gh.url}/login/oauth/access_token`, userEndpoint: `${gh.url}/user` });
  }, 90_000);
  afterAll(async () => {
    await chromium?.close();
    await Promise.all([kh?.close(), upstreamKh?.close(), corp?.close(), gh?.close(), stopApp()]);
  });

  /** A fresh browser at the app's sign-in: the login page with its "Continue with" buttons. */
  async function signInPage() {
    const context = await chromium.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const login = await appLogin(kh);
    const returned = await catchRedirect(page);
    await page.goto(login.url.href);
    await page.getByLabel('Username').waitFor();
    return { page, login, returned, close: () => context.close() };
  }

  /** Waits until Keyhold sent the browser back to the app, and redeems the code there. */
  async function backAtApp(page: Page, login: Awaited<ReturnType<typeof appLogin>>, returned: () => string | undefined) {
    await page.waitForURL((u) => u.pathname === '/callback', { timeout: 20_000 });
    const tokens = await redeem(login, returned()!);
    return { tokens, claims: tokens.claims()! };
  }

  const linksOf = async (userId: string) => (await kh.client(UserService, 'grpc', kh.adminToken).listIDPLinks({ userId })).result.map((l) => [l.idpId, l.userId]);

  it('a second Keyhold: its own login page, then a user made just in time here; the ID token says fed', async () => {
    const { userId: upstreamUserId } = (await upstreamKh.rest('POST', '/v2/users/human', { username: 'bella', profile: { givenName: 'Bella', familyName: 'Upstream' }, email: { email: 'bella@two.example', isVerified: true }, password: { password: PASSWORD, changeRequired: false } })).body;
    const { page, login, returned, close } = await signInPage();
    await page.getByRole('button', { name: 'Continue with Keyhold Two' }).click();
    // The upstream's own login, at its own host.
    await page.waitForURL((u) => u.host === new URL(upstreamKh.issuer).host);
    await page.getByLabel('Username').fill('bella');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const allow = page.getByRole('button', { name: 'Allow' });
    await Promise.race([allow.waitFor({ timeout: 20_000 }).then(() => allow.click()), page.waitForURL((u) => u.pathname === '/callback', { timeout: 20_000 })]).catch(() => {});
    const { claims } = await backAtApp(page, login, returned);
    expect(claims.amr).toContain('fed');
    const made = await kh.client(UserService, 'grpc', kh.adminToken).getUserByID({ userId: String(claims.sub) });
    expect(made.user?.username).toBe('bella');
    expect(await linksOf(String(claims.sub))).toEqual([[ids.keyhold, upstreamUserId]]);
    await close();
  });

  it('a provider that links only: an unverified address of an existing account proves nothing; the person signs in with its password, then the identity signs in by itself', async () => {
    const carol = await humanUser(kh, 'carol');
    corp.person = { sub: 'corp-carol', email: `${carol.username}@example.com`, email_verified: false, name: 'Carol Corp' };
    const first = await signInPage();
    await first.page.getByRole('button', { name: 'Continue with Corp SSO' }).click();
    // Back at Keyhold: nobody signed in, nothing linked yet; the page says what signing in will do.
    const waiting = first.page.locator('[data-link-pending]');
    await waiting.waitFor();
    expect(await waiting.textContent()).toContain('Your Corp SSO account is not linked to an account here yet');
    expect(await linksOf(carol.userId)).toEqual([]);
    await first.page.getByLabel('Username').fill(carol.username);
    await first.page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => first.page.locator('[data-link-pending]').count()).toBe(1);
    await first.page.getByLabel('Password').fill(PASSWORD);
    await first.page.getByRole('button', { name: 'Sign in' }).click();
    const signedIn = await backAtApp(first.page, first.login, first.returned);
    expect(signedIn.claims.sub).toBe(carol.userId);
    expect(signedIn.claims.amr).toEqual(['pwd']);
    expect(await linksOf(carol.userId)).toEqual([[ids.corp, 'corp-carol']]);
    await first.close();

    // Next time the button alone signs Carol in.
    const again = await signInPage();
    await again.page.getByRole('button', { name: 'Continue with Corp SSO' }).click();
    const byCorp = await backAtApp(again.page, again.login, again.returned);
    expect([byCorp.claims.sub, byCorp.claims.amr]).toEqual([carol.userId, ['fed']]);
    await again.close();
  });

  it('a pending link is dropped when the person starts over: signing in then links nothing', async () => {
    const dan = await humanUser(kh, 'dan');
    corp.person = { sub: 'corp-dan', email: `${dan.username}@example.com`, email_verified: true };
    const { page, login, returned, close } = await signInPage();
    await page.getByRole('button', { name: 'Continue with Corp SSO' }).click();
    await page.locator('[data-link-pending]').waitFor();
    await page.getByLabel('Username').fill(dan.username);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: /Use another account/ }).click();
    await page.getByLabel('Username').fill(dan.username);
    expect(await page.locator('[data-link-pending]').count()).toBe(0);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await backAtApp(page, login, returned);
    expect(await linksOf(dan.userId)).toEqual([]);
    await close();
  });

  it('links only in the browser that went to the provider: a sign-in whose binding cookie was replaced logs in and links nothing', async () => {
    const erin = await humanUser(kh, 'erin');
    corp.person = { sub: 'corp-erin', email: `${erin.username}@example.com`, email_verified: true };
    const { page, login, returned, close } = await signInPage();
    await page.getByRole('button', { name: 'Continue with Corp SSO' }).click();
    await page.locator('[data-link-pending]').waitFor();
    // What a planted sign-in would carry: the interaction, but not the browser's own binding.
    await page.context().addCookies([{ name: 'keyhold_external', value: 'planted-elsewhere', domain: 'localhost', path: '/ui/login' }]);
    await page.getByLabel('Username').fill(erin.username);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const { claims } = await backAtApp(page, login, returned);
    expect(claims.sub).toBe(erin.userId);
    expect(await linksOf(erin.userId)).toEqual([]);
    await close();
  });

  it('GitHub-shaped: a user made just in time from /user; with forceMfa Keyhold\u2019s own factor follows (the new user adds an authenticator app), amr fed + otp, unless the provider is trusted for the upstream\u2019s reported factor; a removed provider is no longer offered', async () => {
    const { page, login, returned, close } = await signInPage();
    await page.getByRole('button', { name: 'Continue with GitHub' }).click();
    const { claims } = await backAtApp(page, login, returned);
    expect(claims.amr).toEqual(['fed']);
    expect(await linksOf(String(claims.sub))).toEqual([[ids.github, '583231']]);
    await close();

    expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: true, allowUsernamePassword: true, passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED' })).status).toBe(200);
    try {
      // GitHub vouches for no second factor: Keyhold's own follows. The user made from GitHub has none yet, so it adds one here.
      const mfa = await signInPage();
      await mfa.page.getByRole('button', { name: 'Continue with GitHub' }).click();
      await mfa.page.getByRole('heading', { name: 'Add a security key' }).waitFor({ timeout: 20_000 });
      expect(mfa.returned()).toBeUndefined();
      await mfa.page.getByRole('button', { name: 'An authenticator app' }).click();
      const secret = (await mfa.page.locator('#totp-secret').textContent())!.replaceAll(' ', '');
      await mfa.page.getByLabel('Code').fill(new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate());
      await mfa.page.getByRole('button', { name: 'Add the app and sign in' }).click();
      expect(await continueAfterCodes(mfa.page)).toHaveLength(10);
      const withFactor = await backAtApp(mfa.page, mfa.login, mfa.returned);
      expect(withFactor.claims.sub).toBe(claims.sub);
      expect(withFactor.claims.amr).toEqual(['fed', 'otp', 'mfa']);
      await mfa.close();

      // A provider trusted for the upstream's amr, which reports a second factor: no factor of Keyhold's is asked.
      const trusted = { name: 'Corp SSO', issuer: corp.url, clientId: corp.clientId, clientSecret: '', scopes: ['openid', 'profile', 'email'], providerOptions: { isLinkingAllowed: true }, trust: { upstreamAmr: true } };
      await admin().updateGenericOIDCProvider({ id: ids.corp, ...trusted });
      corp.person = { sub: 'corp-carol', amr: ['pwd', 'otp'] };
      const byTrusted = await signInPage();
      await byTrusted.page.getByRole('button', { name: 'Continue with Corp SSO' }).click();
      const upstreamFactor = await backAtApp(byTrusted.page, byTrusted.login, byTrusted.returned);
      expect(upstreamFactor.claims.amr).toEqual(expect.arrayContaining(['fed', 'otp']));
      await byTrusted.close();
    } finally {
      await kh.rest('PUT', '/management/v1/policies/login', { forceMfa: false, allowUsernamePassword: true, passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED' });
    }

    await admin().deleteProvider({ id: ids.github });
    const after = await signInPage();
    await after.page.getByRole('button', { name: 'Continue with Corp SSO' }).waitFor();
    expect(await after.page.getByRole('button', { name: 'Continue with GitHub' }).count()).toBe(0);
    await after.close();
  });
});
