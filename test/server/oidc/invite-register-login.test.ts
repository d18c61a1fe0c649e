// Invitations and self-registration in Chromium, ending in real logins at an
// app (openid-client redeems the code), with a real SMTP server process: an
// invitation mailed (its link read from the mail that arrived) → a first
// password → a password login; a resent invitation replacing the first, and a
// key invitation mailed as one; an invitation's link → a passkey (CDP virtual
// authenticator) → a passkey login; self-registration where the app's org
// allows it (an allowed domain signs in at once, another domain is refused on
// the page, a verification-first org refuses the login until the address is
// verified), and where it does not (no button; the step refuses).
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../../support/chromium.js';
import { addOrg, inOrg } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { authorizationUrl, catchRedirect, redeem, REDIRECT, startApp, stopApp, type AppLogin } from '../../support/key-login.js';
import { passkeyPage, usePasskey } from '../../support/passkey-login.js';
import { startSmtpServer, type TestSmtpServer } from '../../support/smtp-server.js';

const skip = !chromiumAvailable();
announceChromiumSkip('invitations and self-registration in Chromium');

const NEW_PASSWORD = 'a brand new passphrase 42';

describe.skipIf(skip)('invitations and self-registration in Chromium', () => {
  let kh: TestKeyhold;
  let chromium: Browser;
  let smtp: TestSmtpServer;
  let n = 0;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    [kh, chromium] = await Promise.all([startTestKeyhold({ env: smtp.env }), launchChromium(), startApp()]);
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
    await smtp?.close();
    await stopApp();
  });

  /** An app in `orgId` (a project of that org), and a login to it with PKCE. */
  async function appIn(orgId?: string): Promise<AppLogin> {
    const headers = orgId ? inOrg(orgId) : {};
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: `Invite ${++n}` }, headers)).body.id;
    const app = await kh.rest(
      'POST',
      `/management/v1/projects/${projectId}/apps/oidc`,
      { name: `app-${n}`, redirectUris: [REDIRECT], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true },
      headers,
    );
    expect(app.status).toBe(200);
    const config = await oidc.discovery(new URL(`http://localhost:${kh.port}`), app.body.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    return authorizationUrl(config);
  }

  /** A user without a password, and its invitation's link (answered to the admin: no mail server here). */
  async function invited(): Promise<{ userId: string; username: string; link: string }> {
    const username = `invited-${process.pid}-${++n}`;
    const users = kh.client(UserService, 'grpc', kh.adminToken);
    const { userId } = await users.addHumanUser({ username, profile: { givenName: 'Ines', familyName: 'Vited' }, email: { email: `${username}@example.com` } });
    const { inviteUrl } = await users.createInviteCode({ userId, verification: { case: 'returnCode', value: {} } });
    return { userId, username, link: inviteUrl! };
  }

  async function signInWithPassword(page: Page, login: AppLogin, username: string, password: string) {
    await page.goto(login.url.href);
    await page.getByLabel('Username').fill(username);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('an invitation by mail: the link from the mail (from the issuer, in the request\u2019s language) → a first password → a normal password login at the app', async () => {
    const username = `mailed-${process.pid}-${++n}`;
    const email = `${username}@example.com`;
    const users = kh.client(UserService, 'grpc', kh.adminToken, { 'accept-language': 'de' });
    const { userId } = await users.addHumanUser({ username, profile: { givenName: 'Mia', familyName: 'Mail' }, email: { email } });
    const created = await users.createInviteCode({ userId, verification: { case: 'sendCode', value: { applicationName: 'Beispiel <App>' } } });
    expect(created.inviteCode).toBeUndefined();
    const mail = await smtp.next({ to: email });
    expect(mail.subject).toBe('Ihre Einladung zu Beispiel <App>');
    expect(mail.html).toContain('Beispiel &lt;App&gt;');
    expect(mail.lang).toBe('de');
    const link = mail.links.find((l) => l.includes('/ui/invite'))!;
    expect(link).toMatch(new RegExp(`^http://localhost:${kh.port}/ui/invite\\?user=${userId}&code=[0-9a-z-]{23}$`));
    expect(kh.logLines.join('\n')).not.toContain(new URL(link).searchParams.get('code'));
    const context = await chromium.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Set up your account' }).waitFor();
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.locator('#invite-done').waitFor();
    expect(await page.getAttribute('#invite-sign-in', 'href')).toBe(`http://localhost:${kh.port}/console/`);

    const login = await appIn();
    const returned = await catchRedirect(page);
    await signInWithPassword(page, login, username, NEW_PASSWORD);
    await page.waitForURL(`${REDIRECT}**`);
    const claims = (await redeem(login, returned()!)).claims()!;
    expect(claims.sub).toBe(userId);
    expect(claims.amr).toEqual(['pwd']);
    // Used once: the link now says so.
    await page.goto(link);
    await page.getByText('does not work').waitFor();
    await context.close();
  }, 60_000);

  it('ResendInviteCode mails a new link and the earlier one stops working; a key invitation is mailed as one', async () => {
    const username = `resent-${process.pid}-${++n}`;
    const email = `${username}@example.com`;
    const users = kh.client(UserService, 'grpc', kh.adminToken);
    const { userId } = await users.addHumanUser({ username, profile: { givenName: 'Re', familyName: 'Sent' }, email: { email } });
    await users.createInviteCode({ userId, verification: { case: 'sendCode', value: {} } });
    const first = (await smtp.next({ to: email })).links.find((l) => l.includes('/ui/invite'))!;
    await users.resendInviteCode({ userId });
    const second = await smtp.next({ to: email });
    expect(second.subject).toBe('Your invitation to Keyhold');
    const again = second.links.find((l) => l.includes('/ui/invite'))!;
    expect(again).not.toBe(first);
    const context = await chromium.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(first);
    await page.getByText('does not work').waitFor();
    await page.goto(again);
    await page.getByRole('heading', { name: 'Set up your account' }).waitFor();
    await context.close();
    // With a password and no second factor: the invitation is to add a key.
    await users.setPassword({ userId, newPassword: { password: NEW_PASSWORD, changeRequired: false } });
    await users.createInviteCode({ userId, verification: { case: 'sendCode', value: {} } });
    expect((await smtp.next({ to: email })).subject).toBe('Add your security key to Keyhold');
  }, 60_000);

  it('an invitation: the link → a passkey in the person\u2019s own browser → a passkey login at the app', async () => {
    const { userId, link } = await invited();
    const { context, page } = await passkeyPage(chromium, kh);
    await page.goto(link);
    await page.locator('#key-start:not([disabled])').waitFor();
    await page.getByRole('button', { name: 'Register a passkey instead' }).click();
    await page.locator('#invite-done').waitFor();
    const { result } = await kh.client(UserService, 'grpc', kh.adminToken).listPasskeys({ userId });
    expect(result.map((p) => p.name)).toEqual(['Passkey (added from an invitation)']);

    const login = await appIn();
    const returned = await catchRedirect(page);
    await page.goto(login.url.href);
    await usePasskey(page);
    await page.waitForURL(`${REDIRECT}**`);
    const claims = (await redeem(login, returned()!)).claims()!;
    expect(claims.sub).toBe(userId);
    expect(claims.amr).toEqual(['hwk', 'user', 'mfa']);
    await context.close();
  }, 60_000);

  it('self-registration allowed for example.com: another domain is refused on the page, an allowed address registers and signs in', async () => {
    const orgId = await addOrg(kh, `Open ${Date.now()}`);
    const policy = { forceMfa: false, allowRegister: true, allowedDomains: ['example.com'], registerVerificationRequired: false };
    expect((await kh.rest('POST', '/management/v1/policies/login', policy, inOrg(orgId))).status).toBe(200);
    const login = await appIn(orgId);
    const context = await chromium.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const returned = await catchRedirect(page);
    await page.goto(login.url.href);
    await page.getByRole('button', { name: 'No account yet? Register' }).click();
    await page.getByRole('heading', { name: /Create your account/ }).waitFor();
    expect(await page.locator('#register-domains').textContent()).toBe('Open to addresses of example.com.');
    const fill = async (email: string) => {
      await page.getByLabel('Given name').fill('Reg');
      await page.getByLabel('Family name').fill('Istered');
      await page.getByLabel('E-mail address').fill(email);
      await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Register', exact: true }).click();
    };
    await fill('reg@evil.example.com');
    await page.getByText('Registration here is open only to addresses of example.com.').waitFor();
    // A look-alike domain (Cyrillic "а"): the browser's e-mail field sends its xn-- form, which is another domain.
    await fill('reg@exаmple.com');
    await page.getByText('Registration here is open only to addresses of example.com.').waitFor();
    expect(await kh.client(UserService, 'grpc', kh.adminToken).listUsers({ queries: [] }).then((r) => r.result.filter((u) => u.username.startsWith('reg@')))).toEqual([]);
    const email = `reg-${Date.now()}@example.com`;
    await fill(email);
    await page.waitForURL(`${REDIRECT}**`);
    const claims = (await redeem(login, returned()!)).claims()!;
    const { user } = await kh.client(UserService, 'grpc', kh.adminToken).getUserByID({ userId: claims.sub });
    expect(user?.username).toBe(email);
    expect(user?.details?.resourceOwner).toBe(orgId);
    expect(claims.amr).toEqual(['pwd']);
    await context.close();
  }, 60_000);

  it('self-registration with verification first: a link mailed; the login refused (mailing a newer link) until the newest is used, then it signs in', async () => {
    const orgId = await addOrg(kh, `Verify ${Date.now()}`);
    expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: false, allowRegister: true }, inOrg(orgId))).status).toBe(200);
    const login = await appIn(orgId);
    const context = await chromium.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(login.url.href);
    await page.getByRole('button', { name: 'No account yet? Register' }).click();
    const email = `verify-${Date.now()}@anywhere.test`;
    await page.getByLabel('Given name').fill('Veri');
    await page.getByLabel('Family name').fill('Fy');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    expect(await page.locator('#registered').textContent()).toContain(`We mailed a link to ${email}`);
    const first = (await smtp.next({ to: email })).links.find((l) => l.includes('/ui/login/verify-email'))!;
    expect(new URL(first).origin).toBe(kh.issuer);
    // The right password does not sign in yet; it mails a newer link, which replaces the first.
    await signInWithPassword(page, await appIn(orgId), email, NEW_PASSWORD);
    await page.getByText('Verify your address first: we mailed a new link to it.').waitFor();
    expect(page.url()).not.toContain(REDIRECT);
    const newest = (await smtp.next({ to: email })).links.find((l) => l.includes('/ui/login/verify-email'))!;
    expect(newest).not.toBe(first);
    // Once more: the third mail in 15 minutes; a fourth sign-in mails nothing and says so.
    await signInWithPassword(page, await appIn(orgId), email, NEW_PASSWORD);
    await page.getByText('we mailed a new link').waitFor();
    const third = (await smtp.next({ to: email })).links.find((l) => l.includes('/ui/login/verify-email'))!;
    await signInWithPassword(page, await appIn(orgId), email, NEW_PASSWORD);
    await page.getByText('links were mailed to it in the last minutes').waitFor();
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.all().filter((m) => m.to.includes(email))).toHaveLength(3);
    // An older link does not verify; the newest does.
    await page.goto(newest);
    await page.getByRole('button', { name: 'Confirm' }).click();
    expect(await page.locator('#email-verified').count()).toBe(0);
    await page.goto(third);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('#email-verified').waitFor();
    const verified = await appIn(orgId);
    const returned = await catchRedirect(page);
    await signInWithPassword(page, verified, email, NEW_PASSWORD);
    await page.waitForURL(`${REDIRECT}**`);
    expect((await redeem(verified, returned()!)).claims()?.sub).toBeTruthy();
    await context.close();
  }, 60_000);

  it('self-registration off (the default): no button, and the step refuses', async () => {
    const login = await appIn();
    const context = await chromium.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(login.url.href);
    await page.getByLabel('Username').waitFor();
    expect(await page.getByRole('button', { name: 'No account yet? Register' }).count()).toBe(0);
    // A forged "Register" post (the form token of this login, the action the button would post).
    const token = await page.locator('input[name=form_token]').first().inputValue();
    const uid = new URL(page.url()).pathname.split('/').pop()!;
    const res = await context.request.post(`http://localhost:${kh.port}/ui/login/${uid}/register-start`, { form: { form_token: token } });
    const answer = await res.text();
    expect(answer).not.toContain('Create your account');
    expect(answer).toContain('Username');
    await context.close();
  }, 30_000);
});
