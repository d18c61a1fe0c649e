// The authenticator-app (TOTP) step of the login in Chromium, codes computed
// with the otpauth package, ID tokens verified by openid-client: password and
// a code (amr pwd otp mfa, the mfa acr); a wrong code and the same code twice
// refused with their reason; a user with a key and an app goes between the two
// pages; forced enrolment of an app (QR code, secret as text, its code, the
// recovery codes of a first factor); a recovery code from the app's page.
import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../../support/chromium.js';
import { addOrg, inOrg } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import {
  appLogin,
  authorizationUrl,
  catchRedirect,
  continueAfterCodes,
  humanUser,
  keyPage,
  passwordStep,
  redeem,
  REDIRECT,
  registerKey,
  shownReason,
  startApp,
  stopApp,
} from '../../support/key-login.js';

const skip = !chromiumAvailable();
announceChromiumSkip('TOTP login in Chromium');

const STEP = 30_000;
const codeOf = (secret: string, at = Date.now()) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret.replaceAll(' ', '')), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: at });
/** A code that is not the right one now (nor ±1 step). */
const wrongCode = (secret: string) => {
  const near = new Set([-STEP, 0, STEP].map((d) => codeOf(secret, Date.now() + d)));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!near.has(candidate)) return candidate;
  }
};

async function typeCode(page: Page, code: string): Promise<void> {
  await page.getByLabel('Code').fill(code);
  await page.getByRole('button', { name: 'Continue' }).click();
}

describe.skipIf(skip)('login with an authenticator app in Chromium', () => {
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

  /** An app registered for the user through the API; the code that confirmed it spent its step. */
  async function withApp(userId: string): Promise<string> {
    const users = kh.client(UserService, 'grpc');
    const { secret } = await users.registerTOTP({ userId });
    await users.verifyTOTPRegistration({ userId, code: codeOf(secret) });
    return secret;
  }

  it('password and a code: a wrong code and the same code twice refused in words; a right one gives amr pwd otp mfa', async () => {
    const user = await humanUser(kh, 'totp');
    const secret = await withApp(user.userId);
    const { page, context } = await keyPage(chromium, kh);
    const login = await appLogin(kh);
    let returned = await catchRedirect(page);
    await passwordStep(page, login.url, user.username);
    await page.getByRole('heading', { name: 'Authenticator app' }).waitFor({ timeout: 20_000 });
    expect(await page.getAttribute('#code', 'autocomplete')).toBe('one-time-code');
    // No key: no way to one; a lost phone: the recovery code.
    expect(await page.locator('#use-key').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Lost your phone? Use a recovery code' }).count()).toBe(1);

    await typeCode(page, wrongCode(secret));
    const wrong = await shownReason(page);
    expect(wrong.reason).toBe('TOTP_CODE_WRONG');
    expect(wrong.text).toContain('not right');
    await typeCode(page, '12345');
    await page.locator('p.error[data-reason=TOTP_CODE_MALFORMED]').waitFor();

    // The next step's code (the one now was spent by the registration).
    const code = codeOf(secret, Date.now() + STEP);
    await typeCode(page, code);
    await page.waitForURL(`${REDIRECT}**`, { timeout: 20_000 });
    const claims = (await redeem(login, returned()!)).claims()!;
    expect(claims.sub).toBe(user.userId);
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claims.acr).toBe('urn:keyhold:acr:mfa');

    // The same code again, at another login: refused.
    returned = await catchRedirect(page);
    const again = await authorizationUrl(login.config, { prompt: 'login' });
    await passwordStep(page, again.url, user.username);
    await page.getByRole('heading', { name: 'Authenticator app' }).waitFor({ timeout: 20_000 });
    await typeCode(page, code);
    expect((await shownReason(page)).reason).toBe('TOTP_CODE_WRONG');
    expect(returned()).toBeUndefined();
    await context.close();
  }, 120_000);

  it('a user with a key and an app: the key page links to the app, the app page back to the key', async () => {
    const user = await humanUser(kh, 'both');
    const { page, context } = await keyPage(chromium, kh);
    await registerKey(kh, page, user.userId);
    const secret = await withApp(user.userId);
    const login = await appLogin(kh);
    const returned = await catchRedirect(page);
    await passwordStep(page, login.url, user.username);
    await page.getByRole('heading', { name: 'Security key' }).waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Use my authenticator app instead' }).click();
    await page.getByRole('heading', { name: 'Authenticator app' }).waitFor();
    await page.getByRole('button', { name: 'Use my security key instead' }).click();
    await page.getByRole('heading', { name: 'Security key' }).waitFor();
    await page.getByRole('button', { name: 'Use my authenticator app instead' }).click();
    await page.getByRole('heading', { name: 'Authenticator app' }).waitFor();
    await typeCode(page, codeOf(secret, Date.now() + STEP));
    await page.waitForURL(`${REDIRECT}**`, { timeout: 20_000 });
    const claims = (await redeem(login, returned()!)).claims()!;
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claims.acr).toBe('urn:keyhold:acr:mfa');
    await context.close();
  }, 120_000);

  it('forceMfa: an app registered at the login (QR code, secret as text, its code) brings recovery codes and finishes the login; a recovery code from the app page later', async () => {
    const orgId = await addOrg(kh, `Totp ${Date.now()}`);
    expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: true }, inOrg(orgId))).status).toBe(200);
    const user = await humanUser(kh, 'enrol-totp', orgId);
    const { page, context } = await keyPage(chromium, kh);
    const login = await appLogin(kh);
    let returned = await catchRedirect(page);
    await passwordStep(page, login.url, user.username);
    await page.getByRole('heading', { name: 'Add a security key' }).waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'An authenticator app' }).click();
    await page.getByRole('heading', { name: 'Add an authenticator app' }).waitFor();
    expect(await page.locator('#totp-qr svg').isVisible()).toBe(true);
    const shown = (await page.locator('#totp-secret').textContent())!;
    expect(shown).toMatch(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
    const secret = shown.replaceAll(' ', '');
    // The secret is in the page only: not in its address, nor in any stored interaction or session.
    expect(page.url()).not.toContain(secret);
    const payloads = await kh.database.sql.query<{ payload: string }>({ text: `select payload::text as payload from oidc_payloads`, params: [] });
    expect(payloads.filter((r) => r.payload.includes(secret) || r.payload.includes(shown))).toEqual([]);
    // A reload draws a new registration: the secret shown before no longer confirms anything.
    await page.reload();
    const reloaded = (await page.locator('#totp-secret').textContent())!.replaceAll(' ', '');
    expect(reloaded).not.toBe(secret);
    await page.getByLabel('Code').fill(codeOf(secret));
    await page.getByRole('button', { name: 'Add the app and sign in' }).click();
    expect((await shownReason(page)).reason).toBe('TOTP_CODE_WRONG');
    // After a refused code the same registration is shown again: the app just set up still matches.
    const current = (await page.locator('#totp-secret').textContent())!.replaceAll(' ', '');
    expect(current).toBe(reloaded);
    await page.getByRole('button', { name: 'A security key' }).waitFor();

    await page.getByLabel('Code').fill(codeOf(current));
    await page.getByRole('button', { name: 'Add the app and sign in' }).click();
    const codes = await continueAfterCodes(page);
    expect(codes).toHaveLength(10);
    await page.waitForURL(`${REDIRECT}**`, { timeout: 20_000 });
    let claims = (await redeem(login, returned()!)).claims()!;
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claims.acr).toBe('urn:keyhold:acr:mfa');

    // A lost phone: the app page's link to a recovery code.
    returned = await catchRedirect(page);
    const later = await authorizationUrl(login.config, { prompt: 'login' });
    await passwordStep(page, later.url, user.username);
    await page.getByRole('heading', { name: 'Authenticator app' }).waitFor({ timeout: 20_000 });
    await page.getByRole('link', { name: 'Lost your phone? Use a recovery code' }).click();
    await page.getByRole('heading', { name: 'Use a recovery code' }).waitFor();
    await page.getByLabel('Recovery code').fill(codes[0]!);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${REDIRECT}**`, { timeout: 20_000 });
    claims = (await redeem(later, returned()!)).claims()!;
    expect(claims.amr).toEqual(['pwd', 'mfa']);
    await context.close();
  }, 120_000);
});
