// RegisterTOTP, VerifyTOTPRegistration, RemoveTOTP over REST and gRPC: the
// enrolment a phone would do (codes computed by the otpauth package), the
// error cases (wrong and malformed code, nothing registered, already ready,
// a machine user), and who may call them (the security keys' rule: the user,
// or user.credential.write in the user's org under containment; another org's
// user is 404 as no user).
import { Code } from '@connectrpc/connect';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { addOrg, bearer, machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
let orgB: string;
let n = 0;

beforeAll(async () => {
  kh = await startTestKeyhold({ env: { KEYHOLD_ISSUER: 'https://login.example.com' } });
  orgB = await addOrg(kh, `totp-b-${Date.now()}`);
}, 60_000);
afterAll(async () => kh?.close());

async function human(orgId?: string): Promise<string> {
  const { userId } = await kh.client(UserService, 'grpc', kh.adminToken).addHumanUser({
    username: `totp-${process.pid}-${++n}@example.com`,
    ...(orgId ? { organization: { orgId } } : {}),
    profile: { givenName: 'Ada', familyName: 'L' },
    email: { email: 'ada@example.com' },
  });
  return userId;
}

const codeOf = (secret: string, at = Date.now()) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: at });
/** A code of the secret that is not the right one now (nor ±1 step). */
const wrongCode = (secret: string) => {
  const near = new Set([-30_000, 0, 30_000].map((d) => codeOf(secret, Date.now() + d)));
  for (let i = 0; ; i++) {
    const c = String(i).padStart(6, '0');
    if (!near.has(c)) return c;
  }
};

describe('TOTP on the user API', () => {
  it('REST: register answers the URI and secret (issuer from KEYHOLD_ISSUER, never a header), a code makes it ready', async () => {
    const userId = await human();
    const reg = await kh.rest('POST', `/v2/users/${userId}/totp`, {}, { ...bearer(kh.adminToken), host: 'evil.example', 'x-forwarded-host': 'evil.example' });
    expect(reg.status).toBe(200);
    expect(reg.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(reg.body.details.sequence).toMatch(/^\d+$/);
    const parsed = OTPAuth.URI.parse(reg.body.uri) as OTPAuth.TOTP;
    expect(parsed.issuer).toBe('login.example.com');
    expect(parsed.label).toMatch(/^totp-\d+-\d+@example\.com$/);
    expect(parsed.secret.base32).toBe(reg.body.secret);
    expect(reg.body.uri).not.toContain('evil');

    const verified = await kh.rest('POST', `/v2/users/${userId}/totp/verify`, { code: codeOf(reg.body.secret) }, bearer(kh.adminToken));
    expect(verified.status).toBe(200);
    // Verified by an administrator, not the user: recovery codes are self only.
    expect(verified.body.recoveryCodes ?? []).toEqual([]);
    expect((await kh.readModel.totpOf(userId))?.state).toBe('ready');

    const again = await kh.rest('POST', `/v2/users/${userId}/totp`, {}, bearer(kh.adminToken));
    expect([again.status, restReason(again.body)]).toEqual([400, 'TOTP_ALREADY_READY']);
    const reverify = await kh.rest('POST', `/v2/users/${userId}/totp/verify`, { code: codeOf(reg.body.secret) }, bearer(kh.adminToken));
    expect([reverify.status, restReason(reverify.body)]).toEqual([400, 'TOTP_ALREADY_READY']);

    const removed = await kh.rest('DELETE', `/v2/users/${userId}/totp`, undefined, bearer(kh.adminToken));
    expect(removed.status).toBe(200);
    expect(await kh.readModel.totpOf(userId)).toBeUndefined();
    const gone = await kh.rest('DELETE', `/v2/users/${userId}/totp`, undefined, bearer(kh.adminToken));
    expect([gone.status, restReason(gone.body)]).toEqual([404, 'TOTP_NOT_REGISTERED']);
  });

  it('gRPC: the same, and a new registration replaces a pending one', async () => {
    const users = kh.client(UserService, 'grpc', kh.adminToken);
    const userId = await human();
    const first = await users.registerTOTP({ userId });
    const second = await users.registerTOTP({ userId });
    expect(second.secret).not.toBe(first.secret);
    const stale = codeOf(first.secret);
    if (stale !== codeOf(second.secret)) {
      const err = await rpcError(users.verifyTOTPRegistration({ userId, code: stale }));
      expect([err.code, err.reason]).toEqual([Code.InvalidArgument, 'TOTP_CODE_WRONG']);
    }
    await users.verifyTOTPRegistration({ userId, code: codeOf(second.secret) });
    expect((await kh.readModel.totpOf(userId))?.state).toBe('ready');
    expect((await users.removeTOTP({ userId })).details?.sequence).toBeGreaterThan(0n);
  });

  it('RegisterTOTP sent again (a lost answer) registers anew: no secret is kept for a replay, the earlier one no longer verifies', async () => {
    const userId = await human();
    const headers = { ...bearer(kh.adminToken), 'idempotency-key': `totp-${userId}` };
    const first = await kh.rest('POST', `/v2/users/${userId}/totp`, {}, headers);
    const again = await kh.rest('POST', `/v2/users/${userId}/totp`, {}, headers);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body.secret).not.toBe(first.body.secret);
    if (codeOf(first.body.secret) !== codeOf(again.body.secret)) {
      const stale = await kh.rest('POST', `/v2/users/${userId}/totp/verify`, { code: codeOf(first.body.secret) }, bearer(kh.adminToken));
      expect([stale.status, restReason(stale.body)]).toEqual([400, 'TOTP_CODE_WRONG']);
    }
    const verified = await kh.rest('POST', `/v2/users/${userId}/totp/verify`, { code: codeOf(again.body.secret) }, bearer(kh.adminToken));
    expect(verified.status).toBe(200);
  });

  it('Connect and gRPC-Web serve the same RPCs', async () => {
    for (const protocol of ['connect', 'grpcWeb'] as const) {
      const users = kh.client(UserService, protocol, kh.adminToken);
      const userId = await human();
      const reg = await users.registerTOTP({ userId });
      await users.verifyTOTPRegistration({ userId, code: codeOf(reg.secret) });
      expect((await kh.readModel.totpOf(userId))?.state).toBe('ready');
      await users.removeTOTP({ userId });
      expect(await kh.readModel.totpOf(userId)).toBeUndefined();
    }
  });

  it('error cases: wrong code, malformed code (the field named), nothing registered, a machine user — nothing changed', async () => {
    const userId = await human();
    const none = await kh.rest('POST', `/v2/users/${userId}/totp/verify`, { code: '123456' }, bearer(kh.adminToken));
    expect([none.status, restReason(none.body)]).toEqual([404, 'TOTP_NOT_REGISTERED']);
    const reg = await kh.rest('POST', `/v2/users/${userId}/totp`, {}, bearer(kh.adminToken));
    const wrong = await kh.rest('POST', `/v2/users/${userId}/totp/verify`, { code: wrongCode(reg.body.secret) }, bearer(kh.adminToken));
    expect([wrong.status, restReason(wrong.body)]).toEqual([400, 'TOTP_CODE_WRONG']);
    for (const code of ['', '12345', '1234567', 'abcdef', '１２３４５６', '12-3456']) {
      const bad = await kh.rest('POST', `/v2/users/${userId}/totp/verify`, { code }, bearer(kh.adminToken));
      expect([bad.status, restReason(bad.body), restFields(bad.body)], code).toEqual([400, 'INVALID_REQUEST', ['code']]);
    }
    const grpcBad = await rpcError(kh.client(UserService, 'grpc', kh.adminToken).verifyTOTPRegistration({ userId, code: '12 34' }));
    expect([grpcBad.code, grpcBad.fields]).toEqual([Code.InvalidArgument, ['code']]);
    expect((await kh.readModel.totpOf(userId))?.state).toBe('pending');
    // Spaces inside are allowed (apps show "123 456").
    const code = codeOf(reg.body.secret);
    const spaced = await kh.rest('POST', `/v2/users/${userId}/totp/verify`, { code: `${code.slice(0, 3)} ${code.slice(3)}` }, bearer(kh.adminToken));
    expect(spaced.status).toBe(200);

    const machine = await machineCaller(kh, undefined, `totp-machine-${Date.now()}`);
    const onMachine = await rpcError(kh.client(UserService, 'grpc', kh.adminToken).registerTOTP({ userId: machine.userId }));
    expect([onMachine.code, onMachine.reason]).toEqual([Code.FailedPrecondition, 'USER_NOT_HUMAN']);
  });

  it('who: no role 403, another org\u2019s owner 404 (as no user), an ORG_USER_MANAGER cannot reach an ORG_OWNER (containment)', async () => {
    const userId = await human();
    const noRole = await machineCaller(kh, undefined, `totp-norole-${Date.now()}`);
    const ownerB = await machineCaller(kh, orgB, `totp-ownerb-${Date.now()}`, ['ORG_OWNER']);
    const manager = await machineCaller(kh, undefined, `totp-mgr-${Date.now()}`, ['ORG_USER_MANAGER']);
    const orgOwner = await machineCaller(kh, undefined, `totp-owner-${Date.now()}`, ['ORG_OWNER']);

    for (const [method, path, body] of [
      ['POST', `/v2/users/${userId}/totp`, {}],
      ['POST', `/v2/users/${userId}/totp/verify`, { code: '123456' }],
      ['DELETE', `/v2/users/${userId}/totp`, undefined],
    ] as const) {
      const denied = await kh.rest(method, path, body, bearer(noRole.token));
      expect([denied.status, restReason(denied.body)], path).toEqual([403, 'PERMISSION_DENIED']);
      const foreign = await kh.rest(method, path, body, bearer(ownerB.token));
      expect([foreign.status, restReason(foreign.body)], path).toEqual([404, 'USER_NOT_FOUND']);
    }
    const err = await rpcError(kh.client(UserService, 'grpc', noRole.token).registerTOTP({ userId }));
    expect([err.code, err.reason]).toEqual([Code.PermissionDenied, 'PERMISSION_DENIED']);
    // The other org's human, asked by this org's owner: 404.
    const userOfB = await human(orgB);
    const cross = await rpcError(kh.client(UserService, 'grpc', orgOwner.token).registerTOTP({ userId: userOfB }));
    expect([cross.code, cross.reason]).toEqual([Code.NotFound, 'USER_NOT_FOUND']);
    // The user manager may enroll the plain human, not act on the org owner (who holds more).
    expect((await kh.client(UserService, 'grpc', manager.token).registerTOTP({ userId })).secret).toMatch(/^[A-Z2-7]{32}$/);
    const escalate = await rpcError(kh.client(UserService, 'grpc', manager.token).removeTOTP({ userId: orgOwner.userId }));
    expect([escalate.code, escalate.reason]).toEqual([Code.PermissionDenied, 'PRIVILEGE_ESCALATION']);
    // Nothing of the refused calls was written.
    const events = await createEventStore(kh.database).load('user', userId);
    expect(events.filter((e) => e.type.startsWith('user.totp.')).map((e) => e.type)).toEqual(['user.totp.added']);
  });

  it('the secret is in no log line and no event', async () => {
    const userId = await human();
    const reg = await kh.client(UserService, 'grpc', kh.adminToken).registerTOTP({ userId });
    await rpcError(kh.client(UserService, 'grpc', kh.adminToken).verifyTOTPRegistration({ userId, code: wrongCode(reg.secret) }));
    const events = await createEventStore(kh.database).load('user', userId);
    const hay = JSON.stringify([kh.logLines, events.map((e) => e.payload)]);
    expect(hay).not.toContain(reg.secret);
    expect(hay).not.toContain(reg.secret.toLowerCase());
  });
});
