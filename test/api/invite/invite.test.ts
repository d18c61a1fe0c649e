// CreateInviteCode, ResendInviteCode, VerifyInviteCode over REST and gRPC, and
// the invitation page over plain HTTP: the code answered once (its link from
// KEYHOLD_ISSUER, never a header), stored only as a hash, spent once; what
// needs mail says so while none is configured; who may (user.credential.write
// in the user's org under containment: another org's owner cannot invite into
// this org); the page's password form sets the first password and the code
// never works again; a key invitation only for a user with a password and no
// second factor.
import { Code } from '@connectrpc/connect';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { addOrg, bearer, machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

const ISSUER = 'https://login.example.com';
let kh: TestKeyhold;
let orgB: string;
let n = 0;

beforeAll(async () => {
  kh = await startTestKeyhold({ env: { KEYHOLD_ISSUER: ISSUER } });
  orgB = await addOrg(kh, `invite-b-${Date.now()}`);
}, 60_000);
afterAll(async () => kh?.close());

async function human(orgId?: string, password?: string): Promise<string> {
  const { userId } = await kh.client(UserService, 'grpc', kh.adminToken).addHumanUser({
    username: `invite-${process.pid}-${++n}@example.com`,
    ...(orgId ? { organization: { orgId } } : {}),
    profile: { givenName: 'Ada', familyName: 'L' },
    email: { email: 'ada@example.com' },
    ...(password ? { password: { password, changeRequired: false } } : {}),
  });
  return userId;
}

/** The invitation page at Keyhold's own address (the link's host is the issuer's). */
async function openPage(link: string): Promise<{ status: number; html: string }> {
  const url = new URL(link);
  const res = await fetch(`${kh.url}${url.pathname}${url.search}`, { headers: { 'accept-language': 'en' } });
  return { status: res.status, html: await res.text() };
}

const hidden = (html: string, name: string) => html.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? '';

async function postPassword(html: string, password: string, confirm = password) {
  const form = new URLSearchParams({
    user: hidden(html, 'user'),
    code: hidden(html, 'code'),
    enrolment: hidden(html, 'enrolment'),
    form_token: hidden(html, 'form_token'),
    username: hidden(html, 'username'),
    new_password: password,
    confirm_password: confirm,
  });
  const res = await fetch(`${kh.url}/ui/invite/password`, { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' } });
  return { status: res.status, html: await res.text() };
}

describe('invitations on the user API', () => {
  it('REST: returnCode answers the code and its link from KEYHOLD_ISSUER (not a header); only the hash is stored', async () => {
    const userId = await human();
    const res = await kh.rest('POST', `/v2/users/${userId}/invite_code`, { returnCode: {} }, { ...bearer(kh.adminToken), host: 'evil.example', 'x-forwarded-host': 'evil.example' });
    expect(res.status).toBe(200);
    expect(res.body.inviteCode).toMatch(/^[0-9a-z]{5}(-[0-9a-z]{5}){3}$/);
    expect(res.body.inviteUrl).toBe(`${ISSUER}/ui/invite?user=${userId}&code=${res.body.inviteCode}`);
    expect(res.body.details.sequence).toMatch(/^\d+$/);
    const events = await createEventStore(kh.database).load('user', userId);
    const added = events.find((e) => e.type === 'user.invite.code.added')!;
    expect(added.payload).toMatchObject({ purpose: 'credential', delivery: 'returned' });
    const compact = res.body.inviteCode.replaceAll('-', '');
    expect(JSON.stringify(events.map((e) => e.payload))).not.toMatch(new RegExp(`${res.body.inviteCode}|${compact}`));
    expect(kh.logLines.join('\n')).not.toContain(res.body.inviteCode);
  });

  it('gRPC: sendCode and ResendInviteCode say plainly that no mail server is configured, and write nothing; a urlTemplate is refused', async () => {
    const users = kh.client(UserService, 'grpc', kh.adminToken);
    const userId = await human();
    const send = await rpcError(users.createInviteCode({ userId, verification: { case: 'sendCode', value: {} } }));
    expect([send.code, send.reason]).toEqual([Code.FailedPrecondition, 'INVITE_MAIL_NOT_CONFIGURED']);
    const resend = await rpcError(users.resendInviteCode({ userId }));
    expect([resend.code, resend.reason]).toEqual([Code.FailedPrecondition, 'INVITE_MAIL_NOT_CONFIGURED']);
    const template = await kh.rest('POST', `/v2/users/${userId}/invite_code`, { sendCode: { urlTemplate: 'https://evil.example/{{.Code}}' } }, bearer(kh.adminToken));
    expect([template.status, restReason(template.body)]).toEqual([400, 'INVALID_REQUEST']);
    expect(restFields(template.body)).toEqual(['sendCode.urlTemplate']);
    const events = await createEventStore(kh.database).load('user', userId);
    expect(events.filter((e) => e.type.startsWith('user.invite.'))).toEqual([]);
  });

  it('VerifyInviteCode spends the code once (REST then gRPC); a wrong or malformed code is refused and counted; a new code replaces the old', async () => {
    const users = kh.client(UserService, 'grpc', kh.adminToken);
    const userId = await human();
    const first = await users.createInviteCode({ userId, verification: { case: 'returnCode', value: {} } });
    const second = await users.createInviteCode({ userId, verification: { case: 'returnCode', value: {} } });
    const old = await kh.rest('POST', `/v2/users/${userId}/invite_code/verify`, { verificationCode: first.inviteCode }, bearer(kh.adminToken));
    expect([old.status, restReason(old.body)]).toEqual([400, 'INVITE_CODE_WRONG']);
    const malformed = await kh.rest('POST', `/v2/users/${userId}/invite_code/verify`, { verificationCode: 'nope' }, bearer(kh.adminToken));
    expect([malformed.status, restReason(malformed.body)]).toEqual([400, 'INVITE_CODE_MALFORMED']);
    const missing = await kh.rest('POST', `/v2/users/${userId}/invite_code/verify`, {}, bearer(kh.adminToken));
    expect([missing.status, restFields(missing.body)]).toEqual([400, ['verificationCode']]);
    const ok = await kh.rest('POST', `/v2/users/${userId}/invite_code/verify`, { verificationCode: second.inviteCode!.toUpperCase() }, bearer(kh.adminToken));
    expect(ok.status).toBe(200);
    const again = await rpcError(users.verifyInviteCode({ userId, verificationCode: second.inviteCode! }));
    expect([again.code, again.reason]).toEqual([Code.InvalidArgument, 'INVITE_CODE_WRONG']);
    const types = (await createEventStore(kh.database).load('user', userId)).map((e) => e.type).filter((t) => t.startsWith('user.invite.'));
    expect(types).toEqual(['user.invite.code.added', 'user.invite.code.added', 'user.invite.code.check.failed', 'user.invite.code.used', 'user.invite.code.check.failed']);
  });

  it('who: no role 403, another org\u2019s ORG_OWNER cannot invite into this org (404 as no user), an ORG_USER_MANAGER cannot invite an ORG_OWNER (containment); a machine user has no invitation', async () => {
    const userId = await human();
    const noRole = await machineCaller(kh, undefined, `invite-norole-${Date.now()}`);
    const ownerB = await machineCaller(kh, orgB, `invite-ownerb-${Date.now()}`, ['ORG_OWNER']);
    const manager = await machineCaller(kh, undefined, `invite-mgr-${Date.now()}`, ['ORG_USER_MANAGER']);
    const orgOwner = await machineCaller(kh, undefined, `invite-owner-${Date.now()}`, ['ORG_OWNER']);
    for (const [path, body] of [
      [`/v2/users/${userId}/invite_code`, { returnCode: {} }],
      [`/v2/users/${userId}/invite_code/resend`, {}],
      [`/v2/users/${userId}/invite_code/verify`, { verificationCode: 'aaaaa-aaaaa-aaaaa-aaaaa' }],
    ] as const) {
      const denied = await kh.rest('POST', path, body, bearer(noRole.token));
      expect([denied.status, restReason(denied.body)], path).toEqual([403, 'PERMISSION_DENIED']);
      const foreign = await kh.rest('POST', path, body, bearer(ownerB.token));
      expect([foreign.status, restReason(foreign.body)], path).toEqual([404, 'USER_NOT_FOUND']);
    }
    const unauthenticated = await kh.rest('POST', `/v2/users/${userId}/invite_code`, { returnCode: {} }, { authorization: '' });
    expect(unauthenticated.status).toBe(401);
    const grpcForeign = await rpcError(kh.client(UserService, 'grpc', ownerB.token).createInviteCode({ userId, verification: { case: 'returnCode', value: {} } }));
    expect([grpcForeign.code, grpcForeign.reason]).toEqual([Code.NotFound, 'USER_NOT_FOUND']);
    const escalate = await rpcError(kh.client(UserService, 'grpc', manager.token).createInviteCode({ userId: orgOwner.userId, verification: { case: 'returnCode', value: {} } }));
    expect([escalate.code, escalate.reason]).toEqual([Code.PermissionDenied, 'PRIVILEGE_ESCALATION']);
    expect((await kh.client(UserService, 'grpc', manager.token).createInviteCode({ userId, verification: { case: 'returnCode', value: {} } })).inviteCode).toBeTruthy();
    const onMachine = await rpcError(kh.client(UserService, 'grpc', kh.adminToken).createInviteCode({ userId: noRole.userId, verification: { case: 'returnCode', value: {} } }));
    expect([onMachine.code, onMachine.reason]).toEqual([Code.FailedPrecondition, 'USER_NOT_HUMAN']);
    const noUser = await kh.rest('POST', `/v2/users/nobody-${Date.now()}/invite_code`, { returnCode: {} }, bearer(kh.adminToken));
    expect([noUser.status, restReason(noUser.body)]).toEqual([404, 'USER_NOT_FOUND']);
  });

  it('a user with a password is invited to add a security key (the page asks for the password); one with a second factor is refused', async () => {
    const users = kh.client(UserService, 'grpc', kh.adminToken);
    const withPassword = await human(undefined, 'a long enough passphrase 1');
    const resend = await rpcError(users.resendInviteCode({ userId: withPassword }));
    expect(resend.reason).toBe('INVITE_MAIL_NOT_CONFIGURED');
    const created = await users.createInviteCode({ userId: withPassword, verification: { case: 'returnCode', value: {} } });
    const events = await createEventStore(kh.database).load('user', withPassword);
    expect(events.find((e) => e.type === 'user.invite.code.added')!.payload).toMatchObject({ purpose: 'key' });
    const page = await openPage(created.inviteUrl!);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Add your security key');
    expect(page.html).toContain('name="password"');
    // With an authenticator app as its second factor: it adds further keys after signing in with it.
    const reg = await users.registerTOTP({ userId: withPassword });
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(reg.secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();
    await users.verifyTOTPRegistration({ userId: withPassword, code });
    const refused = await rpcError(users.createInviteCode({ userId: withPassword, verification: { case: 'returnCode', value: {} } }));
    expect([refused.code, refused.reason]).toEqual([Code.FailedPrecondition, 'INVITE_USER_HAS_SECOND_FACTOR']);
  });
});

describe('the invitation page', () => {
  it('sets the first password: the rules are named and spend nothing, then the code is spent and never works again', async () => {
    const userId = await human();
    const { inviteUrl } = await kh.client(UserService, 'grpc', kh.adminToken).createInviteCode({ userId, verification: { case: 'returnCode', value: {} } });
    const page = await openPage(inviteUrl!);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Set up your account');
    const differ = await postPassword(page.html, 'a long enough passphrase 2', 'something else entirely');
    expect([differ.status, differ.html.includes('The two passwords differ.')]).toEqual([400, true]);
    const short = await postPassword(page.html, 'short');
    expect(short.status).toBe(400);
    expect(short.html).toMatch(/at least 8/);
    const done = await postPassword(page.html, 'a long enough passphrase 2');
    expect(done.status).toBe(200);
    expect(done.html).toContain('id="invite-done"');
    expect(done.html).toContain(`href="${ISSUER}/console/"`);
    expect((await kh.readModel.passwordOf(userId))?.passwordHash).toMatch(/^\$argon2id\$/);
    const reuse = await postPassword(page.html, 'another long passphrase 3');
    expect(reuse.status).toBe(400);
    expect(reuse.html).toContain('does not work');
    expect((await openPage(inviteUrl!)).status).toBe(400);
  });

  it('a wrong code, a forged form token, an unknown user: one answer, nothing set', async () => {
    const userId = await human();
    const { inviteUrl, inviteCode } = await kh.client(UserService, 'grpc', kh.adminToken).createInviteCode({ userId, verification: { case: 'returnCode', value: {} } });
    const wrong = await openPage(inviteUrl!.replace(inviteCode!, 'aaaaa-aaaaa-aaaaa-aaaaa'));
    const unknown = await openPage(inviteUrl!.replace(`user=${userId}`, 'user=nobody'));
    expect([wrong.status, unknown.status]).toEqual([400, 400]);
    expect(wrong.html).toBe(unknown.html);
    // A NUL or a control character in the link or the form: the same plain 400, never a 500.
    for (const bad of [inviteUrl!.replace(`user=${userId}`, 'user=%00'), inviteUrl!.replace(inviteCode!, '%00%01'), inviteUrl!.replace(inviteCode!, `${inviteCode}%0A`)]) {
      const page = await openPage(bad);
      expect(page.status, bad).toBe(400);
      expect(page.html).toBe(unknown.html);
    }
    const nul = await fetch(`${kh.url}/ui/invite/password`, { method: 'POST', body: new URLSearchParams({ user: '\u0000', code: 'x', form_token: 'x' }), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(nul.status).toBe(400);
    const page = await openPage(inviteUrl!);
    const forged = await postPassword(page.html.replace(/name="form_token" value="[^"]*"/g, 'name="form_token" value="forged"'), 'a long enough passphrase 4');
    expect(forged.status).toBe(400);
    expect((await kh.readModel.passwordOf(userId))?.passwordHash ?? null).toBeNull();
  });
});

describe('the invitation page\u2019s key form and form token', () => {
  it('a key form with a wrong code is refused before the password is tried: no failed password is recorded', async () => {
    const userId = await human(undefined, 'a long enough passphrase 5');
    const { inviteUrl } = await kh.client(UserService, 'grpc', kh.adminToken).createInviteCode({ userId, verification: { case: 'returnCode', value: {} } });
    const page = await openPage(inviteUrl!);
    expect(page.html).toContain('name="password"');
    const form = new URLSearchParams({
      user: hidden(page.html, 'user'),
      code: 'aaaaa-aaaaa-aaaaa-aaaaa',
      enrolment: hidden(page.html, 'enrolment'),
      form_token: hidden(page.html, 'form_token'),
      password: 'a guessed passphrase',
      response: '{}',
    });
    const res = await fetch(`${kh.url}/ui/invite/key`, { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('does not work');
    const types = (await createEventStore(kh.database).load('user', userId)).map((e) => e.type);
    expect(types).not.toContain('user.password.check.failed');
  });

  it('a form token names when it stops working: one past its hour, or with its time changed, is refused and sets nothing', async () => {
    const userId = await human();
    const { inviteUrl } = await kh.client(UserService, 'grpc', kh.adminToken).createInviteCode({ userId, verification: { case: 'returnCode', value: {} } });
    const page = await openPage(inviteUrl!);
    const token = hidden(page.html, 'form_token');
    const [until, signature] = token.split('.');
    expect(Number(until)).toBeGreaterThan(Date.now() / 1000 + 3000);
    expect(Number(until)).toBeLessThanOrEqual(Date.now() / 1000 + 3600);
    for (const changed of [`${Number(until) + 86_400}.${signature}`, `${Math.floor(Date.now() / 1000) - 1}.${signature}`]) {
      const res = await postPassword(page.html.replace(token, changed), 'a long enough passphrase 6');
      expect(res.status).toBe(400);
    }
    expect((await kh.readModel.passwordOf(userId))?.passwordHash ?? null).toBeNull();
    expect((await postPassword(page.html, 'a long enough passphrase 6')).status).toBe(200);
  });
});

describe('the invitation page and the org\u2019s first factors', () => {
  it('an org without passwords: the page offers only the passkey, and a posted password is not set', async () => {
    const orgId = await addOrg(kh, `nopw-${Date.now()}`);
    const policy = await kh.rest('POST', '/management/v1/policies/login', { forceMfa: false, allowUsernamePassword: false }, { ...bearer(kh.adminToken), 'x-service-orgid': orgId });
    expect(policy.status).toBe(200);
    const userId = await human(orgId);
    const { inviteUrl } = await kh.client(UserService, 'grpc', kh.adminToken).createInviteCode({ userId, verification: { case: 'returnCode', value: {} } });
    const page = await openPage(inviteUrl!);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('name="new_password"');
    expect(page.html).toContain('Register a passkey instead');
    const posted = await postPassword(page.html, 'a long enough passphrase 5');
    expect(posted.status).toBe(400);
    expect((await kh.readModel.passwordOf(userId))?.passwordHash ?? null).toBeNull();
  });
});

describe('self-registration in the login policy', () => {
  it('REST: allowRegister, allowedDomains (normalized) and verification; a malformed domain named by index; left out on update: off', async () => {
    const orgId = await addOrg(kh, `reg-${Date.now()}`);
    const org = { ...bearer(kh.adminToken), 'x-service-orgid': orgId };
    const before = await kh.rest('GET', '/management/v1/policies/login', undefined, org);
    expect(before.body.policy.allowRegister ?? false).toBe(false);
    expect(before.body.policy.registerVerificationRequired).toBe(true);
    const bad = await kh.rest('POST', '/management/v1/policies/login', { forceMfa: false, allowRegister: true, allowedDomains: ['example.com', 'münchen.de'] }, org);
    expect([bad.status, restFields(bad.body)]).toEqual([400, ['allowedDomains[1]']]);
    const added = await kh.rest('POST', '/management/v1/policies/login', { forceMfa: false, allowRegister: true, allowedDomains: ['Example.COM', 'xn--mnchen-3ya.de'], registerVerificationRequired: false }, org);
    expect(added.status).toBe(200);
    const read = (await kh.rest('GET', '/management/v1/policies/login', undefined, org)).body.policy;
    expect(read).toMatchObject({ allowRegister: true, allowedDomains: ['example.com', 'xn--mnchen-3ya.de'] });
    expect(read.registerVerificationRequired ?? false).toBe(false);
    const updated = await kh.rest('PUT', '/management/v1/policies/login', { forceMfa: false, passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED', allowUsernamePassword: true }, org);
    expect(updated.status).toBe(200);
    const after = (await kh.rest('GET', '/management/v1/policies/login', undefined, org)).body.policy;
    expect(after.allowRegister ?? false).toBe(false);
    expect(after.allowedDomains ?? []).toEqual([]);
    expect(after.registerVerificationRequired).toBe(true);
  });
});
