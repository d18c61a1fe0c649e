// Project grants through real clients on PGlite and (with TEST_DATABASE_URL)
// PostgreSQL: AddProjectGrant, ListProjectGrants, GetProjectGrantByID,
// ListGrantedProjects, UpdateProjectGrant, Deactivate/ReactivateProjectGrant,
// RemoveProjectGrant over REST and gRPC with their 400/401/403/404/409
// answers (a failed precondition is REST 400); the granted org's user grants, bounded by the project grant's roles
// and following it (narrowed, removed); RemoveProjectRole taking the role from
// project grants; racing adds (one wins) and a removal racing user grant adds
// (no user grant survives it).
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { ProjectGrantState } from '../../../gen/keyhold/management/v1/project_grants_pb.js';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import { reasonOrOk, restFields, restReason, rpcError } from '../../support/errors.js';
import { addOrg, bearer, inOrg, machineCaller, type MachineCaller } from '../../support/identity.js';
import { MAX_CASCADE } from '../../../src/commands/projects/cascade-bound.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

announcePostgresSkip('project grants on PostgreSQL');
const backends = [{ backend: 'PGlite', postgres: false }, ...(postgresAvailable ? [{ backend: 'PostgreSQL', postgres: true }] : [])];

describe.each(backends)('project grants on $backend', ({ postgres }) => {
  let kh: TestKeyhold;
  let owner: string; // owns the projects
  let partner: string; // is granted them
  let dormant: string; // deactivated
  let ownerAdmin: MachineCaller; // ORG_OWNER of owner
  let projectOwner: MachineCaller; // PROJECT_OWNER of `project`
  let partnerAdmin: MachineCaller; // ORG_OWNER of partner
  let project: string;
  let n = 0;

  const admin = (org = owner) => kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(org));
  const as = (caller: MachineCaller, headers?: Record<string, string>) => kh.client(ManagementService, 'grpc', caller.token, headers);
  const grants = (projectId: string) => `/management/v1/projects/${projectId}/grants`;

  async function newProject(roles = ['reader', 'writer', 'admin']): Promise<string> {
    const { id } = await admin().addProject({ name: `Lent ${++n}` });
    for (const roleKey of roles) await admin().addProjectRole({ projectId: id, roleKey, displayName: roleKey });
    return id;
  }
  async function partnerUser(): Promise<string> {
    const username = `partner-${postgres}-${++n}`;
    const { userId } = await kh.client(UserService).addHumanUser({ username, organization: { orgId: partner }, profile: { givenName: 'P', familyName: 'U' }, email: { email: `${username}@example.com` } });
    return userId;
  }
  /** The partner's user grants on the project, as its admin lists them: [userId, roleKeys, projectGrantId]. */
  async function partnerGrants(projectId: string) {
    const listed = await as(partnerAdmin).listUserGrants({ queries: [{ query: { case: 'projectIdQuery', value: { projectId } } }] });
    return listed.result.map((g) => [g.userId, g.roleKeys, g.projectGrantId]);
  }
  const rowsOf = async (projectId: string) =>
    Number((await kh.database.sql.query<{ n: number | string }>({ text: 'select count(*) as n from user_grants where project_id = $1', params: [projectId] }))[0]!.n);

  beforeAll(async () => {
    kh = await startTestKeyhold({ postgres });
    [owner, partner, dormant] = await Promise.all([addOrg(kh, 'Owner'), addOrg(kh, 'Partner'), addOrg(kh, 'Dormant')]);
    await admin(dormant).deactivateOrg({});
    [ownerAdmin, partnerAdmin, projectOwner] = await Promise.all([
      machineCaller(kh, owner, 'pg-owner', ['ORG_OWNER']),
      machineCaller(kh, partner, 'pg-partner', ['ORG_OWNER']),
      machineCaller(kh, owner, 'pg-project-owner'),
    ]);
    project = await newProject();
    await admin().addProjectMember({ projectId: project, userId: projectOwner.userId, roles: ['PROJECT_OWNER'] });
  }, 60_000);
  afterAll(async () => kh?.close());

  it('AddProjectGrant (REST, ZITADEL’s shape): listed, got by id, and among the partner’s granted projects', async () => {
    const added = await kh.rest('POST', grants(project), { grantedOrgId: partner, roleKeys: ['reader', 'writer'] }, bearer(ownerAdmin.token));
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const { grantId } = added.body;
    expect(added.body.details.resourceOwner).toBe(owner);

    const listed = await kh.rest('POST', `${grants(project)}/_search`, { queries: [{ roleKeyQuery: { roleKey: 'writer' } }] }, bearer(projectOwner.token));
    expect(listed.status).toBe(200);
    expect(listed.body.details.totalResult).toBe('1');
    expect(listed.body.result[0]).toMatchObject({
      grantId,
      grantedOrgId: partner,
      grantedOrgName: 'Partner',
      grantedRoleKeys: ['reader', 'writer'],
      state: 'PROJECT_GRANT_STATE_ACTIVE',
      projectId: project,
      projectOwnerId: owner,
      projectOwnerName: 'Owner',
    });
    const got = await as(ownerAdmin).getProjectGrantByID({ projectId: project, grantId });
    expect([got.projectGrant?.grantId, got.projectGrant?.state]).toEqual([grantId, ProjectGrantState.ACTIVE]);
    const theirs = await as(partnerAdmin).listGrantedProjects({});
    expect(theirs.result.map((g) => [g.projectId, g.grantedRoleKeys])).toEqual([[project, ['reader', 'writer']]]);
    // ZITADEL's REST shape, by project name.
    const byName = async (name: string) =>
      (await kh.rest('POST', '/management/v1/granted_projects/_search', { queries: [{ nameQuery: { name, method: 'TEXT_QUERY_METHOD_STARTS_WITH' } }] }, bearer(partnerAdmin.token))).body;
    expect((await byName('Lent')).result.map((g: any) => g.grantId)).toEqual([grantId]);
    expect((await byName('Other')).result ?? []).toEqual([]);
    // The owner's own granted projects: none.
    expect((await as(ownerAdmin).listGrantedProjects({})).result).toEqual([]);
  });

  it('refusals change nothing: 400 naming the field, 401, 403, 404, 409', async () => {
    const projectId = await newProject();
    const post = (body: unknown, headers = bearer(ownerAdmin.token), id = projectId) => kh.rest('POST', grants(id), body, headers);
    const fields = async (body: unknown) => {
      const res = await post(body);
      return [res.status, ...restFields(res.body)];
    };
    expect(await fields({ grantedOrgId: owner, roleKeys: ['reader'] })).toEqual([400, 'grantedOrgId']);
    expect(await fields({ grantedOrgId: '01nosuchorg', roleKeys: ['reader'] })).toEqual([400, 'grantedOrgId']);
    expect(await fields({ grantedOrgId: dormant, roleKeys: ['reader'] })).toEqual([400, 'grantedOrgId']);
    expect(await fields({ grantedOrgId: partner, roleKeys: ['reader', 'nope'] })).toEqual([400, 'roleKeys[1]']);
    expect(await fields({ grantedOrgId: partner, roleKeys: [] })).toEqual([400, 'roleKeys']);
    expect((await post({ grantedOrgId: partner, roleKeys: ['reader'] }, { authorization: '' })).status).toBe(401);
    // A PROJECT_OWNER does not lend a project out of its org (gRPC: PERMISSION_DENIED).
    expect(await rpcError(as(projectOwner).addProjectGrant({ projectId: project, grantedOrgId: partner, roleKeys: ['reader'] }))).toMatchObject({ code: Code.PermissionDenied });
    // The partner's admin: the project is not in its org (404), nor may it act in the owner's (403).
    expect(restReason((await post({ grantedOrgId: partner, roleKeys: ['reader'] }, bearer(partnerAdmin.token))).body)).toBe('PROJECT_NOT_FOUND');
    expect((await post({ grantedOrgId: partner, roleKeys: ['reader'] }, bearer(partnerAdmin.token, inOrg(owner)))).status).toBe(403);
    expect((await post({ grantedOrgId: partner, roleKeys: ['reader'] }, bearer(ownerAdmin.token), '01nosuchproject')).status).toBe(404);
    expect((await as(ownerAdmin).listProjectGrants({ projectId })).result).toEqual([]);

    expect((await post({ grantedOrgId: partner, roleKeys: ['reader'] })).status).toBe(200);
    const again = await rpcError(as(ownerAdmin).addProjectGrant({ projectId, grantedOrgId: partner, roleKeys: ['writer'] }));
    expect([again.code, again.reason]).toEqual([Code.AlreadyExists, 'PROJECT_GRANT_EXISTS']);
    const [grant] = (await as(ownerAdmin).listProjectGrants({ projectId })).result;
    expect(grant?.grantedRoleKeys).toEqual(['reader']);

    // On the grant: an unknown one is 404, deactivating twice FAILED_PRECONDITION, roles outside the project 400.
    expect((await rpcError(as(ownerAdmin).getProjectGrantByID({ projectId, grantId: '01nosuchgrant' }))).reason).toBe('PROJECT_GRANT_NOT_FOUND');
    expect((await rpcError(as(ownerAdmin).removeProjectGrant({ projectId, grantId: '01nosuchgrant' }))).code).toBe(Code.NotFound);
    await as(ownerAdmin).deactivateProjectGrant({ projectId, grantId: grant!.grantId });
    expect((await rpcError(as(ownerAdmin).deactivateProjectGrant({ projectId, grantId: grant!.grantId }))).code).toBe(Code.FailedPrecondition);
    const upd = await kh.rest('PUT', `${grants(projectId)}/${grant!.grantId}`, { roleKeys: ['ghost'] }, bearer(ownerAdmin.token));
    expect([upd.status, ...restFields(upd.body)]).toEqual([400, 'roleKeys[0]']);
    // The partner's admin cannot change the grant it was given.
    expect((await rpcError(as(partnerAdmin).removeProjectGrant({ projectId, grantId: grant!.grantId }))).code).toBe(Code.NotFound);
  });

  it('the partner’s admin grants its own users the granted roles only; narrowing and RemoveProjectRole take roles from them; removal takes the grants', async () => {
    const projectId = await newProject();
    const { grantId } = await as(ownerAdmin).addProjectGrant({ projectId, grantedOrgId: partner, roleKeys: ['reader', 'writer'] });
    const [ada, bob] = [await partnerUser(), await partnerUser()];
    const grantAs = (roleKeys: string[], userId = ada) => as(partnerAdmin).addUserGrant({ userId, projectId, roleKeys });

    // Containment: nobody grants more than the project grant gives (400 at the key).
    const beyond = await rpcError(grantAs(['reader', 'admin']));
    expect([beyond.code, beyond.fields]).toEqual([Code.InvalidArgument, ['roleKeys[1]']]);
    // A user of another org (the owner's admin) is not the partner's to grant.
    expect((await rpcError(as(partnerAdmin).addUserGrant({ userId: ownerAdmin.userId, projectId, roleKeys: ['reader'] }))).code).toBe(Code.NotFound);
    // A projectGrantId that is not the partner's grant: 404.
    expect((await rpcError(as(partnerAdmin).addUserGrant({ userId: ada, projectId, projectGrantId: '01nosuchgrant', roleKeys: ['reader'] }))).reason).toBe('PROJECT_GRANT_NOT_FOUND');

    const { userGrantId } = await grantAs(['reader', 'writer']);
    await as(partnerAdmin).addUserGrant({ userId: bob, projectId, projectGrantId: grantId, roleKeys: ['writer'] });
    expect(await partnerGrants(projectId)).toEqual(expect.arrayContaining([[ada, ['reader', 'writer'], grantId], [bob, ['writer'], grantId]]));
    // The owner org lists its own user grants: not the partner's.
    expect((await admin().listUserGrants({ queries: [{ query: { case: 'projectIdQuery', value: { projectId } } }] })).result).toEqual([]);
    // UpdateUserGrant beyond the project grant: 400.
    expect((await rpcError(as(partnerAdmin).updateUserGrant({ userId: ada, grantId: userGrantId, roleKeys: ['admin'] }))).fields).toEqual(['roleKeys[0]']);

    // UpdateProjectGrant drops writer: both user grants lose it in the same step.
    await kh.rest('PUT', `${grants(projectId)}/${grantId}`, { roleKeys: ['reader', 'admin'] }, bearer(ownerAdmin.token));
    expect(await partnerGrants(projectId)).toEqual(expect.arrayContaining([[ada, ['reader'], grantId], [bob, [], grantId]]));
    // RemoveProjectRole reader: gone from the project grant and the user grants.
    await admin().removeProjectRole({ projectId, roleKey: 'reader' });
    expect((await as(ownerAdmin).getProjectGrantByID({ projectId, grantId })).projectGrant?.grantedRoleKeys).toEqual(['admin']);
    expect(await partnerGrants(projectId)).toEqual(expect.arrayContaining([[ada, [], grantId], [bob, [], grantId]]));

    // A deactivated project grant: no new user grant under it (FAILED_PRECONDITION, REST 400).
    await as(ownerAdmin).deactivateProjectGrant({ projectId, grantId });
    const carol = await partnerUser();
    expect((await rpcError(grantAs(['admin'], carol))).reason).toBe('PROJECT_GRANT_NOT_ACTIVE');
    await as(ownerAdmin).reactivateProjectGrant({ projectId, grantId });

    // RemoveProjectGrant: the partner's user grants on the project go with it.
    const removed = await kh.rest('DELETE', `${grants(projectId)}/${grantId}`, undefined, bearer(ownerAdmin.token));
    expect(removed.status).toBe(200);
    expect(await partnerGrants(projectId)).toEqual([]);
    expect(await rowsOf(projectId)).toBe(0);
    expect((await as(partnerAdmin).listGrantedProjects({})).result.map((g) => g.projectId)).not.toContain(projectId);
    // Without the grant, the project is not the partner's to grant at all.
    expect((await rpcError(grantAs(['admin']))).reason).toBe('PROJECT_NOT_FOUND');
  });

  it('user grant adds racing a narrowing UpdateProjectGrant, then RemoveProjectRole of another role: no user grant holds the dropped role, in the list or in tokens (8 adds, 6 rounds)', async () => {
    const users = await Promise.all(Array.from({ length: 8 }, () => partnerUser()));
    for (let round = 0; round < 6; round++) {
      const projectId = await newProject(['reader', 'writer', 'admin']);
      const { grantId } = await as(ownerAdmin).addProjectGrant({ projectId, grantedOrgId: partner, roleKeys: ['reader', 'writer', 'admin'] });
      // The narrowing starts among the adds, which are staggered over its few milliseconds.
      const narrowing = new Promise((r) => setTimeout(r, 2)).then(() => as(ownerAdmin).updateProjectGrant({ projectId, grantId, roleKeys: ['reader', 'admin'] }));
      const adds = users.map(async (userId, i) => {
        await new Promise((r) => setTimeout(r, i / 2));
        return reasonOrOk(as(partnerAdmin).addUserGrant({ userId, projectId, roleKeys: ['reader', 'writer', 'admin'] }));
      });
      const outcomes = await Promise.all(adds);
      await narrowing;
      // Adds decided after the narrowing are refused at the key; those before or during it go through.
      expect(outcomes.every((o) => o === 'OK' || o === 'INVALID_REQUEST'), outcomes.join()).toBe(true);
      await admin().removeProjectRole({ projectId, roleKey: 'admin' });
      for (const [userId, roleKeys] of await partnerGrants(projectId)) {
        expect(roleKeys, `round ${round}, ${String(userId)}`).not.toContain('writer');
        expect(roleKeys).not.toContain('admin');
      }
      for (const userId of users) {
        const roles = (await kh.readModel.projectRolesOfUser(userId, projectId)).map((r) => r.roleKey);
        expect(roles.filter((k) => k !== 'reader'), `round ${round}`).toEqual([]);
      }
    }
  });

  it('tokens name only roles the project grant still holds, whatever a user grant\u2019s row says', async () => {
    const projectId = await newProject(['reader', 'writer']);
    const { grantId } = await as(ownerAdmin).addProjectGrant({ projectId, grantedOrgId: partner, roleKeys: ['reader'] });
    const userId = await partnerUser();
    await as(partnerAdmin).addUserGrant({ userId, projectId, projectGrantId: grantId, roleKeys: ['reader'] });
    // A row that names more than its project grant (as a projection bug or a hand edit would leave it).
    await kh.database.sql.query({ text: `update user_grants set role_keys = array['reader', 'writer'] where user_id = $1 and project_id = $2`, params: [userId, projectId] });
    expect((await kh.readModel.projectRolesOfUser(userId, projectId)).map((r) => r.roleKey)).toEqual(['reader']);
  });

  it(`more than ${MAX_CASCADE} user grants under a project grant: UpdateProjectGrant narrows them all and RemoveProjectGrant removes them all, in one step each`, async () => {
    const projectId = await newProject(['reader', 'writer']);
    const { grantId } = await as(ownerAdmin).addProjectGrant({ projectId, grantedOrgId: partner, roleKeys: ['reader', 'writer'] });
    const userId = await partnerUser();
    const { userGrantId } = await as(partnerAdmin).addUserGrant({ userId, projectId, roleKeys: ['reader', 'writer'] });
    // The other rows as many AddUserGrants would leave them (written directly: 5,000 calls would take minutes).
    await kh.database.sql.query({
      text: `insert into user_grants (id, user_id, project_id, org_id, role_keys, state, project_grant_id, created_at, changed_at, sequence)
             select 'bulk-' || $1 || '-' || i, 'bulk-user-' || i, $1, $2, array['reader', 'writer'], 'active', $3, now(), now(), 1
             from generate_series(1, $4::int) as i`,
      params: [projectId, partner, grantId, MAX_CASCADE],
    });
    expect(await rowsOf(projectId)).toBe(MAX_CASCADE + 1);

    const narrowed = await kh.rest('PUT', `${grants(projectId)}/${grantId}`, { roleKeys: ['reader'] }, bearer(ownerAdmin.token));
    expect(narrowed.status, JSON.stringify(narrowed.body)).toBe(200);
    const holdingWriter = await kh.database.sql.query<{ n: number | string }>({ text: `select count(*) as n from user_grants where project_id = $1 and 'writer' = any(role_keys)`, params: [projectId] });
    expect(Number(holdingWriter[0]!.n)).toBe(0);
    const [listed] = (await as(partnerAdmin).listUserGrants({ queries: [{ query: { case: 'userIdQuery', value: { userId } } }] })).result.filter((g) => g.projectId === projectId);
    expect([listed?.roleKeys, listed?.projectGrantId]).toEqual([['reader'], grantId]);
    expect((await kh.readModel.projectRolesOfUser(userId, projectId)).map((r) => r.roleKey)).toEqual(['reader']);

    const removed = await kh.rest('DELETE', `${grants(projectId)}/${grantId}`, undefined, bearer(ownerAdmin.token));
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(await rowsOf(projectId)).toBe(0);
    expect(await kh.readModel.projectRolesOfUser(userId, projectId)).toEqual([]);
    // The user grant went with it: every change of it is 404, as for one that never existed.
    const ref = { userId, grantId: userGrantId };
    for (const change of [
      () => as(partnerAdmin).updateUserGrant({ ...ref, roleKeys: ['reader'] }),
      () => as(partnerAdmin).deactivateUserGrant(ref),
      () => as(partnerAdmin).reactivateUserGrant(ref),
      () => as(partnerAdmin).removeUserGrant(ref),
    ]) {
      expect(await reasonOrOk(change())).toBe('USER_GRANT_NOT_FOUND');
    }
    // Granted again, the project takes a new user grant for the user (the old one does not count).
    await as(ownerAdmin).addProjectGrant({ projectId, grantedOrgId: partner, roleKeys: ['reader'] });
    expect(await reasonOrOk(as(partnerAdmin).deactivateUserGrant(ref))).toBe('USER_GRANT_NOT_FOUND');
    await as(partnerAdmin).addUserGrant({ userId, projectId, roleKeys: ['reader'] });
    expect((await kh.readModel.projectRolesOfUser(userId, projectId)).map((r) => r.roleKey)).toEqual(['reader']);
  }, 60_000);

  it('racing AddProjectGrants for one project and org: one wins, the others get 409 (8 at once, 3 rounds)', async () => {
    for (let round = 0; round < 3; round++) {
      const projectId = await newProject(['reader']);
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => reasonOrOk(as(ownerAdmin).addProjectGrant({ projectId, grantedOrgId: partner, roleKeys: ['reader'] }))));
      expect(outcomes.filter((o) => o === 'OK')).toHaveLength(1);
      expect(outcomes.filter((o) => o !== 'OK')).toEqual(Array(7).fill('PROJECT_GRANT_EXISTS'));
      expect((await as(ownerAdmin).listProjectGrants({ projectId })).details?.totalResult).toBe(1n);
    }
  });

  it('RemoveProjectGrant racing user grant adds under it leaves no user grant (8 adds racing it, 4 rounds)', async () => {
    const users = await Promise.all(Array.from({ length: 10 }, () => partnerUser()));
    const seen: string[] = [];
    for (let round = 0; round < 4; round++) {
      const projectId = await newProject(['reader']);
      const { grantId } = await as(ownerAdmin).addProjectGrant({ projectId, grantedOrgId: partner, roleKeys: ['reader'] });
      // A few land before the removal is decided, the rest race it.
      await Promise.all(users.slice(0, 2).map((userId) => as(partnerAdmin).addUserGrant({ userId, projectId, roleKeys: ['reader'] })));
      // The removal and the adds start in one tick; the adds are staggered over the removal's few milliseconds.
      const removal = as(ownerAdmin).removeProjectGrant({ projectId, grantId });
      const adds = users.slice(2).map(async (userId, i) => {
        await new Promise((r) => setTimeout(r, i));
        return reasonOrOk(as(partnerAdmin).addUserGrant({ userId, projectId, roleKeys: ['reader'] }));
      });
      const outcomes = await Promise.all(adds);
      await removal;
      seen.push(...outcomes);
      // Each add either went through or found the grant gone; none leaves a user grant behind.
      expect(outcomes.every((o) => o === 'OK' || o === 'PROJECT_NOT_FOUND'), outcomes.join()).toBe(true);
      expect(await partnerGrants(projectId)).toEqual([]);
      expect(await rowsOf(projectId)).toBe(0);
    }
    // PGlite runs one statement at a time: there the adds after the removal meet a grant already gone.
    expect(seen.length).toBe(32);
  });

  it('only the granted org\u2019s admins change its user grants: a PROJECT_OWNER of the project is 403 there, whatever role it holds in that org', async () => {
    const projectId = await newProject(['reader', 'writer']);
    await admin().addProjectMember({ projectId, userId: projectOwner.userId, roles: ['PROJECT_OWNER'] });
    const { grantId } = await as(ownerAdmin).addProjectGrant({ projectId, grantedOrgId: partner, roleKeys: ['reader', 'writer'] });
    const [userId, other] = [await partnerUser(), await partnerUser()];
    const { userGrantId } = await as(partnerAdmin).addUserGrant({ userId, projectId, roleKeys: ['reader'] });
    // A viewer in the partner org may act in its context; its project role must not reach the partner's grants.
    await admin(partner).addOrgMember({ userId: projectOwner.userId, roles: ['ORG_OWNER_VIEWER'] });
    try {
      const intruder = as(projectOwner, inOrg(partner));
      const ref = { userId, grantId: userGrantId };
      for (const change of [
        () => intruder.addUserGrant({ userId: other, projectId, roleKeys: ['reader'] }),
        () => intruder.updateUserGrant({ ...ref, roleKeys: ['reader', 'writer'] }),
        () => intruder.deactivateUserGrant(ref),
        () => intruder.reactivateUserGrant(ref),
        () => intruder.removeUserGrant(ref),
      ]) {
        expect(await reasonOrOk(change())).toBe('PERMISSION_DENIED');
      }
      const rest = await kh.rest('PUT', `/management/v1/users/${userId}/grants/${userGrantId}`, { roleKeys: ['writer'] }, { ...bearer(projectOwner.token), ...inOrg(partner) });
      expect([rest.status, restReason(rest.body)]).toEqual([403, 'PERMISSION_DENIED']);
      expect(await partnerGrants(projectId)).toEqual([[userId, ['reader'], grantId]]);
      // The partner's own ORG_OWNER can.
      await as(partnerAdmin).updateUserGrant({ ...ref, roleKeys: ['reader', 'writer'] });
      expect(await partnerGrants(projectId)).toEqual([[userId, ['reader', 'writer'], grantId]]);
    } finally {
      await admin(partner).removeOrgMember({ userId: projectOwner.userId });
    }
  });

  it('the project grant of a removed org is 404 to every change, as one that never existed', async () => {
    const projectId = await newProject(['reader', 'writer']);
    const goneOrg = await addOrg(kh, `Gone ${postgres}`);
    const { grantId } = await as(ownerAdmin).addProjectGrant({ projectId, grantedOrgId: goneOrg, roleKeys: ['reader'] });
    await admin(goneOrg).removeOrg({});
    const ref = { projectId, grantId };
    for (const change of [
      () => as(ownerAdmin).updateProjectGrant({ ...ref, roleKeys: ['reader', 'writer'] }),
      () => as(ownerAdmin).deactivateProjectGrant(ref),
      () => as(ownerAdmin).reactivateProjectGrant(ref),
      () => as(ownerAdmin).removeProjectGrant(ref),
    ]) {
      expect(await reasonOrOk(change())).toBe('PROJECT_GRANT_NOT_FOUND');
    }
    const rest = await kh.rest('PUT', `${grants(projectId)}/${grantId}`, { roleKeys: ['writer'] }, bearer(ownerAdmin.token));
    expect([rest.status, restReason(rest.body)]).toEqual([404, 'PROJECT_GRANT_NOT_FOUND']);
    expect((await as(ownerAdmin).listProjectGrants({ projectId })).result).toEqual([]);
  });

  it('a deactivated project grant gives no role in tokens and takes no user grant (400 FAILED_PRECONDITION over REST); reactivated, the roles count again', async () => {
    const projectId = await newProject(['reader']);
    const { grantId } = await as(ownerAdmin).addProjectGrant({ projectId, grantedOrgId: partner, roleKeys: ['reader'] });
    const [userId, other] = [await partnerUser(), await partnerUser()];
    await as(partnerAdmin).addUserGrant({ userId, projectId, roleKeys: ['reader'] });
    const roles = async () => (await kh.readModel.projectRolesOfUser(userId, projectId)).map((r) => r.roleKey);
    expect(await roles()).toEqual(['reader']);

    await as(ownerAdmin).deactivateProjectGrant({ projectId, grantId });
    expect(await roles()).toEqual([]);
    // The user grant itself is kept (listed, active); only the project grant's state takes its roles.
    expect(await partnerGrants(projectId)).toEqual([[userId, ['reader'], grantId]]);
    const refused = await kh.rest('POST', `/management/v1/users/${other}/grants`, { projectId, roleKeys: ['reader'] }, bearer(partnerAdmin.token));
    expect([refused.status, restReason(refused.body)]).toEqual([400, 'PROJECT_GRANT_NOT_ACTIVE']);
    expect((await rpcError(as(partnerAdmin).addUserGrant({ userId: other, projectId, roleKeys: ['reader'] }))).code).toBe(Code.FailedPrecondition);

    await as(ownerAdmin).reactivateProjectGrant({ projectId, grantId });
    expect(await roles()).toEqual(['reader']);
  });
});
