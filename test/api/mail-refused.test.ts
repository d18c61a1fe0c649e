// Mail the server refuses (a real SMTP server process answering 550): an
// invitation (CreateInviteCode sendCode) and a reset link (PasswordReset
// sendLink) are each a retryable 503 naming the mail server; the code appears
// neither in the answer nor in a log line, and a reset link that was not
// mailed leaves no audit event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { createEventStore } from '../../src/store/event-store.js';
import { restReason } from '../support/errors.js';
import { bearer } from '../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';

let kh: TestKeyhold;
let refusing: TestSmtpServer;

beforeAll(async () => {
  refusing = await startSmtpServer({ reject: true });
  kh = await startTestKeyhold({ env: refusing.env });
}, 60_000);
afterAll(async () => {
  await kh?.close();
  await refusing?.close();
});

describe('an invitation the mail server refuses', () => {
  it('is a retryable 503 naming the mail server; nothing of the code is logged', async () => {
    const { userId } = await kh.client(UserService, 'grpc', kh.adminToken).addHumanUser({
      username: `refused-${process.pid}`,
      profile: { givenName: 'Re', familyName: 'Fused' },
      email: { email: 'refused@example.com' },
    });
    const res = await kh.rest('POST', `/v2/users/${userId}/invite_code`, { sendCode: {} }, bearer(kh.adminToken));
    expect([res.status, restReason(res.body)]).toEqual([503, 'INVITE_MAIL_UNAVAILABLE']);
    expect(JSON.stringify(res.body)).not.toMatch(/[0-9a-z]{5}-[0-9a-z]{5}-[0-9a-z]{5}-[0-9a-z]{5}/);
    expect(kh.logLines.join('\n')).not.toMatch(/[0-9a-z]{5}-[0-9a-z]{5}-[0-9a-z]{5}-[0-9a-z]{5}/);
  });
});

describe('a reset link the mail server refuses', () => {
  it('is a retryable 503 naming the mail server, with no event and nothing of the code logged', async () => {
    const { userId } = await kh.client(UserService, 'grpc', kh.adminToken).addHumanUser({
      username: `refused-reset-${process.pid}`,
      profile: { givenName: 'Re', familyName: 'Set' },
      email: { email: 'refused-reset@example.com' },
    });
    const res = await kh.rest('POST', `/v2/users/${userId}/password_reset`, { sendLink: {} }, bearer(kh.adminToken));
    expect([res.status, restReason(res.body)]).toEqual([503, 'PASSWORD_RESET_MAIL_UNAVAILABLE']);
    const events = await createEventStore(kh.database).load('user', userId);
    expect(events.map((e) => e.type)).not.toContain('user.password.reset.requested');
    expect(kh.logLines.join('\n')).not.toMatch(/reset\?code=/);
  });
});
