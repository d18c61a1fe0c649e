// A project's login checks (projectRoleCheck, hasProjectCheck), its
// roles (AddProjectRole) and user grants (AddUserGrant) through real clients,
// with 400/401/403/404/409; and the reads the login makes of them
// (queries/login-access.ts: loginAccess, the roles claim).
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { loginAccess, rolesClaim } from '../../../src/queries/login-access.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { addOrg, bearer, inOrg, machineCaller, type MachineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
let org: string;
let other: string;
let manager: MachineCaller; // ORG_USER_MANAGER of org
let nobody: MachineCaller;
let project: string; // projectRoleCheck + hasProjectCheck
let open: string; // no checks
let ada: string; // a human of org
let bob: string; // a human of the other org

const admin = (headers = inOrg(org)) => kh.client(ManagementService, 'grpc', kh.adminToken, headers);

beforeAll(async () => {
  kh = await startTestKeyhold();
  [org, other] = await Promise.all([addOrg(kh, 'Roles org'), addOrg(kh, 'Other org')]);
  [manager, nobody] = await Promise.all([machineCaller(kh, org, 'grant-manager', ['ORG_USER_MANAGER']), machineCaller(kh, org, 'grant-nobody')]);
  ({ id: project } = await admin().addProject({ name: 'Checked', projectRoleCheck: true, hasProjectCheck: true }));
  ({ id: open } = await admin().addProject({ name: 'Open' }));
  const human = (username: string, orgId: string) => ({ username, organization: { orgId }, profile: { givenName: 'G', familyName: 'F' }, email: { email: `${username}@example.com` } });
  ({ userId: ada } = await kh.client(UserService).addHumanUser(human('ada-roles', org)));
  ({ userId: bob } = await kh.client(UserService).addHumanUser(human('bob-roles', other)));
});
afterAll(async () => kh?.close());

describe('AddProject with login checks', () => {
  it('the flags are stored and returned by GetProjectByID (REST and gRPC); absent → false', async () => {
    const got = await admin().getProjectByID({ id: project });
    expect([got.project?.projectRoleCheck, got.project?.hasProjectCheck]).toEqual([true, true]);
    const rest = await kh.rest('GET', `/management/v1/projects/${open}`, undefined, inOrg(org));
    expect(rest.status).toBe(200);
    expect(rest.body.project.projectRoleCheck ?? false).toBe(false);
    const created = await kh.rest('POST', '/management/v1/projects', { name: 'Rest flags', hasProjectCheck: true }, inOrg(org));
    const back = await kh.rest('GET', `/management/v1/projects/${created.body.id}`, undefined, inOrg(org));
    expect([back.body.project.hasProjectCheck, back.body.project.projectRoleCheck ?? false]).toEqual([true, false]);
  });
});

describe('AddProjectRole', () => {
  it('adds roles (REST and gRPC); the same key again → 409 ROLE_KEY_TAKEN', async () => {
    const res = await kh.rest('POST', `/management/v1/projects/${project}/roles`, { roleKey: 'editor', displayName: 'Editor', group: 'content' }, inOrg(org));
    expect(res.status).toBe(200);
    expect(res.body.details.resourceOwner).toBe(org);
    await admin().addProjectRole({ projectId: project, roleKey: 'viewer', displayName: 'Viewer' });
    await admin().addProjectRole({ projectId: open, roleKey: 'viewer', displayName: 'Viewer' });
    const again = await rpcError(admin().addProjectRole({ projectId: project, roleKey: 'editor', displayName: 'Other' }));
    expect([again.code, again.reason]).toEqual([Code.AlreadyExists, 'ROLE_KEY_TAKEN']);
  });

  it('400 bad key or no display name; 401; 403 without project.role.write; 404 another org’s project', async () => {
    const bad = await kh.rest('POST', `/management/v1/projects/${project}/roles`, { roleKey: 'has space', displayName: '' }, inOrg(org));
    expect([bad.status, restReason(bad.body), restFields(bad.body)]).toEqual([400, 'INVALID_REQUEST', ['roleKey', 'displayName']]);
    const anon = await kh.rest('POST', `/management/v1/projects/${project}/roles`, { roleKey: 'x', displayName: 'X' }, { authorization: '' });
    expect(anon.status).toBe(401);
    const denied = await kh.rest('POST', `/management/v1/projects/${project}/roles`, { roleKey: 'x', displayName: 'X' }, bearer(manager.token));
    expect([denied.status, restReason(denied.body)]).toEqual([403, 'PERMISSION_DENIED']);
    const foreign = await rpcError(admin(inOrg(other)).addProjectRole({ projectId: project, roleKey: 'x', displayName: 'X' }));
    expect([foreign.code, foreign.reason]).toEqual([Code.NotFound, 'PROJECT_NOT_FOUND']);
  });
});

describe('AddUserGrant', () => {
  it('an ORG_USER_MANAGER grants roles of the org’s project (REST); the login sees them in ZITADEL’s claim shape', async () => {
    expect(await loginAccess(kh.readModel, ada, project)).toEqual({ allowed: false, failed: 'projectRoleCheck' });
    const res = await kh.rest('POST', `/management/v1/users/${ada}/grants`, { projectId: project, roleKeys: ['editor', 'viewer'] }, bearer(manager.token));
    expect(res.status).toBe(200);
    expect(res.body.userGrantId).toBeTruthy();
    const access = await loginAccess(kh.readModel, ada, project);
    expect(access.allowed).toBe(true);
    expect(access.allowed && rolesClaim(access.roles)).toEqual({ editor: { [org]: 'Roles org' }, viewer: { [org]: 'Roles org' } });
    // No checks on the open project: anyone of any org logs in, with no roles.
    expect(await loginAccess(kh.readModel, bob, open)).toEqual({ allowed: true, roles: [] });
  });

  it('hasProjectCheck: a user of another org is refused even with a grant', async () => {
    await admin().addUserGrant({ userId: bob, projectId: project, roleKeys: ['viewer'] }).catch(() => undefined);
    expect(await loginAccess(kh.readModel, bob, project)).toEqual({ allowed: false, failed: 'hasProjectCheck' });
  });

  it('a second grant for the same user and project → 409 USER_GRANT_EXISTS', async () => {
    const err = await rpcError(admin().addUserGrant({ userId: ada, projectId: project, roleKeys: ['viewer'] }));
    expect([err.code, err.reason]).toEqual([Code.AlreadyExists, 'USER_GRANT_EXISTS']);
  });

  it('400 unknown role (named by its index) or none; 401; 403 without user.grant.write; 404 unknown user or another org’s project', async () => {
    const { userId } = await kh.client(UserService).addHumanUser({ username: 'carol-roles', organization: { orgId: org }, profile: { givenName: 'C', familyName: 'R' }, email: { email: 'c@example.com' } });
    const unknown = await kh.rest('POST', `/management/v1/users/${userId}/grants`, { projectId: project, roleKeys: ['viewer', 'owner'] }, inOrg(org));
    expect([unknown.status, restReason(unknown.body), restFields(unknown.body)]).toEqual([400, 'INVALID_REQUEST', ['roleKeys[1]']]);
    const none = await kh.rest('POST', `/management/v1/users/${userId}/grants`, { projectId: project, roleKeys: [] }, inOrg(org));
    expect([none.status, restFields(none.body)]).toEqual([400, ['roleKeys']]);
    const anon = await kh.rest('POST', `/management/v1/users/${userId}/grants`, { projectId: project, roleKeys: ['viewer'] }, { authorization: '' });
    expect(anon.status).toBe(401);
    const denied = await rpcError(kh.client(ManagementService, 'grpc', nobody.token).addUserGrant({ userId, projectId: project, roleKeys: ['viewer'] }));
    expect([denied.code, denied.reason]).toEqual([Code.PermissionDenied, 'PERMISSION_DENIED']);
    const noUser = await rpcError(admin().addUserGrant({ userId: 'nosuchuser', projectId: project, roleKeys: ['viewer'] }));
    expect([noUser.code, noUser.reason]).toEqual([Code.NotFound, 'USER_NOT_FOUND']);
    const foreign = await rpcError(admin(inOrg(other)).addUserGrant({ userId, projectId: project, roleKeys: ['viewer'] }));
    expect([foreign.code, foreign.reason]).toEqual([Code.NotFound, 'PROJECT_NOT_FOUND']);
    expect(await loginAccess(kh.readModel, userId, project)).toEqual({ allowed: false, failed: 'projectRoleCheck' });
  });
});
