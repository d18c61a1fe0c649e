// Signing in with a passkey, in Chromium with a CDP virtual authenticator
// holding a resident, user-verified credential registered through the API:
// the username page's button logs in without a password, the page starts the
// browser's autofill (conditional mediation) on load, refusals are said on
// the page with their reason, and a forced enrolment may choose a passkey.
// openid-client redeems the code and verifies the ID token's amr and acr.
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../../support/chromium.js';
import { addOrg, inOrg } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { appLogin, authorizationUrl, catchRedirect, continueAfterCodes, humanUser, passwordStep, redeem, REDIRECT, shownReason, startApp, stopApp } from '../../support/key-login.js';
import { passkeyPage, registerPasskey, usePasskey } from '../../support/passkey-login.js';

const skip = !chromiumAvailable();
announceChromiumSkip('passkey login in Chromium');

const PASSKEY_AMR = ['hwk', 'user', 'mfa'];
const MFA_ACR = 'urn:keyhold:acr:mfa';

describe.skipIf(skip)('login with a passkey in Chromium', () => {
  let kh: TestKeyhold;
  let chromium: Browser;

  beforeAll(async () => {
    [kh, chromium] = await Promise.all([startTestKeyhold(), launchChromium(), startApp()]);
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await kh?.close();
    await stopApp();
  });

  it('the button signs in without a password; the ID token says hwk user mfa; no second factor follows under forceMfa', async () => {
    const orgId = await addOrg(kh, `Passkeys ${Date.now()}`);
    expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: true }, inOrg(orgId))).status).toBe(200);
    const user = await humanUser(kh, 'pk', orgId);
    const { context, page } = await passkeyPage(chromium, kh);
    await registerPasskey(kh, page, user.userId);
    const login = await appLogin(kh);
    const returned = await catchRedirect(page);
    const problems: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && problems.push(m.text())));

    await page.goto(login.url.href);
    const options = JSON.parse((await page.getAttribute('#passkey-step', 'data-options'))!);
    // Discoverable: no credential named, the person verified.
    expect(options.allowCredentials).toEqual([]);
    expect(options.userVerification).toBe('required');
    expect(options.rpId).toBe('localhost');
    await usePasskey(page);
    await page.waitForURL(`${REDIRECT}**`);
    expect(problems).toEqual([]);

    const tokens = await redeem(login, returned()!);
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(user.userId);
    expect(claims.amr).toEqual(PASSKEY_AMR);
    expect(claims.acr).toBe(MFA_ACR);
    const introspected = await oidc.tokenIntrospection(login.config, tokens.access_token);
    expect(introspected.amr).toEqual(PASSKEY_AMR);
    await context.close();
  }, 60_000);

  it('autofill: the passkey the browser offers in the username field signs in (no click, no password)', async () => {
    const user = await humanUser(kh, 'pk');
    const { context, page } = await passkeyPage(chromium, kh, { autofill: true });
    await registerPasskey(kh, page, user.userId);
    const login = await appLogin(kh);
    const returned = await catchRedirect(page);
    // Headless Chromium's virtual authenticator answers the autofill request itself (as a person picking the passkey would).
    await page.goto(login.url.href);
    await page.waitForURL(`${REDIRECT}**`);
    const claims = (await redeem(login, returned()!)).claims()!;
    expect(claims.sub).toBe(user.userId);
    expect(claims.amr).toEqual(PASSKEY_AMR);
    expect(claims.acr).toBe(MFA_ACR);
    await context.close();
  }, 60_000);

  it('autofill: the request the page starts on load (conditional, discoverable, user verification required)', async () => {
    const { context, page } = await passkeyPage(chromium, kh, { autofill: true });
    const login = await appLogin(kh);
    await page.addInitScript(() => {
      const calls: unknown[] = [];
      (window as any).__passkeyCalls = calls;
      navigator.credentials.get = (o?: CredentialRequestOptions) => {
        calls.push({ mediation: o?.mediation, userVerification: o?.publicKey?.userVerification, allow: o?.publicKey?.allowCredentials?.length ?? 0, rpId: o?.publicKey?.rpId });
        // Never answered: the request stays open, as autofill waiting for a choice does.
        return new Promise(() => {});
      };
    });
    await page.goto(login.url.href);
    expect(await page.getAttribute('#username', 'autocomplete')).toBe('username webauthn');
    await page.waitForFunction(() => (window as any).__passkeyCalls.length > 0);
    expect(await page.evaluate(() => (window as any).__passkeyCalls)).toEqual([{ mediation: 'conditional', userVerification: 'required', allow: 0, rpId: 'localhost' }]);
    await context.close();
  }, 60_000);

  it('refusals with their reason on the page: a removed user’s passkey; an org whose policy forbids passkeys; the password path unchanged', async () => {
    // A removed user: its passkeys leave with it, the credential names nobody (shown alike to any refusal of the check).
    const gone = await humanUser(kh, 'pk');
    const first = await passkeyPage(chromium, kh);
    await registerPasskey(kh, first.page, gone.userId);
    expect((await kh.rest('DELETE', `/v2/users/${gone.userId}`)).status).toBe(200);
    const login = await appLogin(kh);
    await first.page.goto(login.url.href);
    await usePasskey(first.page);
    expect((await shownReason(first.page)).reason).toBe('PASSKEY_LOGIN_REFUSED');
    // The page offers the passkey and the username again.
    await first.page.locator('#passkey-start:not([disabled])').waitFor();
    await first.context.close();

    // The user's org forbids passkeys: the passkey proved its user, who is told why.
    const orgId = await addOrg(kh, `No passkeys ${Date.now()}`);
    const user = await humanUser(kh, 'pk', orgId);
    const second = await passkeyPage(chromium, kh);
    const { passkeyId } = await registerPasskey(kh, second.page, user.userId);
    expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: false, passwordlessType: 'PASSWORDLESS_TYPE_NOT_ALLOWED' }, inOrg(orgId))).status).toBe(200);
    const again = await appLogin(kh);
    await second.page.goto(again.url.href);
    await usePasskey(second.page);
    expect((await shownReason(second.page)).reason).toBe('PASSKEY_LOGIN_NOT_ALLOWED');
    // Refused before anything was recorded: the passkey's audit trail holds no use.
    const used = await kh.database.sql.query({ text: `select 1 from events where aggregate_id = $1 and type = 'passkey.used'`, params: [passkeyId] });
    expect(used).toEqual([]);

    // With the org scope of that org, the first page offers no passkey at all; the password still signs in.
    const returned = await catchRedirect(second.page);
    const scoped = await authorizationUrl(again.config, { scope: `openid profile urn:keyhold:iam:org:id:${orgId}` });
    await second.page.goto(scoped.url.href);
    await second.page.getByLabel('Username').waitFor();
    expect(await second.page.locator('#passkey-start').count()).toBe(0);
    await passwordStep(second.page, scoped.url, user.username);
    await second.page.waitForURL(`${REDIRECT}**`);
    expect((await redeem(scoped, returned()!)).claims()!.amr).toEqual(['pwd']);
    await second.context.close();
  }, 90_000);

  it('an org without passwords: a typed name gets the passkey prompt, no password field; the passkey signs in', async () => {
    const orgId = await addOrg(kh, `Passwordless ${Date.now()}`);
    const user = await humanUser(kh, 'pk', orgId);
    expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: false, allowUsernamePassword: false }, inOrg(orgId))).status).toBe(200);
    const { context, page } = await passkeyPage(chromium, kh);
    await registerPasskey(kh, page, user.userId);
    const login = await appLogin(kh);
    const returned = await catchRedirect(page);
    await page.goto(login.url.href);
    await page.getByLabel('Username').fill(user.username);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.locator('#passkey-only').waitFor();
    expect(await page.locator('input[type=password]').count()).toBe(0);
    await usePasskey(page);
    await page.waitForURL(`${REDIRECT}**`);
    expect((await redeem(login, returned()!)).claims()!.amr).toEqual(PASSKEY_AMR);
    await context.close();
  }, 60_000);

  it('forceMfa: the enrolment chooses a passkey; its recovery codes are shown; the login finishes with the passkey’s amr', async () => {
    const orgId = await addOrg(kh, `Enrol passkey ${Date.now()}`);
    expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: true }, inOrg(orgId))).status).toBe(200);
    const user = await humanUser(kh, 'pk', orgId);
    const { context, page } = await passkeyPage(chromium, kh);
    const login = await appLogin(kh);
    const returned = await catchRedirect(page);
    await passwordStep(page, login.url, user.username);
    await page.getByRole('heading', { name: 'Add a security key' }).waitFor();
    await page.getByRole('button', { name: 'A passkey' }).click();
    await page.getByRole('heading', { name: 'Set up a passkey' }).waitFor();
    const options = JSON.parse((await page.getAttribute('#key-step', 'data-options'))!);
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
    await page.locator('#key-start:not([disabled])').waitFor();
    await page.getByRole('button', { name: 'Set up my passkey' }).click();
    expect((await continueAfterCodes(page)).length).toBeGreaterThan(0);
    await page.waitForURL(`${REDIRECT}**`);
    const claims = (await redeem(login, returned()!)).claims()!;
    expect(claims.amr).toEqual(PASSKEY_AMR);
    expect(claims.acr).toBe(MFA_ACR);
    const listed = await kh.rest('POST', `/v2/users/${user.userId}/passkeys/_search`, {});
    expect(listed.body.result.filter((k: any) => k.state === 'AUTH_FACTOR_STATE_READY').map((k: any) => k.name)).toEqual(['Passkey (added at sign-in)']);
    await context.close();
  }, 60_000);
});
