// A lost security key at login, in Chromium with a CDP
// virtual authenticator and openid-client: under forceMfa a user registers a
// first key during the login and is shown its recovery codes once; a later
// login without the key goes through "Use a recovery code" (amr pwd mfa, no
// hwk); the same code again is refused in words; after an administrator
// removes all the user's keys, the next login leads the user to register a
// new key (never locked out), which brings a new set of codes.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { createEventStore } from '../../../src/store/event-store.js';
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
  shownReason,
  startApp,
  stopApp,
} from '../../support/key-login.js';

const skip = !chromiumAvailable();
announceChromiumSkip('recovery-code login in Chromium');

describe.skipIf(skip)('login with a recovery code in Chromium', () => {
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

  it('first key at login shows 10 codes; a code replaces the lost key (amr pwd mfa) once; after RemoveAllU2F the user registers a new key', async () => {
    const orgId = await addOrg(kh, `Recovery ${Date.now()}`);
    expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: true }, inOrg(orgId))).status).toBe(200);
    const user = await humanUser(kh, 'lost', orgId);

    // 1. The first key, registered during the login: its codes are shown once.
    const first = await keyPage(chromium, kh);
    const login = await appLogin(kh);
    let returned = await catchRedirect(first.page);
    await passwordStep(first.page, login.url, user.username);
    await first.page.getByRole('heading', { name: 'Add a security key' }).waitFor({ timeout: 20_000 });
    await first.page.getByRole('button', { name: 'Register my security key' }).click();
    const codes = await continueAfterCodes(first.page);
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[0-9a-z]{6}-[0-9a-z]{6}$/);
    await first.page.waitForURL(`${REDIRECT}**`, { timeout: 20_000 });
    expect((await redeem(login, returned()!)).claims()!.amr).toEqual(['pwd', 'hwk', 'mfa']);
    await first.context.close();

    // 2. The key is lost: a browser without it, "Use a recovery code", a code typed loosely.
    const lost = await keyPage(chromium, kh);
    await lost.authenticator.remove();
    returned = await catchRedirect(lost.page);
    const second = await authorizationUrl(login.config, { prompt: 'login' });
    await passwordStep(lost.page, second.url, user.username);
    await lost.page.getByRole('heading', { name: 'Security key' }).waitFor({ timeout: 20_000 });
    await lost.page.getByRole('link', { name: 'Lost your key? Use a recovery code' }).click();
    await lost.page.getByRole('heading', { name: 'Use a recovery code' }).waitFor();
    expect(await lost.page.getAttribute('#code', 'autocomplete')).toBe('one-time-code');
    await lost.page.getByLabel('Recovery code').fill(` ${codes[3]!.toUpperCase().replace('-', ' ')} `);
    await lost.page.getByRole('button', { name: 'Continue' }).click();
    await lost.page.waitForURL(`${REDIRECT}**`, { timeout: 20_000 });
    const claims = (await redeem(second, returned()!)).claims()!;
    expect(claims.sub).toBe(user.userId);
    expect(claims.amr).toEqual(['pwd', 'mfa']);
    expect(claims.amr).not.toContain('hwk');
    expect(claims.acr).toBe('urn:keyhold:acr:mfa');
    expect((await kh.client(UserService, 'grpc').listU2FTokens({ userId: user.userId })).unusedRecoveryCodes).toBe(9);

    // 3. The same code again: refused in words, the form stays; something that is no code: its own reason.
    const third = await authorizationUrl(login.config, { prompt: 'login' });
    await passwordStep(lost.page, third.url, user.username);
    await lost.page.getByRole('heading', { name: 'Security key' }).waitFor({ timeout: 20_000 });
    await lost.page.getByRole('link', { name: 'Lost your key? Use a recovery code' }).click();
    await lost.page.getByLabel('Recovery code').fill(codes[3]!);
    await lost.page.getByRole('button', { name: 'Continue' }).click();
    const spent = await shownReason(lost.page);
    expect(spent.reason).toBe('RECOVERY_CODE_WRONG');
    expect(spent.text).toContain('already used');
    await lost.page.getByLabel('Recovery code').fill('not-a-code!');
    await lost.page.getByRole('button', { name: 'Continue' }).click();
    await lost.page.locator('p.error[data-reason=RECOVERY_CODE_MALFORMED]').waitFor();
    const types = (await createEventStore(kh.database).load('user', user.userId)).map((e) => e.type);
    expect(types.filter((t) => t === 'user.recovery.code.used')).toHaveLength(1);
    expect(types.filter((t) => t === 'user.recovery.code.check.failed')).toHaveLength(1);

    // 4. An administrator removes every key (and the codes): the next login leads to registering a new key.
    const removed = await kh.client(UserService, 'grpc').removeAllU2F({ userId: user.userId });
    expect(removed.removed).toBe(1);
    const fresh = await keyPage(chromium, kh, 'u2f');
    returned = await catchRedirect(fresh.page);
    const fourth = await authorizationUrl(login.config, { prompt: 'login' });
    await passwordStep(fresh.page, fourth.url, user.username);
    await fresh.page.getByRole('heading', { name: 'Add a security key' }).waitFor({ timeout: 20_000 });
    await fresh.page.getByRole('button', { name: 'Register my security key' }).click();
    const newCodes = await continueAfterCodes(fresh.page);
    expect(newCodes).toHaveLength(10);
    expect(newCodes).not.toContain(codes[0]);
    await fresh.page.waitForURL(`${REDIRECT}**`, { timeout: 20_000 });
    expect((await redeem(fourth, returned()!)).claims()!.amr).toEqual(['pwd', 'hwk', 'mfa']);
    await Promise.all([lost.context.close(), fresh.context.close()]);
  }, 120_000);
});
