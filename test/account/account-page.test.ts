// The account page in Chromium: a user signs in to an app, opens
// /ui/account and changes its name and its password (the old one then fails
// at the login), adds a passkey with a CDP virtual authenticator (its first
// recovery codes shown), regenerates the codes (an old one then fails at the
// login, a new one works), adds an authenticator app with otpauth's codes,
// renames and removes the passkey, and revokes the app (its refresh token then fails);
// lists its sessions in three browsers and ends another's (its refresh token then fails).
// And what nobody else may do: no session → the sign-in; a POST without the
// form token → 403; another user's factor in the remove form → refused; the
// last factor under forceMfa → refused with the reason.
import * as oidc from 'openid-client';
import * as OTPAuth from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { addOrg, inOrg } from '../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { authorizationUrl, catchRedirect, humanUser, PASSWORD, passwordStep, redeem, REDIRECT, startApp, stopApp } from '../support/key-login.js';
import { addApp } from '../support/oidc-login.js';
import { addPasskeyAuthenticator, passkeyPage, registerPasskey } from '../support/passkey-login.js';

const skip = !chromiumAvailable();
announceChromiumSkip('the account page in Chromium');

const NEW_PASSWORD = 'another long and memorable passphrase';

describe.skipIf(skip)('the account page in Chromium', () => {
  let kh: TestKeyhold;
  let chromium: Browser;
  let config: oidc.Configuration;
  const base = () => `http://localhost:${kh.port}`;

  beforeAll(async () => {
    [kh, chromium] = await Promise.all([startTestKeyhold(), launchChromium(), startApp()]);
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: `Account ${Date.now()}` })).body.id;
    const app = await addApp(kh, projectId, {
      redirectUris: [REDIRECT],
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      devMode: true,
    });
    config = await oidc.discovery(new URL(base()), app.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
    await stopApp();
  });

  /** Signs `username` in to the app in a new context (password only); the tokens and the page. */
  async function signedIn(username: string, password = PASSWORD): Promise<{ context: BrowserContext; page: Page; tokens: Awaited<ReturnType<typeof redeem>> }> {
    const { context, page } = await newPage();
    const login = await authorizationUrl(config, { scope: 'openid profile offline_access' });
    const returned = await catchRedirect(page);
    await page.goto(login.url.href);
    await page.getByLabel('Username').fill(username);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${REDIRECT}**`);
    return { context, page, tokens: await redeem(login, returned()!) };
  }
  async function newPage() {
    const context = await chromium.newContext({ locale: 'en-US' });
    return { context, page: await context.newPage() };
  }
  const notice = (page: Page) => page.locator('p.notice').textContent();
  const problem = (page: Page) => page.locator('p.error[role=alert]').textContent();

  it('every action: name, password, passkey, rename, recovery codes, authenticator app, remove, revoke', async () => {
    const user = await humanUser(kh, 'acct');
    const { context, page, tokens } = await signedIn(user.username);
    await addPasskeyAuthenticator(page);

    await page.goto(`${base()}/ui/account`);
    expect(await page.locator('#signed-in-as').textContent()).toContain(user.username);
    expect(await page.locator('#address-state').textContent()).toBe('not verified');

    // The profile: what is typed comes back as text, never markup.
    await page.locator('#given_name').fill('<b>Ada</b>');
    await page.locator('#family_name').fill('Lovelace');
    await page.getByRole('button', { name: 'Save profile' }).click();
    expect(await notice(page)).toBe('Your profile is saved.');
    expect(await page.locator('#given_name').inputValue()).toBe('<b>Ada</b>');
    expect(await page.locator('#profile b').count()).toBe(0);
    expect((await kh.rest('GET', `/v2/users/${user.userId}`)).body.user.human.profile.givenName).toBe('<b>Ada</b>');

    // The password: a wrong current one changes nothing; the right one does; the old one then fails at the login.
    await page.locator('#password_current').fill('not the password');
    await page.locator('#new_password').fill(NEW_PASSWORD);
    await page.locator('#confirm_password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    expect(await problem(page)).toBe('The current password is wrong.');
    await page.locator('#password_current').fill(PASSWORD);
    await page.locator('#new_password').fill(NEW_PASSWORD);
    await page.locator('#confirm_password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    expect(await notice(page)).toBe('Your password is changed.');
    const other = await newPage();
    await passwordStep(other.page, (await authorizationUrl(config)).url, user.username);
    expect(await other.page.locator('p.error').textContent()).toBe('The username or the password is wrong.');
    await other.context.close();

    // A passkey, in this browser: the first strong factor brings the recovery codes.
    await page.locator('#passkey_name').fill('Laptop <passkey>');
    await page.locator('#passkey_current').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('#key-start:not([disabled])').click();
    await page.locator('#recovery-codes').waitFor();
    const firstCodes = await page.locator('#recovery-codes code').allTextContents();
    expect(firstCodes.length).toBeGreaterThan(5);
    await page.locator('#back').click();
    const passkeyItem = page.locator('#factors li[data-kind=passkey]');
    expect(await passkeyItem.locator('.name').textContent()).toBe('Laptop <passkey>');
    await passkeyItem.locator('input[name=name]').fill('Phone');
    await passkeyItem.getByRole('button', { name: 'Rename' }).click();
    expect(await notice(page)).toBe('Renamed.');
    expect(await passkeyItem.locator('.name').textContent()).toBe('Phone');

    // An authenticator app: the QR page, a code from otpauth.
    await page.locator('#totp_current').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Add an authenticator app' }).click();
    expect(await page.locator('#totp-qr svg').count()).toBe(1);
    const secret = (await page.locator('#totp-secret').textContent())!.replace(/\s/g, '');
    await page.locator('#code').fill('000000' === totp(secret) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Add the app' }).click();
    expect(await page.locator('p.error').count()).toBe(1);
    await page.locator('#code').fill(totp(secret));
    await page.getByRole('button', { name: 'Add the app' }).click();
    // The passkey brought the recovery codes: the app, not the user's first strong factor, brings none.
    await page.locator('#factors li[data-kind=totp]').waitFor();
    expect(await page.locator('#recovery-codes code').count()).toBe(0);
    expect(await page.locator('#factors li[data-kind=totp]').count()).toBe(1);

    // New recovery codes: shown once; the old set is gone (at the login's authenticator-app step, "use a recovery code").
    await page.locator('#codes_current').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'New recovery codes' }).click();
    const newCodes = await page.locator('#recovery-codes code').allTextContents();
    expect(newCodes.length).toBe(firstCodes.length);
    expect(newCodes).not.toContain(firstCodes[0]);
    expect(await recoveryLogin(user.username, firstCodes[0]!)).toBe('refused');
    expect(await recoveryLogin(user.username, newCodes[0]!)).toBe('signed in');

    await page.goto(`${base()}/ui/account`);
    // Remove the passkey.
    await passkeyItem.locator('input[type=password]').fill(NEW_PASSWORD);
    await passkeyItem.getByRole('button', { name: 'Remove' }).click();
    expect(await notice(page)).toBe('Removed.');
    expect(await page.locator('#factors li[data-kind=passkey]').count()).toBe(0);

    // Revoke the app: its refresh and access tokens fail from then on.
    expect((await oidc.fetchUserInfo(config, tokens.access_token, user.userId)).sub).toBe(user.userId);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    const app = page.locator('#app-list li').first();
    expect(await app.count()).toBe(1);
    await app.getByRole('button', { name: 'Revoke' }).click();
    expect(await notice(page)).toBe('The app’s access is revoked.');
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // And its access token: userinfo no longer answers it.
    await expect(oidc.fetchUserInfo(config, tokens.access_token, user.userId)).rejects.toBeDefined();
    await context.close();

    // Nothing typed or shown once reached a log line: passwords, codes, the app's key.
    const logs = kh.logLines.join('\n');
    for (const secretText of [PASSWORD, NEW_PASSWORD, secret, ...firstCodes, ...newCodes]) expect(logs).not.toContain(secretText);
  }, 90_000);

  /** A login with the password and then a recovery code in place of the authenticator app: signed in, or refused. */
  async function recoveryLogin(username: string, code: string): Promise<'signed in' | 'refused'> {
    const { context, page } = await newPage();
    await page.goto((await authorizationUrl(config)).url.href);
    await page.getByLabel('Username').fill(username);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#use-recovery').click();
    await page.getByLabel('Recovery code').fill(code);
    await page.getByRole('button', { name: 'Continue' }).click();
    const outcome = await Promise.race([
      page.waitForURL(`${REDIRECT}**`).then(() => 'signed in' as const),
      page.locator('p.error[role=alert]').waitFor().then(() => 'refused' as const),
    ]);
    await context.close();
    return outcome;
  }

  const totp = (secret: string) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();

  it('sessions: three browsers listed, this one marked; ending the other ends its refresh token; "End all other sessions" keeps this one', async () => {
    const { username } = await humanUser(kh, 'sessions');
    const first = await signedIn(username);
    const second = await signedIn(username);
    const third = await signedIn(username);
    await first.page.goto(`${base()}/ui/account`);
    expect(await first.page.locator('#sessions-list li.session').count()).toBe(3);
    expect(await first.page.locator('#current-session').count()).toBe(1);
    // End the second browser's session (the first other one listed after this browser's).
    const other = first.page.locator('#sessions-list li.session:not(#current-session)').first();
    await other.getByRole('button', { name: 'End' }).click();
    expect(await notice(first.page)).toContain('The session is ended');
    expect(await first.page.locator('#sessions-list li.session').count()).toBe(2);
    const refreshes = async () =>
      Promise.all([first, second, third].map((b) => oidc.refreshTokenGrant(config, b.tokens.refresh_token!).then(() => 'ok', () => 'refused')));
    const afterOne = await refreshes();
    expect(afterOne[0]).toBe('ok');
    expect(afterOne.filter((r) => r === 'refused')).toHaveLength(1);
    await first.page.getByRole('button', { name: 'End all other sessions' }).click();
    expect(await notice(first.page)).toContain('Every other session is ended');
    expect(await first.page.locator('#sessions-list li.session').count()).toBe(1);
    expect(await first.page.locator('#current-session').count()).toBe(1);
    await Promise.all([first.context.close(), second.context.close(), third.context.close()]);
  });

  it('no session → the sign-in; no form token → 403; another user’s factor or an app without a grant → refused; the last factor under forceMfa → refused; locked → nothing', async () => {
    const none = await fetch(`${base()}/ui/account`, { redirect: 'manual' });
    expect(none.status).toBe(303);
    expect(none.headers.get('location')).toBe(`${base()}/console/`);
    expect((await fetch(`${base()}/ui/account/profile`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ given_name: 'x' }) })).status).toBe(403);

    const orgId = await addOrg(kh, `Forced ${Date.now()}`);
    expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: true }, inOrg(orgId))).status).toBe(200);
    const victim = await humanUser(kh, 'victim');
    const owner = await humanUser(kh, 'owner', orgId);
    const { context, page } = await passkeyPage(chromium, kh);
    const victimKey = await registerPasskey(kh, page, victim.userId);
    await registerPasskey(kh, page, owner.userId);
    // The owner signs in with the password and its passkey (forceMfa).
    const login = await authorizationUrl(config);
    await passwordStep(page, login.url, owner.username);
    await page.locator('#key-start:not([disabled])').click();
    await page.waitForURL(`${REDIRECT}**`);
    const cookie = (await context.cookies(base())).map((c) => `${c.name}=${c.value}`).join('; ');
    await page.goto(`${base()}/ui/account`);
    const token = await page.locator('#profile-form input[name=form_token]').inputValue();
    const post = (action: string, form: Record<string, string>) =>
      fetch(`${base()}/ui/account/${action}`, { method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });

    // CSRF: the session's cookie without the form token, or with another's.
    expect((await post('profile', { given_name: 'Mallory', family_name: 'M' })).status).toBe(403);
    expect((await post('profile', { given_name: 'Mallory', family_name: 'M', form_token: 'x'.repeat(token.length) })).status).toBe(403);
    expect((await kh.rest('GET', `/v2/users/${owner.userId}`)).body.user.human.profile.givenName).toBe('Key');

    // Another user's passkey id: refused, and it stays.
    const theirs = await post('remove-factor', { form_token: token, kind: 'passkey', id: victimKey.passkeyId, current_password: PASSWORD });
    expect(theirs.status).toBe(404);
    expect(await theirs.text()).toContain('No such factor of yours.');
    expect((await post('rename-factor', { form_token: token, kind: 'passkey', id: victimKey.passkeyId, name: 'Mine now' })).status).toBe(404);
    // Nor does a ceremony's answer naming another user's passkey go through, nor a code without a pending app.
    const ceremony = await post('passkey-finish', { form_token: token, passkey_id: victimKey.passkeyId, name: 'x', response: JSON.stringify({ id: victimKey.credentialId }) });
    expect(ceremony.status).toBe(400);
    expect((await post('totp-finish', { form_token: token, code: '123456' })).status).toBe(400);
    expect((await kh.rest('POST', `/v2/users/${victim.userId}/passkeys/_search`, {})).body.result?.length ?? 1).toBeGreaterThan(0);

    // The last factor under forceMfa: refused with the reason.
    const mine = await page.locator('#factors li[data-kind=passkey]').getAttribute('data-id');
    // The key the forced login enrolled may go (the passkey stays); then the passkey is the last.
    const key = await page.locator('#factors li[data-kind=key]').getAttribute('data-id');
    expect((await post('remove-factor', { form_token: token, kind: 'key', id: key!, current_password: PASSWORD })).status).toBe(303);
    const last = await post('remove-factor', { form_token: token, kind: 'passkey', id: mine!, current_password: PASSWORD });
    expect(last.status).toBe(409);
    expect(await last.text()).toContain('Your organization requires a second factor');

    // An app the user holds no grant of: refused.
    expect((await post('revoke-app', { form_token: token, client: 'keyhold-console' })).status).toBe(404);

    // Locked: the session shows nothing and ends (the page sends to the sign-in, and no form goes through).
    expect((await kh.rest('POST', `/v2/users/${owner.userId}/lock`, {})).status).toBe(200);
    const locked = await fetch(`${base()}/ui/account`, { redirect: 'manual', headers: { cookie } });
    expect(locked.status).toBe(303);
    expect(locked.headers.get('location')).toBe(`${base()}/console/`);
    expect((await post('profile', { form_token: token, given_name: 'Late', family_name: 'L' })).status).toBe(403);
    await context.close();
  }, 60_000);
});
