// A security key as the second factor at login, in Chromium with a
// CDP virtual authenticator: the key is registered through the API, then the
// user logs in to an app made with AddOIDCApp — password, then the key — and
// openid-client redeems the code for tokens whose amr says so.
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../../support/chromium.js';
import { addOrg, inOrg } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { answerWith, appLogin, copyKey, authorizationUrl, catchRedirect, continueAfterCodes, humanUser, keyPage, passwordStep, redeem, registerKey, REDIRECT, shownReason, startApp, stopApp, useKey } from '../../support/key-login.js';

const skip = !chromiumAvailable();
announceChromiumSkip('security-key login in Chromium');

describe.skipIf(skip)('login with a security key in Chromium', () => {
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

  it.each(['ctap2', 'u2f'] as const)('%s key: password, then the key; the ID token and introspection say pwd hwk mfa', async (protocol) => {
    const user = await humanUser(kh);
    const { context, page, authenticator } = await keyPage(chromium, kh, protocol);
    await registerKey(kh, page, user.userId, `${protocol} key`);
    const before = (await authenticator.credentials())[0]!.signCount;
    const login = await appLogin(kh);
    const returned = await catchRedirect(page);
    const problems: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && problems.push(m.text())));

    await passwordStep(page, login.url, user.username);
    await page.getByRole('heading', { name: 'Security key' }).waitFor();
    expect(await page.textContent('main')).toContain(`finish signing in as ${user.username}`);
    await useKey(page);
    await page.waitForURL(`${REDIRECT}**`);
    // The page's script loaded under script-src 'self' without a CSP violation.
    expect(problems).toEqual([]);

    const tokens = await redeem(login, returned()!);
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(user.userId);
    expect(claims.amr).toEqual(['pwd', 'hwk', 'mfa']);
    expect(claims.acr).toBe('urn:keyhold:acr:mfa');
    const introspected = await oidc.tokenIntrospection(login.config, tokens.access_token);
    expect(introspected.active).toBe(true);
    expect(introspected.amr).toEqual(['pwd', 'hwk', 'mfa']);
    expect(introspected.acr).toBe('urn:keyhold:acr:mfa');
    // The key's counter moved on, and Keyhold stored it (u2f.used).
    expect((await authenticator.credentials())[0]!.signCount).toBeGreaterThan(before);
    await context.close();
  }, 60_000);

  it('any of several keys logs in; a key removed with RemoveU2F is refused at once, and another key still works', async () => {
    const user = await humanUser(kh);
    const first = await keyPage(chromium, kh);
    const a = await registerKey(kh, first.page, user.userId, 'Key A');
    const second = await keyPage(chromium, kh, 'u2f');
    const b = await registerKey(kh, second.page, user.userId, 'Key B');

    // A browser holding key B only (moved there with its counter): the second key logs in.
    const ctx = await keyPage(chromium, kh);
    await ctx.authenticator.remove();
    const keyB = await copyKey(second.authenticator, ctx.page, 'u2f');
    const login = await appLogin(kh);
    const returned = await catchRedirect(ctx.page);
    await passwordStep(ctx.page, login.url, user.username);
    await ctx.page.getByRole('heading', { name: 'Security key' }).waitFor();
    const options = JSON.parse((await ctx.page.getAttribute('#key-step', 'data-options'))!);
    // allowCredentials: every ready key of the user for this RP ID; presence is enough.
    expect(options.allowCredentials.map((c: { id: string }) => c.id).sort()).toEqual([a.credentialId, b.credentialId].sort());
    expect(options.userVerification).toBe('discouraged');
    await useKey(ctx.page);
    await ctx.page.waitForURL(`${REDIRECT}**`);
    expect((await redeem(login, returned()!)).claims()!.amr).toEqual(['pwd', 'hwk', 'mfa']);

    // Now key A as well; RemoveU2F of A while the key page is open: A is refused, in words, and B goes on.
    const keyA = await copyKey(first.authenticator, ctx.page, 'ctap2');
    const bCount = (await keyB.credentials())[0]!.signCount;
    await keyB.remove();
    const next = await authorizationUrl(login.config, { prompt: 'login' });
    await passwordStep(ctx.page, next.url, user.username);
    await ctx.page.getByRole('heading', { name: 'Security key' }).waitFor();
    await kh.client(UserService, 'grpc').removeU2F({ userId: user.userId, u2fId: a.u2fId });
    await answerWith(ctx.page, [a.credentialId]);
    const refused = await shownReason(ctx.page);
    expect(refused.reason).toBe('U2F_LOGIN_UNKNOWN_CREDENTIAL');
    expect(refused.text).toContain('not registered for your account (or it was removed)');
    // The page offers the key step again, without the removed key.
    const after = JSON.parse((await ctx.page.getAttribute('#key-step', 'data-options'))!);
    expect(after.allowCredentials.map((c: { id: string }) => c.id)).toEqual([b.credentialId]);
    await keyA.remove();
    await copyKey(second.authenticator, ctx.page, 'u2f', bCount);
    await useKey(ctx.page);
    await ctx.page.waitForURL(`${REDIRECT}**`);
    expect((await redeem(next, returned()!)).claims()!.amr).toEqual(['pwd', 'hwk', 'mfa']);
    await Promise.all([first.context.close(), second.context.close(), ctx.context.close()]);
  }, 90_000);

  it('a user without a key (and no forceMfa) logs in with the password alone: amr pwd, acr pwd', async () => {
    const user = await humanUser(kh);
    const { context, page } = await keyPage(chromium, kh);
    const login = await appLogin(kh);
    const returned = await catchRedirect(page);
    await passwordStep(page, login.url, user.username);
    await page.waitForURL(`${REDIRECT}**`);
    const claims = (await redeem(login, returned()!)).claims()!;
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.acr).toBe('urn:keyhold:acr:pwd');
    await context.close();
  }, 60_000);

  it('forceMfa: a user without a key registers one during the login and finishes with it; the next login asks for it', async () => {
    const orgId = await addOrg(kh, `Keys required ${Date.now()}`);
    expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: true }, inOrg(orgId))).status).toBe(200);
    const user = await humanUser(kh, 'mfa', orgId);
    const { context, page } = await keyPage(chromium, kh, 'u2f');
    const login = await appLogin(kh);
    const returned = await catchRedirect(page);
    await passwordStep(page, login.url, user.username);
    await page.getByRole('heading', { name: 'Add a security key' }).waitFor();
    expect(await page.textContent('main')).toContain('Your organization requires a security key');
    await page.getByRole('button', { name: 'Register my security key' }).click();
    await continueAfterCodes(page);
    await page.waitForURL(`${REDIRECT}**`);
    expect((await redeem(login, returned()!)).claims()!.amr).toEqual(['pwd', 'hwk', 'mfa']);
    const keys = (await kh.client(UserService, 'grpc').listU2FTokens({ userId: user.userId })).result;
    expect(keys.map((k) => k.name)).toEqual(['Security key (added at sign-in)']);

    // The next login: the key it registered is asked for, and works.
    const next = await authorizationUrl(login.config, { prompt: 'login' });
    await passwordStep(page, next.url, user.username);
    await page.getByRole('heading', { name: 'Security key' }).waitFor();
    await useKey(page);
    await page.waitForURL(`${REDIRECT}**`);
    expect((await redeem(next, returned()!)).claims()!.acr).toBe('urn:keyhold:acr:mfa');
    await context.close();
  }, 60_000);

  it('forceMfa: a refused registration (the prompt cancelled) is said in words and the user can register then', async () => {
    const orgId = await addOrg(kh, `Keys required ${Date.now()}`);
    await kh.rest('POST', '/management/v1/policies/login', { forceMfa: true }, inOrg(orgId));
    const user = await humanUser(kh, 'mfa', orgId);
    const { context, page, authenticator } = await keyPage(chromium, kh);
    const login = await appLogin(kh);
    const returned = await catchRedirect(page);
    await passwordStep(page, login.url, user.username);
    await page.getByRole('heading', { name: 'Add a security key' }).waitFor();
    // No key at hand: the browser's refusal (NotAllowedError, as a cancelled prompt gives) is posted by the page.
    await authenticator.remove();
    await page.evaluate(() => {
      (document.getElementById('key-failure') as HTMLInputElement).value = 'NotAllowedError';
      setTimeout(() => (document.getElementById('key-form') as HTMLFormElement).submit(), 0);
    });
    expect((await shownReason(page)).reason).toBe('U2F_LOGIN_CANCELLED');
    const { addVirtualAuthenticator } = await import('../../support/chromium.js');
    await addVirtualAuthenticator(page, { protocol: 'ctap2' });
    await page.getByRole('button', { name: 'Register my security key' }).click();
    await continueAfterCodes(page);
    await page.waitForURL(`${REDIRECT}**`);
    expect((await redeem(login, returned()!)).claims()!.amr).toEqual(['pwd', 'hwk', 'mfa']);
    await context.close();
  }, 60_000);
});
