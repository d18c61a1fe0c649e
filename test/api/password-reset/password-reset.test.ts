// PasswordReset over REST and gRPC against a real SMTP server process: the
// login's reset link mailed to the user (its address from KEYHOLD_ISSUER, never
// a request header) or its code answered to the caller; either sets a new
// password once at the reset page; the request is an audit event naming who
// asked, with nothing of the code; three links per user per 15 minutes whoever
// asks (8 at once: three); what cannot have a link says why and writes nothing.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../../gen/keyhold/auth/v1/auth_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { NotificationType } from '../../../gen/keyhold/user/v2/password_reset_pb.js';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { bearer, machineCaller } from '../../support/identity.js';
import { humanUser } from '../../support/key-login.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { startSmtpServer, type TestSmtpServer } from '../../support/smtp-server.js';

const NEW_PASSWORD = 'a new and even longer passphrase';
let kh: TestKeyhold;
let smtp: TestSmtpServer;

beforeAll(async () => {
  smtp = await startSmtpServer();
  kh = await startTestKeyhold({ env: smtp.env });
}, 60_000);
afterAll(async () => {
  await kh?.close();
  await smtp?.close();
});

const users = () => kh.client(UserService, 'grpc', kh.adminToken);
const resetEvents = async (userId: string) => (await createEventStore(kh.database).load('user', userId)).filter((e) => e.type === 'user.password.reset.requested');

/** The reset page's form, posted as a browser would (the code is the only credential it takes). */
const postReset = (code: string, password: string) =>
  fetch(`${kh.url}/ui/login/reset`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' }, body: new URLSearchParams({ code, new_password: password, confirm_password: password }) });

describe('PasswordReset', () => {
  it('REST sendLink: the login\u2019s link in the caller\u2019s language, from the issuer whatever the Host says; it sets the password once; the event names who asked and holds no code', async () => {
    const user = await humanUser(kh, 'reset-mail');
    const res = await kh.rest('POST', `/v2/users/${user.userId}/password_reset`, { sendLink: { notificationType: 'NOTIFICATION_TYPE_Email' } }, { ...bearer(kh.adminToken), host: 'evil.example', 'x-forwarded-host': 'evil.example', 'accept-language': 'de' });
    expect(res.status).toBe(200);
    expect(res.body.details.sequence).toMatch(/^\d+$/);
    expect(res.body.verificationCode).toBeUndefined();
    const mail = await smtp.next({ to: `${user.username}@example.com` });
    expect([mail.subject, mail.lang]).toEqual(['Neues Passwort festlegen', 'de']);
    const link = mail.links[0]!;
    expect(link.startsWith(`${kh.issuer}/ui/login/reset?code=`)).toBe(true);
    const code = new URL(link).searchParams.get('code')!;

    expect((await fetch(link)).status).toBe(200);
    expect((await postReset(code, NEW_PASSWORD)).status).toBe(200);
    expect((await postReset(code, 'yet another long passphrase')).status).toBe(410);

    const [event] = await resetEvents(user.userId);
    const admin = await kh.client(AuthService, 'grpc', kh.adminToken).getMyUser({});
    expect(event?.payload).toEqual({ delivery: 'mail' });
    expect(event?.creator).toBe(admin.user?.userId);
    const everything = JSON.stringify((await createEventStore(kh.database).load('user', user.userId)).map((e) => e.payload));
    expect(everything).not.toContain(code);
    expect(kh.logLines.join('\n')).not.toContain(code);
  });

  it('gRPC returnCode: the code and its link answered once; the page takes it; a mail is not sent', async () => {
    const user = await humanUser(kh, 'reset-return');
    const before = smtp.all().length;
    const answer = await users().passwordReset({ userId: user.userId, medium: { case: 'returnCode', value: {} } });
    expect(answer.verificationCode).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(answer.resetUrl).toBe(`${kh.issuer}/ui/login/reset?code=${answer.verificationCode}`);
    expect((await postReset(answer.verificationCode!, NEW_PASSWORD)).status).toBe(200);
    expect((await resetEvents(user.userId)).map((e) => e.payload)).toEqual([{ delivery: 'returned' }]);
    expect(smtp.all().length).toBe(before);
  });

  it('three links per user per 15 minutes, whoever asks: 8 at once give three, the rest RESOURCE_EXHAUSTED (429 over REST), and no event for a refused one', async () => {
    const user = await humanUser(kh, 'reset-flood');
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () =>
        users()
          .passwordReset({ userId: user.userId, medium: { case: 'returnCode', value: {} } })
          .then(
            () => 'ok',
            (e) => rpcError(Promise.reject(e)).then((err) => `${Code[err.code]} ${err.reason}`),
          ),
      ),
    );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(3);
    expect(new Set(outcomes.filter((o) => o !== 'ok'))).toEqual(new Set(['ResourceExhausted PASSWORD_RESET_LIMIT']));
    expect(await resetEvents(user.userId)).toHaveLength(3);
    const rest = await kh.rest('POST', `/v2/users/${user.userId}/password_reset`, { returnCode: {} });
    expect([rest.status, restReason(rest.body)]).toEqual([429, 'PASSWORD_RESET_LIMIT']);
    expect(rest.body.message).toMatch(/3 reset links in the last 15 minutes/);
  });

  it('refused with the field or the reason, nothing written: a URL template, SMS, no user id, a machine, a deactivated user, an unknown user', async () => {
    const user = await humanUser(kh, 'reset-refused');
    const template = await kh.rest('POST', `/v2/users/${user.userId}/password_reset`, { sendLink: { urlTemplate: 'https://evil.example/{{.Code}}' } });
    expect([template.status, restFields(template.body)]).toEqual([400, ['sendLink.urlTemplate']]);
    const sms = await rpcError(users().passwordReset({ userId: user.userId, medium: { case: 'sendLink', value: { notificationType: NotificationType.SMS } } }));
    expect([sms.code, sms.violations.map((v) => v.field)]).toEqual([Code.InvalidArgument, ['sendLink.notificationType']]);
    const noId = await rpcError(users().passwordReset({ userId: '', medium: { case: 'returnCode', value: {} } }));
    expect([noId.code, noId.violations.map((v) => v.field)]).toEqual([Code.InvalidArgument, ['userId']]);
    expect(await resetEvents(user.userId)).toEqual([]);

    const { userId: machineId } = await kh.client(ManagementService, 'grpc', kh.adminToken).addMachineUser({ userName: `reset-bot-${process.pid}`, name: 'bot' });
    const machine = await rpcError(users().passwordReset({ userId: machineId, medium: { case: 'returnCode', value: {} } }));
    expect([machine.code, machine.reason]).toEqual([Code.FailedPrecondition, 'PASSWORD_ONLY_FOR_HUMAN_USERS']);

    await users().deactivateUser({ userId: user.userId });
    const inactive = await kh.rest('POST', `/v2/users/${user.userId}/password_reset`, { sendLink: {} });
    expect([inactive.status, restReason(inactive.body)]).toEqual([400, 'USER_NOT_ACTIVE']);
    expect(await resetEvents(user.userId)).toEqual([]);

    const unknown = await rpcError(users().passwordReset({ userId: 'no-such-user', medium: { case: 'returnCode', value: {} } }));
    expect([unknown.code, unknown.reason]).toEqual([Code.NotFound, 'USER_NOT_FOUND']);
  });
});

describe('a returned code, decided again at its use', () => {
  const returned = async (token: string, userId: string) =>
    (await kh.client(UserService, 'grpc', token).passwordReset({ userId, medium: { case: 'returnCode', value: {} } })).verificationCode!;
  const manager = (name: string) => machineCaller(kh, undefined, `${name}-${process.pid}-${Date.now()}`, ['ORG_USER_MANAGER']);

  it('does nothing once its user is promoted past the administrator who had it made', async () => {
    const maker = await manager('reset-maker-a');
    const user = await humanUser(kh, 'reset-promoted');
    const code = await returned(maker.token, user.userId);
    await kh.client(ManagementService, 'grpc', kh.adminToken).addOrgMember({ userId: user.userId, roles: ['ORG_OWNER'] });
    expect((await fetch(`${kh.url}/ui/login/reset?code=${code}`)).status).toBe(410);
    expect((await postReset(code, NEW_PASSWORD)).status).toBe(410);
  });

  it('does nothing once the administrator who had it made lost the role, or is gone', async () => {
    const maker = await manager('reset-maker-b');
    const [demotedFor, removedFor] = [await humanUser(kh, 'reset-demoted'), await humanUser(kh, 'reset-removed')];
    const first = await returned(maker.token, demotedFor.userId);
    const mgmt = kh.client(ManagementService, 'grpc', kh.adminToken);
    await mgmt.removeOrgMember({ userId: maker.userId });
    expect((await postReset(first, NEW_PASSWORD)).status).toBe(410);

    const other = await manager('reset-maker-c');
    const second = await returned(other.token, removedFor.userId);
    await users().removeUser({ userId: other.userId });
    expect((await postReset(second, NEW_PASSWORD)).status).toBe(410);
  });

  it('a working one is recorded as its maker\u2019s change; a lock spends it for good, and so does a deactivation', async () => {
    const maker = await manager('reset-maker-d');
    const user = await humanUser(kh, 'reset-works');
    const code = await returned(maker.token, user.userId);
    expect((await postReset(code, NEW_PASSWORD)).status).toBe(200);
    const changed = (await createEventStore(kh.database).load('user', user.userId)).filter((e) => e.type === 'user.password.changed').at(-1);
    expect(changed?.creator).toBe(maker.userId);

    const locked = await humanUser(kh, 'reset-locked');
    const beforeLock = await returned(kh.adminToken, locked.userId);
    await users().lockUser({ userId: locked.userId });
    await users().unlockUser({ userId: locked.userId });
    expect((await postReset(beforeLock, NEW_PASSWORD)).status).toBe(410);
    const deactivated = await humanUser(kh, 'reset-deactivated');
    const beforeDeactivation = await returned(kh.adminToken, deactivated.userId);
    await users().deactivateUser({ userId: deactivated.userId });
    await users().reactivateUser({ userId: deactivated.userId });
    expect((await postReset(beforeDeactivation, NEW_PASSWORD)).status).toBe(410);
  });

  it('refuses a notification type Keyhold does not know, by name', async () => {
    const user = await humanUser(kh, 'reset-enum');
    const res = await kh.rest('POST', `/v2/users/${user.userId}/password_reset`, { sendLink: { notificationType: 7 } });
    expect([res.status, restFields(res.body)]).toEqual([400, ['sendLink.notificationType']]);
  });
});
