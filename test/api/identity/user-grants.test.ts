// A user grant's life after AddUserGrant, through real clients on PGlite and
// (with TEST_DATABASE_URL) PostgreSQL: ListUserGrants, UpdateUserGrant,
// DeactivateUserGrant, ReactivateUserGrant, RemoveUserGrant over REST and gRPC,
// with 400/401/403/404/412 answers that change nothing; another org's caller
// gets 404; and what the login reads of a grant (queries/login-access.ts).
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { UserGrantState } from '../../../gen/keyhold/management/v1/user_grants_pb.js';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { loginAccess, rolesClaim } from '../../../src/queries/login-access.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { addOrg, bearer, inOrg, machineCaller, type MachineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

announcePostgresSkip('user grants on PostgreSQL');
const backends = [{ backend: 'PGlite', postgres: false }, ...(postgresAvailable ? [{ backend: 'PostgreSQL', postgres: true }] : [])];

describe.each(backends)('user grants on $backend', ({ postgres }) => {
  let kh: TestKeyhold;
  let org: string;
  let other: string;
  let manager: MachineCaller; // ORG_USER_MANAGER of org
  let nobody: MachineCaller; // of org, no role
  let foreignOwner: MachineCaller; // ORG_OWNER of the other org
  let projectOwner: MachineCaller; // PROJECT_OWNER of `project` only
  let project: string; // projectRoleCheck
  let open: string; // no checks
  let n = 0;

  const admin = (headers = inOrg(org)) => kh.client(ManagementService, 'grpc', kh.adminToken, headers);
  const as = (caller: MachineCaller, headers?: Record<string, string>) => kh.client(ManagementService, 'grpc', caller.token, headers);
  const grantPath = (userId: string, grantId: string, rest = '') => `/management/v1/users/${userId}/grants/${grantId}${rest}`;

  async function newUser(): Promise<string> {
    const username = `grantee-${postgres}-${++n}`;
    const { userId } = await kh.client(UserService).addHumanUser({ username, organization: { orgId: org }, profile: { givenName: 'G', familyName: 'R' }, email: { email: `${username}@example.com` } });
    return userId;
  }
  async function grant(userId: string, projectId = project, roleKeys = ['editor']): Promise<string> {
    return (await admin().addUserGrant({ userId, projectId, roleKeys })).userGrantId;
  }
  const eventsOf = (grantId: string) => createEventStore(kh.database).load('usergrant', grantId);

  beforeAll(async () => {
    kh = await startTestKeyhold({ postgres });
    [org, other] = await Promise.all([addOrg(kh, 'Granting org'), addOrg(kh, 'Other org')]);
    [manager, nobody, foreignOwner] = await Promise.all([
      machineCaller(kh, org, 'ug-manager', ['ORG_USER_MANAGER']),
      machineCaller(kh, org, 'ug-nobody'),
      machineCaller(kh, other, 'ug-foreign', ['ORG_OWNER']),
    ]);
    ({ id: project } = await admin().addProject({ name: 'Checked', projectRoleCheck: true }));
    ({ id: open } = await admin().addProject({ name: 'Open' }));
    for (const [projectId, roleKey] of [[project, 'editor'], [project, 'viewer'], [project, 'editor.admin'], [open, 'viewer']] as const) {
      await admin().addProjectRole({ projectId, roleKey, displayName: roleKey });
    }
    projectOwner = await machineCaller(kh, org, 'ug-project-owner');
    await admin().addProjectMember({ projectId: project, userId: projectOwner.userId, roles: ['PROJECT_OWNER'] });
  });
  afterAll(async () => kh?.close());

  describe('ListUserGrants', () => {
    it('a ZITADEL-shaped search (REST): by user, project and role key, paged with totals; the state is shown', async () => {
      const [ada, bob] = [await newUser(), await newUser()];
      const adaChecked = await grant(ada, project, ['editor', 'viewer']);
      const adaOpen = await grant(ada, open, ['viewer']);
      const bobChecked = await grant(bob, project, ['editor.admin']);
      await admin().deactivateUserGrant({ userId: ada, grantId: adaOpen });

      const search = (body: unknown, headers = bearer(manager.token)) => kh.rest('POST', '/management/v1/users/grants/_search', body, headers);
      const byUser = await search({ query: { asc: true }, queries: [{ userIdQuery: { userId: ada } }] });
      expect(byUser.status).toBe(200);
      expect(byUser.body.details.totalResult).toBe('2');
      expect(byUser.body.result.map((g: any) => [g.id, g.projectId, g.roleKeys, g.state, g.userId, g.orgId])).toEqual([
        [adaChecked, project, ['editor', 'viewer'], 'USER_GRANT_STATE_ACTIVE', ada, org],
        [adaOpen, open, ['viewer'], 'USER_GRANT_STATE_INACTIVE', ada, org],
      ]);
      expect(byUser.body.result[0].details.resourceOwner).toBe(org);

      // All queries must match: the user and the project.
      const both = await search({ queries: [{ userIdQuery: { userId: ada } }, { projectIdQuery: { projectId: project } }] });
      expect(both.body.result.map((g: any) => g.id)).toEqual([adaChecked]);
      // A role key: equals matches a whole key, startsWith any key beginning so.
      const editors = await search({ queries: [{ projectIdQuery: { projectId: project } }, { roleKeyQuery: { roleKey: 'editor' } }] });
      expect(editors.body.result.map((g: any) => g.id).sort()).toEqual([adaChecked].sort());
      const prefixed = await search({ queries: [{ roleKeyQuery: { roleKey: 'EDITOR.', method: 'TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE' } }] });
      expect(prefixed.body.result.map((g: any) => g.id)).toEqual([bobChecked]);

      // Paging: one at a time, newest first by default; the total counts all matches.
      const first = await search({ query: { limit: 1 }, queries: [{ userIdQuery: { userId: ada } }] });
      const second = await search({ query: { limit: 1, offset: '1' }, queries: [{ userIdQuery: { userId: ada } }] });
      expect([first.body.details.totalResult, first.body.result.length, first.body.result[0].id, second.body.result[0].id]).toEqual(['2', 1, adaOpen, adaChecked]);
    });

    it('gRPC: a PROJECT_OWNER sees only its project’s grants; another org’s context sees none of them', async () => {
      const user = await newUser();
      const checked = await grant(user, project, ['viewer']);
      await grant(user, open, ['viewer']);
      const owned = await as(projectOwner).listUserGrants({ queries: [{ query: { case: 'userIdQuery', value: { userId: user } } }] });
      expect(owned.result.map((g) => [g.id, g.state])).toEqual([[checked, UserGrantState.ACTIVE]]);
      expect(owned.details?.totalResult).toBe(1n);
      const foreign = await as(foreignOwner).listUserGrants({ queries: [{ query: { case: 'userIdQuery', value: { userId: user } } }] });
      expect(foreign.result).toEqual([]);
      const adminElsewhere = await admin(inOrg(other)).listUserGrants({ queries: [{ query: { case: 'userIdQuery', value: { userId: user } } }] });
      expect(adminElsewhere.details?.totalResult).toBe(0n);
    });

    it('a page is bounded in bytes as well as in entries: what does not fit is left out and counted', async () => {
      const user = await newUser();
      await grant(user, project, ['editor', 'viewer', 'editor.admin']);
      await grant(user, open, ['viewer']);
      const search = { orgId: org, projectIds: undefined, userIds: [user], inProjects: [], roleKeys: [] };
      const page = { offset: 0, limit: 10, asc: true };
      const all = await kh.readModel.searchUserGrants(search, page, 1024);
      expect([all.items.length, all.total, all.leftOut]).toEqual([2, 2, 0]);
      // The first grant's keys ('{editor,viewer,editor.admin}') alone pass 20 bytes: it is answered, the second is left out.
      const bounded = await kh.readModel.searchUserGrants(search, page, 20);
      expect([bounded.items.map((g) => g.projectId), bounded.total, bounded.leftOut]).toEqual([[project], 2, 1]);
    });

    it('400 a bad id or text query (named by its place); 401; 403 without user.grant.read', async () => {
      const bad = await kh.rest('POST', '/management/v1/users/grants/_search', { queries: [{ projectIdQuery: { projectId: project } }, { userIdQuery: { userId: 'not an id' } }] }, inOrg(org));
      expect([bad.status, restReason(bad.body), restFields(bad.body)]).toEqual([400, 'INVALID_REQUEST', ['queries[1].userIdQuery.userId']]);
      const long = await rpcError(admin().listUserGrants({ queries: [{ query: { case: 'roleKeyQuery', value: { roleKey: 'x'.repeat(201), method: 0 } } }] }));
      expect([long.code, long.fields]).toEqual([Code.InvalidArgument, ['queries[0].roleKeyQuery.roleKey']]);
      const many = await rpcError(admin().listUserGrants({ queries: Array.from({ length: 21 }, () => ({ query: { case: 'projectIdQuery' as const, value: { projectId: project } } })) }));
      expect(many.fields).toEqual(['queries']);
      expect((await kh.rest('POST', '/management/v1/users/grants/_search', {}, { authorization: '' })).status).toBe(401);
      const denied = await rpcError(as(nobody).listUserGrants({}));
      expect([denied.code, denied.reason]).toEqual([Code.PermissionDenied, 'PERMISSION_DENIED']);
    });
  });

  describe('UpdateUserGrant', () => {
    it('replaces the roles (REST PUT); the login’s roles follow at once', async () => {
      const user = await newUser();
      const grantId = await grant(user, project, ['editor']);
      const res = await kh.rest('PUT', grantPath(user, grantId), { roleKeys: ['viewer', 'editor.admin', 'viewer'] }, bearer(manager.token));
      expect(res.status).toBe(200);
      expect([res.body.details.sequence, res.body.details.resourceOwner]).toEqual(['2', org]);
      const access = await loginAccess(kh.readModel, user, project);
      expect(access.allowed && rolesClaim(access.roles)).toEqual({ 'editor.admin': { [org]: 'Granting org' }, viewer: { [org]: 'Granting org' } });
      expect((await eventsOf(grantId)).at(-1)).toMatchObject({ type: 'usergrant.changed', payload: { roleKeys: ['viewer', 'editor.admin'] }, creator: manager.userId });
    });

    it('400 a role the project lacks (by index) or none; 404 unknown grant, another user’s path, another org; 403; nothing changes', async () => {
      const user = await newUser();
      const grantId = await grant(user, project, ['editor']);
      const unknown = await kh.rest('PUT', grantPath(user, grantId), { roleKeys: ['viewer', 'owner'] }, inOrg(org));
      expect([unknown.status, restReason(unknown.body), restFields(unknown.body)]).toEqual([400, 'INVALID_REQUEST', ['roleKeys[1]']]);
      // A role of another project of the org is not one of this project's.
      const elsewhere = await rpcError(admin().updateUserGrant({ userId: user, grantId, roleKeys: ['viewer', 'editor', 'nope'] }));
      expect(elsewhere.fields).toEqual(['roleKeys[2]']);
      const none = await rpcError(admin().updateUserGrant({ userId: user, grantId, roleKeys: [] }));
      expect([none.code, none.fields]).toEqual([Code.InvalidArgument, ['roleKeys']]);
      const someoneElse = await newUser();
      for (const [call, what] of [
        [() => admin().updateUserGrant({ userId: user, grantId: 'nosuchgrant', roleKeys: ['viewer'] }), 'unknown grant'],
        [() => admin().updateUserGrant({ userId: someoneElse, grantId, roleKeys: ['viewer'] }), 'another user in the path'],
        [() => as(foreignOwner).updateUserGrant({ userId: user, grantId, roleKeys: ['viewer'] }), 'a caller of another org'],
        [() => admin(inOrg(other)).updateUserGrant({ userId: user, grantId, roleKeys: ['viewer'] }), 'another org’s context'],
      ] as const) {
        const err = await rpcError(call());
        expect([err.code, err.reason], what).toEqual([Code.NotFound, 'USER_GRANT_NOT_FOUND']);
      }
      const denied = await rpcError(as(nobody).updateUserGrant({ userId: user, grantId, roleKeys: ['viewer'] }));
      expect([denied.code, denied.reason]).toEqual([Code.PermissionDenied, 'PERMISSION_DENIED']);
      expect((await kh.rest('PUT', grantPath(user, grantId), { roleKeys: ['viewer'] }, { authorization: '' })).status).toBe(401);
      expect((await eventsOf(grantId)).map((e) => e.type)).toEqual(['usergrant.added']);
      const access = await loginAccess(kh.readModel, user, project);
      expect(access.allowed && access.roles.map((r) => r.roleKey)).toEqual(['editor']);
    });

    it('a PROJECT_OWNER changes grants of its project, not those of another project of the org (403)', async () => {
      const user = await newUser();
      const own = await grant(user, project, ['editor']);
      const elsewhere = await grant(user, open, ['viewer']);
      await as(projectOwner).updateUserGrant({ userId: user, grantId: own, roleKeys: ['viewer'] });
      const denied = await rpcError(as(projectOwner).removeUserGrant({ userId: user, grantId: elsewhere }));
      expect([denied.code, denied.reason]).toEqual([Code.PermissionDenied, 'PERMISSION_DENIED']);
    });
  });

  describe('DeactivateUserGrant / ReactivateUserGrant', () => {
    it('an inactive grant gives no roles and does not pass projectRoleCheck; reactivated, both are back (gRPC and REST)', async () => {
      const user = await newUser();
      const grantId = await grant(user, project, ['editor']);
      expect((await loginAccess(kh.readModel, user, project)).allowed).toBe(true);
      const off = await as(manager).deactivateUserGrant({ userId: user, grantId });
      expect(off.details?.sequence).toBe(2n);
      expect(await loginAccess(kh.readModel, user, project)).toEqual({ allowed: false, failed: 'projectRoleCheck' });
      expect(await kh.readModel.projectRolesOfUser(user, project)).toEqual([]);
      const again = await rpcError(as(manager).deactivateUserGrant({ userId: user, grantId }));
      expect([again.code, again.reason]).toEqual([Code.FailedPrecondition, 'USER_GRANT_NOT_ACTIVE']);

      const on = await kh.rest('POST', grantPath(user, grantId, '/_reactivate'), {}, bearer(manager.token));
      expect(on.status).toBe(200);
      const access = await loginAccess(kh.readModel, user, project);
      expect(access.allowed && access.roles.map((r) => r.roleKey)).toEqual(['editor']);
      const twice = await kh.rest('POST', grantPath(user, grantId, '/_reactivate'), {}, bearer(manager.token));
      expect([twice.status, restReason(twice.body)]).toEqual([400, 'USER_GRANT_NOT_INACTIVE']);
      expect((await kh.rest('POST', grantPath(user, grantId, '/_deactivate'), {}, bearer(manager.token))).status).toBe(200);
      expect((await loginAccess(kh.readModel, user, project)).allowed).toBe(false);
    });

    it('404 for another org’s caller or context, 403 without the permission; nothing changes', async () => {
      const user = await newUser();
      const grantId = await grant(user);
      expect((await rpcError(as(foreignOwner).deactivateUserGrant({ userId: user, grantId }))).reason).toBe('USER_GRANT_NOT_FOUND');
      const rest = await kh.rest('POST', grantPath(user, grantId, '/_deactivate'), {}, inOrg(other));
      expect([rest.status, restReason(rest.body)]).toEqual([404, 'USER_GRANT_NOT_FOUND']);
      expect((await rpcError(as(nobody).deactivateUserGrant({ userId: user, grantId }))).code).toBe(Code.PermissionDenied);
      const bad = await kh.rest('POST', grantPath(user, 'not%20an%20id', '/_deactivate'), {}, inOrg(org));
      expect([bad.status, restFields(bad.body)]).toEqual([400, ['grantId']]);
      expect((await eventsOf(grantId)).map((e) => e.type)).toEqual(['usergrant.added']);
      expect((await loginAccess(kh.readModel, user, project)).allowed).toBe(true);
    });

    it('eight deactivations at once: one succeeds, the others are told it is not active', async () => {
      const user = await newUser();
      const grantId = await grant(user);
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => kh.rest('POST', grantPath(user, grantId, '/_deactivate'), {}, bearer(manager.token)).then((r) => r.status === 200 ? 'OK' : restReason(r.body))),
      );
      expect(answers.filter((a) => a === 'OK')).toHaveLength(1);
      expect(answers.filter((a) => a !== 'OK').every((a) => a === 'USER_GRANT_NOT_ACTIVE')).toBe(true);
      expect((await eventsOf(grantId)).map((e) => e.type)).toEqual(['usergrant.added', 'usergrant.deactivated']);
    });
  });

  describe('RemoveUserGrant', () => {
    it('REST DELETE: the grant is gone (not listed, 404 for every change), the user may be granted the project again', async () => {
      const user = await newUser();
      const grantId = await grant(user, project, ['editor']);
      const res = await kh.rest('DELETE', grantPath(user, grantId), undefined, bearer(manager.token));
      expect(res.status).toBe(200);
      expect(await loginAccess(kh.readModel, user, project)).toEqual({ allowed: false, failed: 'projectRoleCheck' });
      const listed = await admin().listUserGrants({ queries: [{ query: { case: 'userIdQuery', value: { userId: user } } }] });
      expect(listed.result).toEqual([]);
      for (const call of [
        () => admin().removeUserGrant({ userId: user, grantId }),
        () => admin().updateUserGrant({ userId: user, grantId, roleKeys: ['viewer'] }),
        () => admin().reactivateUserGrant({ userId: user, grantId }),
      ]) {
        expect((await rpcError(call())).reason).toBe('USER_GRANT_NOT_FOUND');
      }
      const again = await grant(user, project, ['viewer']);
      expect(again).not.toBe(grantId);
      const access = await loginAccess(kh.readModel, user, project);
      expect(access.allowed && access.roles.map((r) => r.roleKey)).toEqual(['viewer']);
    });

    it('a removal racing changes: the grant ends removed, each change before it or a 404 after it', async () => {
      const user = await newUser();
      const grantId = await grant(user);
      const answers = await Promise.all([
        admin().updateUserGrant({ userId: user, grantId, roleKeys: ['viewer'] }).then(() => 'OK', () => 'refused'),
        admin().removeUserGrant({ userId: user, grantId }).then(() => 'OK'),
        admin().deactivateUserGrant({ userId: user, grantId }).then(() => 'OK', () => 'refused'),
      ]);
      expect(answers[1]).toBe('OK');
      const types = (await eventsOf(grantId)).map((e) => e.type);
      expect(types.at(-1)).toBe('usergrant.removed');
      expect(types.filter((t) => t === 'usergrant.removed')).toHaveLength(1);
      expect(await kh.readModel.projectRolesOfUser(user, project)).toEqual([]);
    });

    it('a removed user’s grants go with it: not listed, 404 USER_NOT_FOUND for every change and for a new grant', async () => {
      const user = await newUser();
      const grantId = await grant(user);
      await kh.client(UserService).removeUser({ userId: user });
      expect((await admin().listUserGrants({ queries: [{ query: { case: 'userIdQuery', value: { userId: user } } }] })).result).toEqual([]);
      for (const call of [
        () => admin().updateUserGrant({ userId: user, grantId, roleKeys: ['viewer'] }),
        () => admin().reactivateUserGrant({ userId: user, grantId }),
        () => admin().removeUserGrant({ userId: user, grantId }),
        () => admin().addUserGrant({ userId: user, projectId: open, roleKeys: ['viewer'] }),
      ]) {
        const err = await rpcError(call());
        expect([err.code, err.reason]).toEqual([Code.NotFound, 'USER_NOT_FOUND']);
      }
      expect((await eventsOf(grantId)).map((e) => e.type)).toEqual(['usergrant.added']);
    });

    it('404 for another org’s caller; 403 without the permission; 401', async () => {
      const user = await newUser();
      const grantId = await grant(user);
      expect((await rpcError(as(foreignOwner).removeUserGrant({ userId: user, grantId }))).reason).toBe('USER_GRANT_NOT_FOUND');
      expect((await rpcError(as(nobody).removeUserGrant({ userId: user, grantId }))).reason).toBe('PERMISSION_DENIED');
      expect((await kh.rest('DELETE', grantPath(user, grantId), undefined, { authorization: '' })).status).toBe(401);
      expect((await loginAccess(kh.readModel, user, project)).allowed).toBe(true);
    });
  });
});
