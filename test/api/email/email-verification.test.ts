// Address verification over REST and gRPC, against a real SMTP server process:
// AddHumanUser with returnCode answers a code, VerifyEmail spends it once and
// the address reads verified — in GetUserByID and in the userinfo of a real
// login (openid-client); sendCode mails a code and a link built from
// KEYHOLD_ISSUER (never a header), and the link's page verifies on the
// person's POST, not on opening; a user never marks its own address verified
// (an administrator may, under containment; another org's admin gets 404); a
// new address is unverified and the old code dead; a url template is refused.
import { Code } from '@connectrpc/connect';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { addOrg, machineCaller, type MachineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { authorizationUrl, appLogin, redeem, startApp, stopApp } from '../../support/key-login.js';
import { browser, logIn } from '../../support/oidc-login.js';
import { startSmtpServer, type TestSmtpServer } from '../../support/smtp-server.js';

const ISSUER_HOST = 'login.example.com';
const PASSWORD = 'a long enough passphrase 1';
let kh: TestKeyhold;
let smtp: TestSmtpServer;
let otherOrgOwner: MachineCaller;
let n = 0;

beforeAll(async () => {
  smtp = await startSmtpServer();
  [kh] = await Promise.all([startTestKeyhold({ env: { ...smtp.env, KEYHOLD_ISSUER: `https://${ISSUER_HOST}` } }), startApp()]);
  const other = await addOrg(kh, `email-other-${Date.now()}`);
  otherOrgOwner = await machineCaller(kh, other, 'email-other-owner', ['ORG_OWNER']);
}, 60_000);
afterAll(async () => {
  await kh?.close();
  await smtp?.close();
  await stopApp();
});

const users = () => kh.client(UserService, 'grpc', kh.adminToken);
const address = () => `verify-${process.pid}-${++n}@example.com`;

/** A human with a password, and a PAT of its own (the user acting for itself). */
async function human(verification?: Record<string, unknown>) {
  const email = address();
  const res = await kh.rest('POST', '/v2/users/human', { username: email, profile: { givenName: 'Vera', familyName: 'Fy' }, email: { email, ...verification }, password: { password: PASSWORD, changeRequired: false } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { userId: res.body.userId as string, email, emailCode: res.body.emailCode as string | undefined };
}

const verified = async (userId: string) => (await users().getUserByID({ userId })).user?.type.case === 'human' ? ((await users().getUserByID({ userId })).user!.type.value as { email?: { isVerified: boolean } }).email?.isVerified : undefined;

describe('address verification on the user API', () => {
  it('AddHumanUser with returnCode answers a code; VerifyEmail spends it once; the address then reads verified', async () => {
    const { userId, emailCode } = await human({ returnCode: {} });
    expect(emailCode).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}$/);
    expect(await verified(userId)).toBe(false);
    const wrong = await kh.rest('POST', `/v2/users/${userId}/email/verify`, { verificationCode: emailCode === 'aaaa-aaaa' ? 'bbbb-bbbb' : 'aaaa-aaaa' });
    expect([wrong.status, restReason(wrong.body)]).toEqual([400, 'EMAIL_CODE_WRONG']);
    const ok = await kh.rest('POST', `/v2/users/${userId}/email/verify`, { verificationCode: emailCode!.toUpperCase() });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await verified(userId)).toBe(true);
    const again = await rpcError(users().verifyEmail({ userId, verificationCode: emailCode! }));
    expect([again.code, again.reason]).toEqual([Code.InvalidArgument, 'EMAIL_CODE_WRONG']);
    const events = await createEventStore(kh.database).load('user', userId);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['user.email.code.added', 'user.email.verified', 'user.email.code.check.failed']));
    const compact = emailCode!.replace('-', '');
    expect(JSON.stringify(events.map((e) => e.payload))).not.toMatch(new RegExp(`${emailCode}|${compact}`));
    expect(kh.logLines.join('\n')).not.toContain(emailCode!);
  });

  it('an administrator may mark an address verified; another org\u2019s owner gets 404; a url template is refused by name', async () => {
    const { userId, email } = await human();
    const foreign = await rpcError(kh.client(UserService, 'grpc', otherOrgOwner.token).setEmail({ userId, email, verification: { case: 'isVerified', value: true } }));
    expect(foreign.code).toBe(Code.NotFound);
    const template = await kh.rest('POST', `/v2/users/${userId}/email`, { email, sendCode: { urlTemplate: 'https://evil.example/{{.Code}}' } });
    expect([template.status, restFields(template.body)]).toEqual([400, ['sendCode.urlTemplate']]);
    const admin = await kh.rest('POST', `/v2/users/${userId}/email`, { email, isVerified: true });
    expect(admin.status, JSON.stringify(admin.body)).toBe(200);
    expect(await verified(userId)).toBe(true);
    // Another address: unverified again, until its own code comes back.
    const moved = address();
    const changed = await kh.rest('POST', `/v2/users/${userId}/email`, { email: moved, returnCode: {} });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(await verified(userId)).toBe(false);
    const done = await kh.rest('POST', `/v2/users/${userId}/email/verify`, { verificationCode: changed.body.verificationCode });
    expect(done.status).toBe(200);
    expect(await verified(userId)).toBe(true);
  });

  it('a code sent to an address the user no longer holds does nothing', async () => {
    const { userId, emailCode } = await human({ returnCode: {} });
    await users().setEmail({ userId, email: address() });
    const late = await rpcError(users().verifyEmail({ userId, verificationCode: emailCode! }));
    expect(late.reason).toBe('EMAIL_CODE_WRONG');
    expect(await verified(userId)).toBe(false);
  });

  it('sendCode mails a code and a link from KEYHOLD_ISSUER; opening the link verifies nothing, the person\u2019s POST does', async () => {
    const { userId, email } = await human();
    const sent = await kh.rest('POST', `/v2/users/${userId}/email/resend`, { sendCode: {} }, { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'accept-language': 'de' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.verificationCode).toBeUndefined();
    const mail = await smtp.next({ to: email });
    expect(mail.subject).toBe('Bestätigen Sie Ihre E-Mail-Adresse');
    const link = mail.links.find((l) => l.includes('/ui/login/verify-email'))!;
    expect(new URL(link).host).toBe(ISSUER_HOST);
    expect(mail.text).not.toContain('evil.example');
    const url = new URL(link);
    const page = await fetch(`${kh.url}${url.pathname}${url.search}`);
    expect(page.status).toBe(200);
    expect(await verified(userId)).toBe(false);
    const code = url.searchParams.get('code')!;
    expect(mail.text).toContain(code);
    const post = await fetch(`${kh.url}${url.pathname}`, { method: 'POST', body: new URLSearchParams({ user: userId, code }), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(post.status).toBe(200);
    expect(await post.text()).toContain('id="email-verified"');
    expect(await verified(userId)).toBe(true);
    const reuse = await fetch(`${kh.url}${url.pathname}`, { method: 'POST', body: new URLSearchParams({ user: userId, code }), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(reuse.status).toBe(400);
    // Input that is no code, or a NUL in the query: a plain 400 page.
    for (const bad of [`?user=${userId}&code=%00`, `?user=%00&code=abcd-efgh`, `?user=${userId}&code=${'a'.repeat(40)}`]) {
      expect((await fetch(`${kh.url}${url.pathname}${bad}`)).status).toBe(400);
    }
  });

  it('without a mail server sendCode says so and writes nothing', async () => {
    const bare = await startTestKeyhold();
    try {
      const before = (await bare.rest('POST', '/v2/users', { queries: [] })).body.result.length;
      const created = await bare.rest('POST', '/v2/users/human', { username: address(), profile: { givenName: 'N', familyName: 'M' }, email: { email: address(), sendCode: {} } });
      expect([created.status, restReason(created.body)]).toEqual([400, 'EMAIL_MAIL_NOT_CONFIGURED']);
      const listed = await bare.rest('POST', '/v2/users', { queries: [] });
      expect((listed.body.result as unknown[]).length).toBe(before);
    } finally {
      await bare.close();
    }
  }, 60_000);
  it('userinfo says email_verified: false before, true after (a real login with openid-client)', async () => {
    const plain = await startTestKeyhold();
    const email = address();
    const made = await plain.rest('POST', '/v2/users/human', { username: email, profile: { givenName: 'Vera', familyName: 'Fy' }, email: { email, returnCode: {} }, password: { password: PASSWORD, changeRequired: false } });
    const { userId, emailCode } = made.body as { userId: string; emailCode: string };
    const claimsNow = async () => {
      const login = await appLogin(plain);
      const withEmail = await authorizationUrl(login.config, { scope: 'openid profile email' });
      const returned = await logIn(browser(`http://localhost:${plain.port}`), withEmail.url, email, PASSWORD);
      const tokens = await redeem(withEmail, returned.toString());
      const info = await oidc.fetchUserInfo(withEmail.config, tokens.access_token, userId);
      // The ID token carries profile claims only for apps that ask (idTokenUserinfoAssertion); userinfo always.
      expect(tokens.claims()?.email_verified).toBeUndefined();
      return [info.email, info.email_verified];
    };
    try {
      expect(await claimsNow()).toEqual([email, false]);
      await plain.client(UserService, 'grpc', plain.adminToken).verifyEmail({ userId, verificationCode: emailCode });
      expect(await claimsNow()).toEqual([email, true]);
    } finally {
      await plain.close();
    }
  }, 60_000);

});
