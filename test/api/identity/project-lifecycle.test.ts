// The life of projects and of their roles after they are added, over REST and
// gRPC on each backend: UpdateProject, DeactivateProject, ReactivateProject,
// RemoveProject, ListProjectRoles, UpdateProjectRole, RemoveProjectRole — with
// their 400/401/403/404 and FAILED_PRECONDITION answers, another org's caller getting 404, the
// console's project kept, and the cascades (a removed role leaves every grant
// holding it; a removed project takes its apps, roles and grants).
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService, ProjectState } from '../../../gen/keyhold/management/v1/management_pb.js';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { CONSOLE_PROJECT_ID } from '../../../src/commands/instance/add-console-app.js';
import { authenticateClient } from '../../../src/queries/client-auth.js';
import { loginAccess } from '../../../src/queries/login-access.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { postgresAvailable } from '../../support/databases.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { addOrg, bearer, inOrg, machineCaller, type MachineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

const backends = [{ backend: 'PGlite', postgres: false }, ...(postgresAvailable ? [{ backend: 'PostgreSQL', postgres: true }] : [])];

describe.each(backends)('projects and roles after they are added, on $backend', ({ postgres }) => {
  let kh: TestKeyhold;
  let org: string;
  let other: string;
  let nobody: MachineCaller; // a user of org with no role
  let ada: string;
  let bob: string;
  let n = 0;
  const unique = (p: string) => `${p}-${++n}`;
  const admin = (headers = inOrg(org)) => kh.client(ManagementService, 'grpc', kh.adminToken, headers);
  const rest = (method: string, path: string, body?: unknown, headers = inOrg(org)) => kh.rest(method, path, body, headers);
  const events = (type: 'project' | 'usergrant' | 'app', id: string) => createEventStore(kh.database).load(type, id);

  async function newProject(roles: string[] = [], flags: { projectRoleCheck?: boolean } = {}) {
    const { id } = await admin().addProject({ name: unique('Project'), ...flags });
    for (const roleKey of roles) await admin().addProjectRole({ projectId: id, roleKey, displayName: roleKey.toUpperCase() });
    return id;
  }

  beforeAll(async () => {
    kh = await startTestKeyhold({ postgres });
    [org, other] = await Promise.all([addOrg(kh, 'Lifecycle org'), addOrg(kh, 'Foreign org')]);
    nobody = await machineCaller(kh, org, 'lifecycle-nobody');
    const human = (username: string) => ({ username, organization: { orgId: org }, profile: { givenName: 'G', familyName: 'F' }, email: { email: `${username}@example.com` } });
    ({ userId: ada } = await kh.client(UserService).addHumanUser(human('ada-lifecycle')));
    ({ userId: bob } = await kh.client(UserService).addHumanUser(human('bob-lifecycle')));
  }, 60_000);
  afterAll(async () => kh?.close());

  describe('UpdateProject', () => {
    it('replaces the name and the two login checks (REST PUT, gRPC); the login obeys them; the same values again write nothing', async () => {
      const id = await newProject();
      const res = await rest('PUT', `/management/v1/projects/${id}`, { name: '  Renamed  ', projectRoleCheck: true, hasProjectCheck: true });
      expect(res.status).toBe(200);
      expect(res.body.details.resourceOwner).toBe(org);
      const got = (await admin().getProjectByID({ id })).project!;
      expect([got.name, got.projectRoleCheck, got.hasProjectCheck]).toEqual(['Renamed', true, true]);
      expect(await loginAccess(kh.readModel, ada, id)).toEqual({ allowed: false, failed: 'projectRoleCheck' });
      expect((await events('project', id)).at(-1)).toMatchObject({ type: 'project.changed', payload: { name: 'Renamed', projectRoleCheck: true, hasProjectCheck: true } });

      const before = (await events('project', id)).length;
      const same = await admin().updateProject({ id, name: 'Renamed', projectRoleCheck: true, hasProjectCheck: true });
      expect(same.details?.sequence).toBe(BigInt(before));
      expect(await events('project', id)).toHaveLength(before);
      // Both off (absent in JSON): anyone logs in again.
      expect((await rest('PUT', `/management/v1/projects/${id}`, { name: 'Renamed' })).status).toBe(200);
      expect(await loginAccess(kh.readModel, ada, id)).toEqual({ allowed: true, roles: [] });
    });

    it('400 naming the fields (empty name, projectRoleAssertion), 401, 403 without project.write, 404 unknown or another org’s; nothing written', async () => {
      const id = await newProject();
      const before = (await events('project', id)).length;
      const bad = await rest('PUT', `/management/v1/projects/${id}`, { name: ' ', projectRoleAssertion: true });
      expect([bad.status, restReason(bad.body), restFields(bad.body)]).toEqual([400, 'INVALID_REQUEST', ['name', 'projectRoleAssertion']]);
      expect((await rest('PUT', `/management/v1/projects/${id}`, { name: 'X' }, { authorization: '' })).status).toBe(401);
      const denied = await rpcError(kh.client(ManagementService, 'grpc', nobody.token).updateProject({ id, name: 'X' }));
      expect([denied.code, denied.reason]).toEqual([Code.PermissionDenied, 'PERMISSION_DENIED']);
      const unknown = await rest('PUT', '/management/v1/projects/nosuchproject', { name: 'X' });
      expect([unknown.status, restReason(unknown.body)]).toEqual([404, 'PROJECT_NOT_FOUND']);
      const foreign = await rpcError(admin(inOrg(other)).updateProject({ id, name: 'X' }));
      expect([foreign.code, foreign.reason]).toEqual([Code.NotFound, 'PROJECT_NOT_FOUND']);
      expect(await events('project', id)).toHaveLength(before);
    });
  });

  describe('DeactivateProject / ReactivateProject', () => {
    it('a deactivated project reads INACTIVE and its apps do not authenticate; reactivated they do again; twice → FAILED_PRECONDITION', async () => {
      const id = await newProject();
      const app = await rest('POST', `/management/v1/projects/${id}/apps/oidc`, { name: 'Web', redirectUris: ['https://a.example/cb'] });
      expect(app.status).toBe(200);
      const { clientId, clientSecret } = app.body;
      expect(await authenticateClient(kh.readModel, clientId, clientSecret)).toBe(true);

      const off = await rest('POST', `/management/v1/projects/${id}/_deactivate`, {});
      expect(off.status).toBe(200);
      expect((await admin().getProjectByID({ id })).project?.state).toBe(ProjectState.INACTIVE);
      expect((await rest('GET', `/management/v1/projects/${id}`)).body.project.state).toBe('PROJECT_STATE_INACTIVE');
      expect(await authenticateClient(kh.readModel, clientId, clientSecret)).toBe(false);
      const twice = await rpcError(admin().deactivateProject({ id }));
      expect([twice.code, twice.reason]).toEqual([Code.FailedPrecondition, 'PROJECT_NOT_ACTIVE']);

      await admin().reactivateProject({ id });
      expect((await admin().getProjectByID({ id })).project?.state).toBe(ProjectState.ACTIVE);
      expect(await authenticateClient(kh.readModel, clientId, clientSecret)).toBe(true);
      const again = await rest('POST', `/management/v1/projects/${id}/_reactivate`, {});
      expect([again.status, restReason(again.body)]).toEqual([400, 'PROJECT_NOT_INACTIVE']);
    });

    it('401, 403, 404 for another org’s caller; nothing written', async () => {
      const id = await newProject();
      const before = (await events('project', id)).length;
      expect((await rest('POST', `/management/v1/projects/${id}/_deactivate`, {}, { authorization: '' })).status).toBe(401);
      const denied = await rest('POST', `/management/v1/projects/${id}/_deactivate`, {}, bearer(nobody.token));
      expect([denied.status, restReason(denied.body)]).toEqual([403, 'PERMISSION_DENIED']);
      const foreign = await rpcError(admin(inOrg(other)).deactivateProject({ id }));
      expect([foreign.code, foreign.reason]).toEqual([Code.NotFound, 'PROJECT_NOT_FOUND']);
      const foreignRe = await rpcError(admin(inOrg(other)).reactivateProject({ id }));
      expect([foreignRe.code, foreignRe.reason]).toEqual([Code.NotFound, 'PROJECT_NOT_FOUND']);
      expect(await events('project', id)).toHaveLength(before);
    });
  });

  describe('the console’s project', () => {
    it('cannot be deactivated, removed or closed by a login check (FAILED_PRECONDITION saying why); a rename is fine', async () => {
      const consoleOrg = (await admin({}).getProjectByID({ id: CONSOLE_PROJECT_ID })).project!.details!.resourceOwner;
      const inConsoleOrg = inOrg(consoleOrg);
      for (const [method, path, body] of [
        ['POST', `/management/v1/projects/${CONSOLE_PROJECT_ID}/_deactivate`, {}],
        ['DELETE', `/management/v1/projects/${CONSOLE_PROJECT_ID}`, undefined],
        ['PUT', `/management/v1/projects/${CONSOLE_PROJECT_ID}`, { name: 'Keyhold', projectRoleCheck: true }],
        ['PUT', `/management/v1/projects/${CONSOLE_PROJECT_ID}`, { name: 'Keyhold', hasProjectCheck: true }],
      ] as const) {
        const res = await rest(method, path, body, inConsoleOrg);
        expect([res.status, restReason(res.body)], `${method} ${path}`).toEqual([400, 'CONSOLE_PROJECT_PROTECTED']);
        expect(res.body.message).toContain('lock every administrator out of the console');
      }
      const grpc = await rpcError(admin(inConsoleOrg).removeProject({ id: CONSOLE_PROJECT_ID }));
      expect([grpc.code, grpc.reason]).toEqual([Code.FailedPrecondition, 'CONSOLE_PROJECT_PROTECTED']);
      expect((await admin(inConsoleOrg).getProjectByID({ id: CONSOLE_PROJECT_ID })).project?.state).toBe(ProjectState.ACTIVE);
      expect((await admin(inConsoleOrg).updateProject({ id: CONSOLE_PROJECT_ID, name: 'Keyhold console' })).details).toBeTruthy();
      await admin(inConsoleOrg).updateProject({ id: CONSOLE_PROJECT_ID, name: 'Keyhold' });
    });
  });

  describe('ListProjectRoles', () => {
    it('pages the project’s roles with totals, oldest first when asked; filters by key and display name (REST and gRPC)', async () => {
      const id = await newProject(['alpha', 'beta', 'gamma']);
      const all = await rest('POST', `/management/v1/projects/${id}/roles/_search`, { query: { asc: true } });
      expect(all.status).toBe(200);
      expect(all.body.result.map((r: any) => [r.key, r.displayName])).toEqual([['alpha', 'ALPHA'], ['beta', 'BETA'], ['gamma', 'GAMMA']]);
      expect(all.body.details.totalResult).toBe('3');
      expect(all.body.result[0].details.resourceOwner).toBe(org);
      const page = await admin().listProjectRoles({ projectId: id, query: { offset: 1n, limit: 1, asc: true } });
      expect([page.result.map((r) => r.key), page.details?.totalResult]).toEqual([['beta'], 3n]);
      const byKey = await rest('POST', `/management/v1/projects/${id}/roles/_search`, { queries: [{ keyQuery: { key: 'gam', method: 'TEXT_QUERY_METHOD_STARTS_WITH' } }] });
      expect(byKey.body.result.map((r: any) => r.key)).toEqual(['gamma']);
      const byName = await admin().listProjectRoles({ projectId: id, queries: [{ query: { case: 'displayNameQuery', value: { displayName: 'beta', method: 3 } } }] });
      expect(byName.result.map((r) => r.key)).toEqual(['beta']);
    });

    it('400 on a bad filter (named), 401, 403 without project.read, 404 for another org’s caller', async () => {
      const id = await newProject(['alpha']);
      const bad = await rest('POST', `/management/v1/projects/${id}/roles/_search`, { queries: [{ keyQuery: { key: 'x'.repeat(201) } }] });
      expect([bad.status, restFields(bad.body)]).toEqual([400, ['queries[0].keyQuery.key']]);
      expect((await rest('POST', `/management/v1/projects/${id}/roles/_search`, {}, { authorization: '' })).status).toBe(401);
      const denied = await rpcError(kh.client(ManagementService, 'grpc', nobody.token).listProjectRoles({ projectId: id }));
      expect(denied.code).toBe(Code.PermissionDenied);
      const foreign = await rest('POST', `/management/v1/projects/${id}/roles/_search`, {}, inOrg(other));
      expect([foreign.status, restReason(foreign.body)]).toEqual([404, 'PROJECT_NOT_FOUND']);
    });
  });

  describe('UpdateProjectRole', () => {
    it('replaces display name and group (REST PUT, gRPC); the same again writes nothing; an unknown key → 404', async () => {
      const id = await newProject(['editor']);
      const res = await rest('PUT', `/management/v1/projects/${id}/roles/editor`, { displayName: 'Chief editor', group: 'content' });
      expect(res.status).toBe(200);
      const listed = await admin().listProjectRoles({ projectId: id });
      expect(listed.result.map((r) => [r.key, r.displayName, r.group])).toEqual([['editor', 'Chief editor', 'content']]);
      const before = (await events('project', id)).length;
      await admin().updateProjectRole({ projectId: id, roleKey: 'editor', displayName: 'Chief editor', group: 'content' });
      expect(await events('project', id)).toHaveLength(before);
      const unknown = await rpcError(admin().updateProjectRole({ projectId: id, roleKey: 'nosuch', displayName: 'X' }));
      expect([unknown.code, unknown.reason]).toEqual([Code.NotFound, 'PROJECT_ROLE_NOT_FOUND']);
    });

    it('400 naming the fields, 403, 404 for another org’s caller; nothing written', async () => {
      const id = await newProject(['editor']);
      const before = (await events('project', id)).length;
      const bad = await rest('PUT', `/management/v1/projects/${id}/roles/editor`, { displayName: '' });
      expect([bad.status, restFields(bad.body)]).toEqual([400, ['displayName']]);
      const denied = await rest('PUT', `/management/v1/projects/${id}/roles/editor`, { displayName: 'X' }, bearer(nobody.token));
      expect(denied.status).toBe(403);
      const foreign = await rpcError(admin(inOrg(other)).updateProjectRole({ projectId: id, roleKey: 'editor', displayName: 'X' }));
      expect([foreign.code, foreign.reason]).toEqual([Code.NotFound, 'PROJECT_NOT_FOUND']);
      expect(await events('project', id)).toHaveLength(before);
    });
  });

  describe('RemoveProjectRole', () => {
    it('removes the role and takes it from every grant holding it, in one append; the login sees the rest', async () => {
      const id = await newProject(['editor', 'viewer'], { projectRoleCheck: true });
      const { userGrantId: adaGrant } = await admin().addUserGrant({ userId: ada, projectId: id, roleKeys: ['editor', 'viewer'] });
      const { userGrantId: bobGrant } = await admin().addUserGrant({ userId: bob, projectId: id, roleKeys: ['editor'] });
      const res = await rest('DELETE', `/management/v1/projects/${id}/roles/editor`);
      expect(res.status).toBe(200);
      expect((await admin().listProjectRoles({ projectId: id })).result.map((r) => r.key)).toEqual(['viewer']);
      const [roleRemoved] = (await events('project', id)).slice(-1);
      const [adaChanged] = (await events('usergrant', adaGrant)).slice(-1);
      const [bobChanged] = (await events('usergrant', bobGrant)).slice(-1);
      expect(roleRemoved).toMatchObject({ type: 'project.role.removed', payload: { roleKey: 'editor' } });
      expect(adaChanged).toMatchObject({ type: 'usergrant.cascade.changed', payload: { removedRoleKey: 'editor', roleKeys: ['viewer'] } });
      expect(bobChanged).toMatchObject({ type: 'usergrant.cascade.changed', payload: { roleKeys: [] } });
      // One transaction: one commit instant.
      expect(new Set([roleRemoved!.createdAt.getTime(), adaChanged!.createdAt.getTime(), bobChanged!.createdAt.getTime()]).size).toBe(1);
      const access = await loginAccess(kh.readModel, ada, id);
      expect(access.allowed && access.roles.map((r) => r.roleKey)).toEqual(['viewer']);
      // Bob's grant holds no role now: the project's role check refuses him.
      expect(await loginAccess(kh.readModel, bob, id)).toEqual({ allowed: false, failed: 'projectRoleCheck' });
      // The key is free again, and a new role under it gives nobody anything.
      await admin().addProjectRole({ projectId: id, roleKey: 'editor', displayName: 'Editor again' });
      expect(await loginAccess(kh.readModel, bob, id)).toEqual({ allowed: false, failed: 'projectRoleCheck' });
    });

    it('an inactive grant loses the role too, stays inactive, and ListUserGrants shows what is left; a removed grant is passed over', async () => {
      const id = await newProject(['editor', 'viewer']);
      const { userGrantId: adaGrant } = await admin().addUserGrant({ userId: ada, projectId: id, roleKeys: ['editor', 'viewer'] });
      const { userGrantId: bobGrant } = await admin().addUserGrant({ userId: bob, projectId: id, roleKeys: ['editor'] });
      await admin().deactivateUserGrant({ userId: ada, grantId: adaGrant });
      await admin().removeUserGrant({ userId: bob, grantId: bobGrant });
      await admin().removeProjectRole({ projectId: id, roleKey: 'editor' });
      const listed = await admin().listUserGrants({ queries: [{ query: { case: 'projectIdQuery', value: { projectId: id } } }] });
      expect(listed.result.map((g) => [g.id, g.roleKeys, g.state])).toEqual([[adaGrant, ['viewer'], 2]]);
      expect((await events('usergrant', bobGrant)).at(-1)!.type).toBe('usergrant.removed');
      // Reactivated, it gives only what is left.
      await admin().reactivateUserGrant({ userId: ada, grantId: adaGrant });
      expect((await kh.readModel.projectRolesOfUser(ada, id)).map((r) => r.roleKey)).toEqual(['viewer']);
      // Removing the project takes the grant, after which it is unknown to the grant RPCs.
      await admin().removeProject({ id });
      expect((await admin().listUserGrants({ queries: [{ query: { case: 'projectIdQuery', value: { projectId: id } } }] })).result).toEqual([]);
      expect((await rpcError(admin().updateUserGrant({ userId: ada, grantId: adaGrant, roleKeys: ['viewer'] }))).code).toBe(Code.NotFound);
    });

    it('grants racing the removal of their role: whichever commits first, nobody holds the removed role afterwards', async () => {
      const id = await newProject(['editor', 'viewer']);
      const users = await Promise.all(
        Array.from({ length: 8 }, async (_, i) =>
          (await kh.client(UserService).addHumanUser({ username: unique(`racer${i}`), organization: { orgId: org }, profile: { givenName: 'R', familyName: 'R' }, email: { email: `r${i}@example.com` } })).userId,
        ),
      );
      const grants = users.map((userId) => admin().addUserGrant({ userId, projectId: id, roleKeys: ['editor', 'viewer'] }).then(() => 'OK', (e) => (e as { code: Code }).code));
      const removal = admin().removeProjectRole({ projectId: id, roleKey: 'editor' });
      const outcomes = await Promise.all(grants);
      await removal;
      // A grant checked after the removal is refused (400: not a role of the project); one before it is cascaded or names a key no longer counted.
      expect(outcomes.every((o) => o === 'OK' || o === Code.InvalidArgument)).toBe(true);
      for (const userId of users) expect((await kh.readModel.projectRolesOfUser(userId, id)).map((r) => r.roleKey)).not.toContain('editor');
      // No row keeps the key (a grant's row holds only roles present when it is written), so
      // ListUserGrants does not show it and a role of that key added again gives it to nobody.
      const rows = await kh.database.sql.query<{ n: number }>({ text: `select count(*)::int as n from user_grants where project_id = $1 and 'editor' = any(role_keys)`, params: [id] });
      expect(rows[0]?.n).toBe(0);
      await admin().addProjectRole({ projectId: id, roleKey: 'editor', displayName: 'Editor again' });
      for (const userId of users) expect((await kh.readModel.projectRolesOfUser(userId, id)).map((r) => r.roleKey)).not.toContain('editor');
    });

    it('404 unknown role (gRPC) or another org’s caller, 403, 401; nothing written', async () => {
      const id = await newProject(['editor']);
      const before = (await events('project', id)).length;
      const unknown = await rpcError(admin().removeProjectRole({ projectId: id, roleKey: 'nosuch' }));
      expect([unknown.code, unknown.reason]).toEqual([Code.NotFound, 'PROJECT_ROLE_NOT_FOUND']);
      const bad = await rest('DELETE', `/management/v1/projects/${id}/roles/${encodeURIComponent('has space')}`);
      expect([bad.status, restFields(bad.body)]).toEqual([400, ['roleKey']]);
      expect((await rest('DELETE', `/management/v1/projects/${id}/roles/editor`, undefined, { authorization: '' })).status).toBe(401);
      expect((await rest('DELETE', `/management/v1/projects/${id}/roles/editor`, undefined, bearer(nobody.token))).status).toBe(403);
      const foreign = await rest('DELETE', `/management/v1/projects/${id}/roles/editor`, undefined, inOrg(other));
      expect([foreign.status, restReason(foreign.body)]).toEqual([404, 'PROJECT_NOT_FOUND']);
      expect(await events('project', id)).toHaveLength(before);
    });
  });

  describe('RemoveProject', () => {
    it('removes the project with its apps, roles and grants (REST); afterwards it is unknown everywhere', async () => {
      const id = await newProject(['editor'], { projectRoleCheck: true });
      const app = await rest('POST', `/management/v1/projects/${id}/apps/oidc`, { name: 'Doomed', redirectUris: ['https://a.example/cb'] });
      const { userGrantId } = await admin().addUserGrant({ userId: ada, projectId: id, roleKeys: ['editor'] });
      expect(await authenticateClient(kh.readModel, app.body.clientId, app.body.clientSecret)).toBe(true);

      const res = await rest('DELETE', `/management/v1/projects/${id}`);
      expect(res.status).toBe(200);
      expect((await events('project', id)).at(-1)).toMatchObject({ type: 'project.removed' });
      expect((await events('app', app.body.appId)).at(-1)).toMatchObject({ type: 'app.removed' });
      expect((await events('usergrant', userGrantId)).at(-1)).toMatchObject({ type: 'usergrant.cascade.removed' });
      expect(await authenticateClient(kh.readModel, app.body.clientId, app.body.clientSecret)).toBe(false);
      expect(await kh.readModel.projectRolesOfUser(ada, id)).toEqual([]);
      expect((await rest('GET', `/management/v1/projects/${id}`)).status).toBe(404);
      const list = await admin().listProjects({});
      expect(list.result.map((p) => p.id)).not.toContain(id);
      // Nothing can be added to it any more, and removing it again is a 404.
      const addApp = await rest('POST', `/management/v1/projects/${id}/apps/oidc`, { name: 'Late', redirectUris: ['https://a.example/cb'] });
      expect([addApp.status, restReason(addApp.body)]).toEqual([404, 'PROJECT_NOT_FOUND']);
      const again = await rpcError(admin().removeProject({ id }));
      expect([again.code, again.reason]).toEqual([Code.NotFound, 'PROJECT_NOT_FOUND']);
    });

    it('over gRPC; 401, 403, 404 for another org’s caller; nothing written', async () => {
      const id = await newProject();
      const before = (await events('project', id)).length;
      expect((await rest('DELETE', `/management/v1/projects/${id}`, undefined, { authorization: '' })).status).toBe(401);
      const denied = await rpcError(kh.client(ManagementService, 'grpc', nobody.token).removeProject({ id }));
      expect(denied.code).toBe(Code.PermissionDenied);
      const foreign = await rpcError(admin(inOrg(other)).removeProject({ id }));
      expect([foreign.code, foreign.reason]).toEqual([Code.NotFound, 'PROJECT_NOT_FOUND']);
      expect(await events('project', id)).toHaveLength(before);
      await admin().removeProject({ id });
      expect((await rpcError(admin().getProjectByID({ id }))).code).toBe(Code.NotFound);
    });

    it('an app row left behind by a request racing the removal (its check passed first) is no client', async () => {
      const id = await newProject();
      await admin().removeProject({ id });
      // The row such a race leaves: an active app of a project that is gone.
      await kh.database.sql.query({
        text: `insert into apps (id, project_id, org_id, name, name_key, client_id, state, created_at, changed_at, sequence)
               values ($1, $2, $3, 'Stray', 'stray', $1, 'active', now(), now(), 2)`,
        params: [`stray-${id}`, id, org],
      });
      expect((await kh.readModel.appByClientId(`stray-${id}`))?.state).toBe('inactive');
    });

    it('concurrent removals of one project: one succeeds, the others get 404', async () => {
      const id = await newProject(['editor']);
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => admin().removeProject({ id }).then(() => 'OK', (e) => (e as { code: Code }).code)));
      expect(outcomes.filter((o) => o === 'OK')).toHaveLength(1);
      expect(outcomes.filter((o) => o !== 'OK').every((o) => o === Code.NotFound)).toBe(true);
      expect((await events('project', id)).filter((e) => e.type === 'project.removed')).toHaveLength(1);
    });
  });
});
