// Users: UpdateHumanUser and the lifecycle (Deactivate/Reactivate,
// Lock/Unlock, RemoveUser) over REST and gRPC; a deactivated, locked or removed
// user's token is refused at once here and within 2 s by another process on
// the same PostgreSQL; containment and 400/401/403/404.
import { rm } from 'node:fs/promises';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService, UserState } from '../../../gen/keyhold/user/v2/user_pb.js';
import { startChildKeyhold } from '../../support/child-keyhold.js';
import { announcePostgresSkip, createPostgresDatabase, postgresAvailable, tempDir } from '../../support/databases.js';
import { rpcError, restFields, restReason } from '../../support/errors.js';
import { addOrg, bearer, machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
let n = 0;
const unique = (p: string) => `${p}-${++n}-${Date.now()}`;
beforeAll(async () => {
  kh = await startTestKeyhold();
});
afterAll(async () => kh?.close());

const me = (token: string) => kh.rest('GET', '/auth/v1/users/me', undefined, bearer(token));
const state = async (userId: string) => (await kh.rest('GET', `/v2/users/${userId}`)).body.user?.state;

describe('the lifecycle over REST', () => {
  it('deactivate → token refused, USER_STATE_INACTIVE; reactivate → works again; lock/unlock likewise; remove → 404 and refused', async () => {
    const bot = await machineCaller(kh, undefined, unique('bot'));
    expect((await me(bot.token)).status).toBe(200);

    const off = await kh.rest('POST', `/v2/users/${bot.userId}/deactivate`, {});
    expect(off.status).toBe(200);
    expect(off.body.details.sequence).toBe('3');
    expect((await me(bot.token)).status).toBe(401);
    expect(await state(bot.userId)).toBe('USER_STATE_INACTIVE');
    const twice = await kh.rest('POST', `/v2/users/${bot.userId}/deactivate`, {});
    expect(twice.status).toBe(400);
    expect(restReason(twice.body)).toBe('USER_ALREADY_INACTIVE');
    expect(restReason((await kh.rest('POST', `/v2/users/${bot.userId}/lock`, {})).body)).toBe('USER_NOT_ACTIVE');
    expect((await kh.rest('POST', `/v2/users/${bot.userId}/reactivate`, {})).status).toBe(200);
    expect((await me(bot.token)).status).toBe(200);

    expect((await kh.rest('POST', `/v2/users/${bot.userId}/lock`, {})).status).toBe(200);
    expect((await me(bot.token)).status).toBe(401);
    expect(await state(bot.userId)).toBe('USER_STATE_LOCKED');
    const states = await kh.rest('POST', '/v2/users', { queries: [{ stateQuery: { state: 'USER_STATE_LOCKED' } }] });
    expect(states.body.result.map((u: any) => u.userId)).toEqual([bot.userId]);
    expect(restReason((await kh.rest('POST', `/v2/users/${bot.userId}/reactivate`, {})).body)).toBe('USER_NOT_INACTIVE');
    expect((await kh.rest('POST', `/v2/users/${bot.userId}/unlock`, {})).status).toBe(200);
    expect((await me(bot.token)).status).toBe(200);

    const removed = await kh.rest('DELETE', `/v2/users/${bot.userId}`);
    expect(removed.status).toBe(200);
    expect((await me(bot.token)).status).toBe(401);
    expect((await kh.rest('GET', `/v2/users/${bot.userId}`)).status).toBe(404);
    expect(restReason((await kh.rest('DELETE', `/v2/users/${bot.userId}`)).body)).toBe('USER_NOT_FOUND');
    // No role can be granted to it any more (the owner cache still knows it; the grant asks again).
    const grant = await kh.rest('POST', '/management/v1/orgs/me/members', { userId: bot.userId, roles: ['ORG_USER_MANAGER'] });
    expect(grant.status).toBe(404);
    expect(restReason(grant.body)).toBe('USER_NOT_FOUND');
    // Its username is free again.
    const list = await kh.rest('POST', '/v2/users', { queries: [{ userNameQuery: { userName: bot.userId } }] });
    expect(list.body.result ?? []).toEqual([]);
  });

  it('UpdateHumanUser: profile, email and username, what is left out stays; 400 naming fields; machine → 400; taken username → 409', async () => {
    const users = kh.client(UserService);
    const username = unique('ada');
    const { userId } = await users.addHumanUser({ username, profile: { givenName: 'Ada', familyName: 'Lovelace' }, email: { email: 'ada@example.com' } });
    const res = await kh.rest('PUT', `/v2/users/human/${userId}`, { profile: { givenName: 'Ada', familyName: 'King' } });
    expect(res.status).toBe(200);
    const got = (await users.getUserByID({ userId })).user!;
    expect(got.username).toBe(username);
    expect(got.type.case === 'human' && got.type.value.profile?.displayName).toBe('Ada King');
    expect(got.type.case === 'human' && got.type.value.email?.email).toBe('ada@example.com');
    await users.updateHumanUser({ userId, email: { email: 'countess@example.com' }, username: `${username}-2` });
    const again = (await users.getUserByID({ userId })).user!;
    expect(again.username).toBe(`${username}-2`);
    expect(again.type.case === 'human' && again.type.value.email?.email).toBe('countess@example.com');
    expect(again.type.case === 'human' && again.type.value.profile?.familyName).toBe('King');

    const bad = await kh.rest('PUT', `/v2/users/human/${userId}`, { profile: { givenName: '', familyName: 'x\u202E' }, email: { email: 'nope' } });
    expect(bad.status).toBe(400);
    expect(restFields(bad.body)).toEqual(['profile.givenName', 'profile.familyName', 'email.email']);
    const other = unique('other');
    await users.addHumanUser({ username: other, profile: { givenName: 'O', familyName: 'T' }, email: { email: 'o@example.com' } });
    const taken = await rpcError(users.updateHumanUser({ userId, username: other.toUpperCase() }));
    expect(taken.code).toBe(Code.AlreadyExists);
    expect(taken.reason).toBe('USERNAME_TAKEN');
    const bot = await machineCaller(kh, undefined, unique('bot'));
    expect((await rpcError(users.updateHumanUser({ userId: bot.userId, email: { email: 'b@example.com' } }))).reason).toBe('USER_NOT_HUMAN');
  });
});

describe('who may (gRPC)', () => {
  it('401, 403 without user.write, PRIVILEGE_ESCALATION for a user manager on an owner, 404 for another org’s user, no self-lockout', async () => {
    const owner = await machineCaller(kh, undefined, unique('owner'), ['ORG_OWNER']);
    const manager = await machineCaller(kh, undefined, unique('manager'), ['ORG_USER_MANAGER']);
    const plain = await machineCaller(kh, undefined, unique('plain'));
    const users = (token: string) => kh.client(UserService, 'grpc', token);
    expect((await rpcError(users('').lockUser({ userId: owner.userId }))).code).toBe(Code.Unauthenticated);
    expect((await rpcError(users(plain.token).lockUser({ userId: owner.userId }))).reason).toBe('PERMISSION_DENIED');
    expect((await rpcError(users(manager.token).lockUser({ userId: owner.userId }))).reason).toBe('PRIVILEGE_ESCALATION');
    expect((await rpcError(users(manager.token).removeUser({ userId: owner.userId }))).reason).toBe('PRIVILEGE_ESCALATION');
    expect((await me(owner.token)).status).toBe(200);
    // The manager may lock a plain user of its org.
    await users(manager.token).lockUser({ userId: plain.userId });
    expect((await me(plain.token)).status).toBe(401);
    expect((await users(kh.adminToken).getUserByID({ userId: plain.userId })).user?.state).toBe(UserState.LOCKED);
    // Nobody locks itself out.
    expect((await rpcError(users(owner.token).deactivateUser({ userId: owner.userId }))).reason).toBe('USER_SELF_LIFECYCLE');
    // Another org's user is not found; a bad id is 400.
    const orgB = await addOrg(kh, unique('org-b'));
    const foreign = await machineCaller(kh, orgB, unique('foreign'));
    expect((await rpcError(users(owner.token).deactivateUser({ userId: foreign.userId }))).code).toBe(Code.NotFound);
    const bad = await rpcError(users(kh.adminToken).removeUser({ userId: 'not an id' }));
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(bad.fields).toEqual(['userId']);
  });
});

announcePostgresSkip('user lifecycle across two processes');
describe.runIf(postgresAvailable)('two processes on one PostgreSQL', () => {
  it('a deactivated user and then a removed user are refused by the other process within 2 s', async () => {
    const pg = await createPostgresDatabase();
    const dirs = [await tempDir('keyhold-life-a-'), await tempDir('keyhold-life-b-')];
    const a = await startTestKeyhold({ env: { DATABASE_URL: pg.url, KEYHOLD_DATA_DIR: dirs[0]! } });
    const b = await startChildKeyhold({ dataDir: dirs[1]!, databaseUrl: pg.url });
    const refusedWithin = async (token: string) => {
      const from = Date.now();
      while (Date.now() - from < 3000) {
        if ((await b.rest('GET', '/auth/v1/users/me', undefined, { token })).status === 401) return Date.now() - from;
        await new Promise((r) => setTimeout(r, 50));
      }
      return Infinity;
    };
    try {
      for (const action of ['deactivate', 'remove'] as const) {
        const bot = await machineCaller(a, undefined, unique('bot'));
        expect((await b.rest('GET', '/auth/v1/users/me', undefined, { token: bot.token })).status).toBe(200);
        const user = a.client(UserService);
        if (action === 'deactivate') await user.deactivateUser({ userId: bot.userId });
        else await user.removeUser({ userId: bot.userId });
        expect(await refusedWithin(bot.token), action).toBeLessThanOrEqual(2000);
      }
    } finally {
      await b.kill('SIGTERM');
      await a.close();
      await pg.drop();
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    }
  }, 120_000);
});
