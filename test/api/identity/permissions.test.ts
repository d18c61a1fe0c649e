// Design §4: who may act where. Real callers (machine users with PATs and roles
// given through the API), real permission checks, over REST and gRPC.
import { Code } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../../gen/keyhold/auth/v1/auth_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { OrganizationService } from '../../../gen/keyhold/org/v2/org_pb.js';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { restReason, rpcError } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addOrg, bearer, inOrg, machineCaller, type MachineCaller } from '../../support/identity.js';

let kh: TestKeyhold;
let orgA: string;
let orgB: string;
let ownerA: MachineCaller; // ORG_OWNER of A
let nobody: MachineCaller; // machine user in A without any role
let p1Owner: MachineCaller; // PROJECT_OWNER of P1 only
let projectB: string;
let p1: string;
let p2: string;
const missingOrg = '01nosuchorgnosuchorgnosuch';

beforeAll(async () => {
  kh = await startTestKeyhold();
  [orgA, orgB] = await Promise.all([addOrg(kh, 'Org A'), addOrg(kh, 'Org B')]);
  [ownerA, nobody, p1Owner] = await Promise.all([
    machineCaller(kh, orgA, 'owner-a', ['ORG_OWNER']),
    machineCaller(kh, orgA, 'no-role'),
    machineCaller(kh, orgA, 'p1-owner'),
  ]);
  const admin = (org: string) => kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(org));
  [{ id: projectB }, { id: p1 }, { id: p2 }] = await Promise.all([
    admin(orgB).addProject({ name: 'B project' }),
    admin(orgA).addProject({ name: 'P1' }),
    admin(orgA).addProject({ name: 'P2' }),
  ]);
  await admin(orgA).addProjectMember({ projectId: p1, userId: p1Owner.userId, roles: ['PROJECT_OWNER'] });

  // A token that expires two seconds from now (made over REST), tried once right
  // away; the 401 test runs after the other tests, so it rarely has to wait.
  expiring.expiresAt = new Date(Date.now() + 2_000);
  const res = await kh.rest('POST', `/management/v1/users/${ownerA.userId}/pats`, { expirationDate: expiring.expiresAt.toISOString() }, inOrg(orgA));
  expect(res.status).toBe(200);
  expiring.token = res.body.token;
  expiring.statusBeforeExpiry = (await kh.rest('GET', '/auth/v1/users/me', undefined, bearer(expiring.token))).status;
  expiring.checkedAt = Date.now();
});
const expiring = { token: '', expiresAt: new Date(0), statusBeforeExpiry: 0, checkedAt: 0 };
afterAll(async () => kh?.close());

const asCaller = (caller: MachineCaller, headers?: Record<string, string>) =>
  kh.client(ManagementService, 'grpc', caller.token, headers);

describe('an org owner acts in its own org', () => {
  it('sees itself as ORG_OWNER of A in GetMyUser', async () => {
    const me = await kh.client(AuthService, 'grpc', ownerA.token).getMyUser({});
    expect(me.organizationId).toBe(orgA);
    expect(me.roles).toEqual([`ORG_OWNER@org:${orgA}`]);
  });

  it('creates a project in A over gRPC (own org, no header) and reads it back', async () => {
    const created = await asCaller(ownerA).addProject({ name: 'Owner A via gRPC' });
    expect(created.details?.resourceOwner).toBe(orgA);
    const read = await asCaller(ownerA).getProjectByID({ id: created.id });
    expect(read.project?.name).toBe('Owner A via gRPC');
  });

  it('creates a project in A over REST with x-service-orgid: A', async () => {
    const res = await kh.rest('POST', '/management/v1/projects', { name: 'Owner A via REST' }, bearer(ownerA.token, inOrg(orgA)));
    expect(res.status).toBe(200);
    expect(res.body.details.resourceOwner).toBe(orgA);
    const read = await kh.rest('GET', `/management/v1/projects/${res.body.id}`, undefined, bearer(ownerA.token));
    expect(read.status).toBe(200);
    expect(read.body.project.name).toBe('Owner A via REST');
  });

  it('is refused (403) in org B, which exists but where it holds no role', async () => {
    const err = await rpcError(asCaller(ownerA, inOrg(orgB)).addProject({ name: 'not allowed' }));
    expect(err.code).toBe(Code.PermissionDenied);
    expect(err.reason).toBe('PERMISSION_DENIED');
    const res = await kh.rest('POST', '/management/v1/projects', { name: 'not allowed' }, bearer(ownerA.token, inOrg(orgB)));
    expect(res.status).toBe(403);
    expect(restReason(res.body)).toBe('PERMISSION_DENIED');
    // Nothing was created in B.
    const list = await kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(orgB)).listProjects({});
    expect(list.result.map((p) => p.name)).toEqual(['B project']);
  });

  it('gets the same 403 for an x-service-orgid naming no org at all (no existence leak)', async () => {
    const err = await rpcError(asCaller(ownerA, inOrg(missingOrg)).addProject({ name: 'x' }));
    expect(err.code).toBe(Code.PermissionDenied);
    expect(err.reason).toBe('PERMISSION_DENIED');
    const res = await kh.rest('GET', `/management/v1/projects/${p1}`, undefined, bearer(ownerA.token, inOrg(missingOrg)));
    expect(res.status).toBe(403);
    expect(restReason(res.body)).toBe('PERMISSION_DENIED');
    // Even the instance admin cannot act in an org that does not exist.
    const admin = await kh.rest('POST', '/management/v1/users/machine', { userName: 'ghost', name: 'Ghost' }, inOrg(missingOrg));
    expect(admin.status).toBe(403);
    expect(restReason(admin.body)).toBe('PERMISSION_DENIED');
  });

  it("finds B's project not found (404) in A's context", async () => {
    const err = await rpcError(asCaller(ownerA).getProjectByID({ id: projectB }));
    expect(err.code).toBe(Code.NotFound);
    expect(err.reason).toBe('PROJECT_NOT_FOUND');
    const res = await kh.rest('GET', `/management/v1/projects/${projectB}`, undefined, bearer(ownerA.token));
    expect(res.status).toBe(404);
    expect(restReason(res.body)).toBe('PROJECT_NOT_FOUND');
    // Even the instance admin, acting in A's context, does not find it there…
    const admin = await kh.rest('GET', `/management/v1/projects/${projectB}`, undefined, inOrg(orgA));
    expect(admin.status).toBe(404);
    // …but does in B's.
    expect((await kh.rest('GET', `/management/v1/projects/${projectB}`, undefined, inOrg(orgB))).status).toBe(200);
  });

  it('cannot create organizations (org.create is instance-wide)', async () => {
    const err = await rpcError(kh.client(OrganizationService, 'grpc', ownerA.token).addOrganization({ name: 'Mine' }));
    expect(err.code).toBe(Code.PermissionDenied);
  });
});

describe('a machine user with no role', () => {
  it('is authenticated: GetMyUser works and lists no roles', async () => {
    const me = await kh.client(AuthService, 'grpc', nobody.token).getMyUser({});
    expect(me.user?.userId).toBe(nobody.userId);
    expect(me.roles).toEqual([]);
  });

  it('gets 403 PERMISSION_DENIED creating a project (gRPC and REST)', async () => {
    const err = await rpcError(asCaller(nobody).addProject({ name: 'x' }));
    expect(err.code).toBe(Code.PermissionDenied);
    expect(err.reason).toBe('PERMISSION_DENIED');
    const res = await kh.rest('POST', '/management/v1/projects', { name: 'x' }, bearer(nobody.token));
    expect(res.status).toBe(403);
    expect(restReason(res.body)).toBe('PERMISSION_DENIED');
  });

  it('gets 403 (not 404) reading a project of its own org', async () => {
    const res = await kh.rest('GET', `/management/v1/projects/${p1}`, undefined, bearer(nobody.token));
    expect(res.status).toBe(403);
    expect(restReason(res.body)).toBe('PERMISSION_DENIED');
  });

  it('gets the same 403 from AddOrgMember for a known and an unknown user (no user enumeration)', async () => {
    for (const userId of [ownerA.userId, '01nosuchusernosuchusernosu']) {
      const res = await kh.rest('POST', '/management/v1/orgs/me/members', { userId, roles: ['ORG_OWNER'] }, bearer(nobody.token));
      expect(res.status).toBe(403);
      expect(restReason(res.body)).toBe('PERMISSION_DENIED');
    }
    const me = await kh.client(AuthService, 'grpc', nobody.token).getMyUser({});
    expect(me.roles).toEqual([]); // and it did not make itself an owner
  });

  it('gets 403 adding users or reading other users, but may read itself', async () => {
    const add = await rpcError(asCaller(nobody).addMachineUser({ userName: 'sneaky', name: 'Sneaky' }));
    expect(add.code).toBe(Code.PermissionDenied);
    const other = await rpcError(kh.client(UserService, 'grpc', nobody.token).getUserByID({ userId: ownerA.userId }));
    expect(other.code).toBe(Code.PermissionDenied);
    const self = await kh.rest('GET', `/v2/users/${nobody.userId}`, undefined, bearer(nobody.token));
    expect(self.status).toBe(200);
    expect(self.body.user.username).toBe('no-role');
  });
});

describe('a PROJECT_OWNER of P1', () => {
  it('reads P1 over gRPC and REST', async () => {
    const read = await asCaller(p1Owner).getProjectByID({ id: p1 });
    expect(read.project?.name).toBe('P1');
    const res = await kh.rest('GET', `/management/v1/projects/${p1}`, undefined, bearer(p1Owner.token));
    expect(res.status).toBe(200);
    expect(res.body.project.id).toBe(p1);
  });

  it('gets 403 on P2 of the same org', async () => {
    const err = await rpcError(asCaller(p1Owner).getProjectByID({ id: p2 }));
    expect(err.code).toBe(Code.PermissionDenied);
    expect(err.reason).toBe('PERMISSION_DENIED');
    const res = await kh.rest('GET', `/management/v1/projects/${p2}`, undefined, bearer(p1Owner.token));
    expect(res.status).toBe(403);
    const member = await kh.rest('POST', `/management/v1/projects/${p2}/members`, { userId: nobody.userId, roles: ['PROJECT_OWNER'] }, bearer(p1Owner.token));
    expect(member.status).toBe(403);
  });

  it('may add members to P1 (project.member.write) but not create projects', async () => {
    const res = await kh.rest('POST', `/management/v1/projects/${p1}/members`, { userId: ownerA.userId, roles: ['PROJECT_OWNER'] }, bearer(p1Owner.token));
    expect(res.status).toBe(200);
    const err = await rpcError(asCaller(p1Owner).addProject({ name: 'x' }));
    expect(err.code).toBe(Code.PermissionDenied);
  });
});

describe('401 UNAUTHENTICATED', () => {
  it('without a token', async () => {
    const res = await kh.rest('POST', '/management/v1/projects', { name: 'x' }, { authorization: '' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe(16);
    expect(restReason(res.body)).toBe('UNAUTHENTICATED');
    const err = await rpcError(kh.client(ManagementService, 'grpc', '').addProject({ name: 'x' }));
    expect(err.code).toBe(Code.Unauthenticated);
    expect(err.reason).toBe('UNAUTHENTICATED');
  });

  it('with a wrong token (well-formed, unknown) and with a non-bearer scheme', async () => {
    const wrong = `kh_${'A'.repeat(43)}`;
    const res = await kh.rest('GET', '/auth/v1/users/me', undefined, bearer(wrong));
    expect(res.status).toBe(401);
    expect(restReason(res.body)).toBe('UNAUTHENTICATED');
    const basic = await kh.rest('GET', '/auth/v1/users/me', undefined, { authorization: `Basic ${kh.adminToken}` });
    expect(basic.status).toBe(401);
    const err = await rpcError(kh.client(AuthService, 'grpc', wrong).getMyUser({}));
    expect(err.code).toBe(Code.Unauthenticated);
    // A token of another user with one character changed is not that user's token.
    const flipped = ownerA.token.slice(0, -1) + (ownerA.token.endsWith('A') ? 'B' : 'A');
    expect((await rpcError(kh.client(AuthService, 'grpc', flipped).getMyUser({}))).code).toBe(Code.Unauthenticated);
  });

  it('with a token that has expired', async () => {
    // Valid until it expires…
    expect(expiring.checkedAt).toBeLessThan(expiring.expiresAt.getTime());
    expect(expiring.statusBeforeExpiry).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, expiring.expiresAt.getTime() - Date.now() + 250)));
    // …then refused on every protocol.
    const after = await kh.rest('GET', '/auth/v1/users/me', undefined, bearer(expiring.token));
    expect(after.status).toBe(401);
    expect(restReason(after.body)).toBe('UNAUTHENTICATED');
    const err = await rpcError(kh.client(AuthService, 'grpc', expiring.token).getMyUser({}));
    expect(err.code).toBe(Code.Unauthenticated);
    // The user's other token still works.
    expect((await kh.client(AuthService, 'grpc', ownerA.token).getMyUser({})).user?.userId).toBe(ownerA.userId);
  });

  it('a gRPC-created expiring token is accepted before its expiry', async () => {
    const { token } = await kh
      .client(ManagementService, 'grpc', kh.adminToken, inOrg(orgA))
      .addPersonalAccessToken({ userId: nobody.userId, expirationDate: timestampFromDate(new Date(Date.now() + 60_000)) });
    expect((await kh.client(AuthService, 'grpc', token).getMyUser({})).user?.userId).toBe(nobody.userId);
  });
});
