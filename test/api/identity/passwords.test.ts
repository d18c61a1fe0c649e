// Passwords through real clients — AddHumanUser's initial password and
// SetPassword over REST and gRPC, with 400/401/403/404 and containment; the
// login's check (queries/passwords.ts) against what was set; and the password
// itself nowhere: not in events, read-model answers, logs or errors.
import { Code } from '@connectrpc/connect';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { loginUser, verifyPassword } from '../../../src/queries/passwords.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { addOrg, bearer, inOrg, machineCaller, type MachineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
let org: string;
let owner: MachineCaller; // ORG_OWNER of org
let manager: MachineCaller; // ORG_USER_MANAGER of org
let nobody: MachineCaller; // no role
const SECRETS = ['Tr0ub4dor&3-initial', 'correct horse battery staple', 'Zwölf Boxkämpfer jagen', 'manager-set-pw-2026'];

const human = (username: string, password?: { password: string; changeRequired?: boolean }) => ({
  username,
  organization: { orgId: org },
  profile: { givenName: 'Ada', familyName: 'Lovelace' },
  email: { email: `${username}@example.com` },
  ...(password ? { password: { password: password.password, changeRequired: password.changeRequired ?? false } } : {}),
});

beforeAll(async () => {
  kh = await startTestKeyhold();
  org = await addOrg(kh, 'Passwords');
  [owner, manager, nobody] = await Promise.all([
    machineCaller(kh, org, 'owner', ['ORG_OWNER']),
    machineCaller(kh, org, 'manager', ['ORG_USER_MANAGER']),
    machineCaller(kh, org, 'nobody'),
  ]);
});
afterAll(async () => kh?.close());

describe('AddHumanUser with a password', () => {
  it('stores it hashed: the login check accepts it (with changeRequired) and nothing else', async () => {
    const { userId } = await kh.client(UserService).addHumanUser(human('ada', { password: SECRETS[0]!, changeRequired: true }));
    expect(await verifyPassword(kh.readModel, userId, SECRETS[0]!)).toEqual({ result: 'ok', changeRequired: true, orgId: org });
    expect(await verifyPassword(kh.readModel, userId, SECRETS[0]!.toUpperCase())).toEqual({ result: 'wrong' });
    expect(await verifyPassword(kh.readModel, userId, '')).toEqual({ result: 'wrong' });
    expect(await verifyPassword(kh.readModel, 'no-such-user', SECRETS[0]!)).toEqual({ result: 'wrong' });
    // The login name resolves to this user in any spelling of the username.
    const found = await loginUser(kh.readModel, 'ADA');
    expect(found.found === 'one' && found.user.id).toBe(userId);
  });

  it('a user added without one has none; a machine user never has one', async () => {
    const { userId } = await kh.client(UserService).addHumanUser(human('nopw'));
    expect(await verifyPassword(kh.readModel, userId, 'anything at all')).toEqual({ result: 'no password' });
    expect(await verifyPassword(kh.readModel, owner.userId, 'anything at all')).toEqual({ result: 'no password' });
  });

  it('NIST rules over REST: too short (code points after NFC), common, the username, control characters → 400 with the field, nothing written', async () => {
    const cases: [string, string, RegExp][] = [
      ['short', 'Ab3$xyz', /at least 8 characters/],
      ['nfc', 'e\u0301e\u0301e\u0301e\u0301', /at least 8 characters/], // 8 UTF-16 units, 4 characters after NFC
      ['common', 'Password1', /most common passwords/],
      ['samename', 'SameName-Long', /must not be the username/],
      ['control', 'abc\ndefghij', /control characters/],
      ['long', 'x'.repeat(257), /at most 256 characters/],
    ];
    for (const [username, password, message] of cases) {
      const name = username === 'samename' ? 'samename-long' : username;
      const res = await kh.rest('POST', '/v2/users/human', human(name, { password }));
      expect([res.status, restReason(res.body), restFields(res.body)], username).toEqual([400, 'INVALID_REQUEST', ['password.password']]);
      const violation = res.body.details.find((d: any) => d.fieldViolations)?.fieldViolations[0];
      expect(violation.description, username).toMatch(message);
      expect(JSON.stringify(res.body)).not.toContain(password.slice(0, 7));
      expect((await loginUser(kh.readModel, name)).found, username).toBe('none');
    }
    // 256 characters, and a long passphrase of any script, are fine: no composition rules.
    expect((await kh.rest('POST', '/v2/users/human', human('longpw', { password: 'ö'.repeat(256) }))).status).toBe(200);
    expect((await kh.rest('POST', '/v2/users/human', human('plainpw', { password: 'all lowercase words here' }))).status).toBe(200);
  });

  it('German texts by Accept-Language', async () => {
    const res = await kh.rest('POST', '/v2/users/human', human('kurz', { password: 'kurz' }), { 'accept-language': 'de' });
    expect(JSON.stringify(res.body)).toMatch(/mindestens 8 Zeichen/);
  });
});

describe('SetPassword (POST /v2/users/{userId}/password)', () => {
  let target: string;
  beforeAll(async () => {
    ({ userId: target } = await kh.client(UserService).addHumanUser(human('grace', { password: SECRETS[1]! })));
  });

  it('by an ORG_USER_MANAGER over gRPC: the new password works, the old no longer', async () => {
    const res = await kh.client(UserService, 'grpc', manager.token).setPassword({ userId: target, newPassword: { password: SECRETS[3]!, changeRequired: true } });
    expect(res.details?.resourceOwner).toBe(org);
    expect(await verifyPassword(kh.readModel, target, SECRETS[3]!)).toEqual({ result: 'ok', changeRequired: true, orgId: org });
    expect((await verifyPassword(kh.readModel, target, SECRETS[1]!)).result).toBe('wrong');
  });

  it('over REST by the owner; the answer holds details only', async () => {
    const res = await kh.rest('POST', `/v2/users/${target}/password`, { newPassword: { password: SECRETS[2]! } }, bearer(owner.token));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['details']);
    expect(await verifyPassword(kh.readModel, target, SECRETS[2]!)).toEqual({ result: 'ok', changeRequired: false, orgId: org });
  });

  it('400: bad password, or the username (field newPassword.password); nothing changes', async () => {
    for (const password of ['', 'short', '12345678', 'GRACE']) {
      const res = await kh.rest('POST', `/v2/users/${target}/password`, { newPassword: { password } }, bearer(owner.token));
      expect([res.status, restReason(res.body), restFields(res.body)], password).toEqual([400, 'INVALID_REQUEST', ['newPassword.password']]);
    }
    // 'grace' is 5 characters; a username long enough to be a password:
    const { userId } = await kh.client(UserService).addHumanUser(human('margaret-hamilton'));
    const res = await kh.rest('POST', `/v2/users/${userId}/password`, { newPassword: { password: 'Margaret-Hamilton' } }, bearer(owner.token));
    expect([res.status, restFields(res.body)]).toEqual([400, ['newPassword.password']]);
    expect((await verifyPassword(kh.readModel, userId, 'Margaret-Hamilton')).result).toBe('no password');
    expect((await verifyPassword(kh.readModel, target, SECRETS[2]!)).result).toBe('ok');
  });

  it('401 without a token; 403 without user.credential.write; 404 for an unknown user or another org’s', async () => {
    const anonymous = await kh.rest('POST', `/v2/users/${target}/password`, { newPassword: { password: 'good enough pw' } }, { authorization: '' });
    expect([anonymous.status, restReason(anonymous.body)]).toEqual([401, 'UNAUTHENTICATED']);
    const rpc = await rpcError(kh.client(UserService, 'connect', '').setPassword({ userId: target, newPassword: { password: 'good enough pw' } }));
    expect(rpc.code).toBe(Code.Unauthenticated);
    const denied = await kh.rest('POST', `/v2/users/${target}/password`, { newPassword: { password: 'good enough pw' } }, bearer(nobody.token));
    expect([denied.status, restReason(denied.body)]).toEqual([403, 'PERMISSION_DENIED']);
    const missing = await rpcError(kh.client(UserService, 'grpc', owner.token).setPassword({ userId: 'nosuchuser', newPassword: { password: 'good enough pw' } }));
    expect([missing.code, missing.reason]).toEqual([Code.NotFound, 'USER_NOT_FOUND']);
    const other = await addOrg(kh, 'Elsewhere');
    const { userId: foreign } = await kh.client(UserService).addHumanUser({ ...human('foreigner'), organization: { orgId: other } });
    const res = await kh.rest('POST', `/v2/users/${foreign}/password`, { newPassword: { password: 'good enough pw' } }, bearer(owner.token));
    expect([res.status, restReason(res.body)]).toEqual([404, 'USER_NOT_FOUND']);
  });

  it('a machine user: 400 PASSWORD_ONLY_FOR_HUMAN_USERS', async () => {
    const err = await rpcError(kh.client(UserService, 'grpc', owner.token).setPassword({ userId: nobody.userId, newPassword: { password: 'good enough pw' } }));
    expect([err.code, err.reason]).toEqual([Code.FailedPrecondition, 'PASSWORD_ONLY_FOR_HUMAN_USERS']);
  });

  it('containment: an ORG_USER_MANAGER cannot set an ORG_OWNER’s password (403 PRIVILEGE_ESCALATION); the owner can', async () => {
    const { userId: boss } = await kh.client(UserService).addHumanUser(human('boss', { password: 'boss initial pw' }));
    await kh.client((await import('../../../gen/keyhold/management/v1/management_pb.js')).ManagementService, 'grpc', kh.adminToken, inOrg(org)).addOrgMember({ userId: boss, roles: ['ORG_OWNER'] });
    const err = await rpcError(kh.client(UserService, 'grpc', manager.token).setPassword({ userId: boss, newPassword: { password: 'taken over pw' } }));
    expect([err.code, err.reason]).toEqual([Code.PermissionDenied, 'PRIVILEGE_ESCALATION']);
    expect((await verifyPassword(kh.readModel, boss, 'taken over pw')).result).toBe('wrong');
    await kh.client(UserService, 'grpc', owner.token).setPassword({ userId: boss, newPassword: { password: 'owner set pw' } });
    expect((await verifyPassword(kh.readModel, boss, 'owner set pw')).result).toBe('ok');
  });
});

describe('the password is nowhere but as its hash', () => {
  it('events carry argon2id hashes; no password in events, read answers or logs', async () => {
    const rows = (await kh.database.db.execute(sql.raw(`select type, payload from events where type = 'user.password.changed'`))) as any;
    const list: { payload: any }[] = rows.rows ?? rows;
    expect(list.length).toBeGreaterThan(3);
    for (const { payload } of list) {
      const p = typeof payload === 'string' ? JSON.parse(payload) : payload;
      expect(p.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    }
    const events = JSON.stringify(await kh.database.db.execute(sql.raw(`select payload from events`)));
    const got = await kh.rest('GET', `/v2/users/${(await loginUser(kh.readModel, 'grace') as any).user.id}`);
    const logs = kh.logLines.join('\n');
    for (const secret of [...SECRETS, 'good enough pw', 'boss initial pw', 'owner set pw', 'taken over pw']) {
      expect(events).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
    expect(JSON.stringify(got.body)).not.toMatch(/argon2|password/i);
  });
});

describe('usernames are login names, unique across the instance', () => {
  it('a username another org holds (any spelling) → 409 USERNAME_TAKEN over REST and gRPC; nothing written', async () => {
    const other = await addOrg(kh, 'Second org');
    await kh.client(UserService).addHumanUser(human('hopper', { password: 'first hopper pw' }));
    const rest = await kh.rest('POST', '/v2/users/human', { ...human('HOPPER', { password: 'second hopper pw' }), organization: { orgId: other } });
    expect([rest.status, restReason(rest.body)]).toEqual([409, 'USERNAME_TAKEN']);
    expect(rest.body.message).toMatch(/unique across all organizations/);
    const grpc = await rpcError(kh.client(UserService).addHumanUser({ ...human('Ｈopper'), organization: { orgId: other } }));
    expect([grpc.code, grpc.reason]).toEqual([Code.AlreadyExists, 'USERNAME_TAKEN']);
    const found = await loginUser(kh.readModel, 'hopper');
    expect(found.found === 'one' && found.user.orgId).toBe(org);
    expect(await loginUser(kh.readModel, 'hopper', other)).toEqual({ found: 'none' });
    // The bootstrap's machine user holds 'admin' across the instance too.
    const admin = await rpcError(kh.client(UserService).addHumanUser({ ...human('Admin'), organization: { orgId: other } }));
    expect(admin.reason).toBe('USERNAME_TAKEN');
  });
});
