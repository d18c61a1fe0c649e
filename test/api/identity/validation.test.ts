// Bad requests of the identity RPCs: 400 with a BadRequest naming every bad
// field, 404 for unknown users, 409 for taken usernames and user ids — over REST
// and gRPC, against one started Keyhold.
import { Code } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addOrg, bearer, inOrg, machineCaller } from '../../support/identity.js';

let kh: TestKeyhold;
let org: string;
let otherOrg: string;
let project: string;
const unknownUser = '01nosuchusernosuchusernosu';

const mgmt = (headers?: Record<string, string>) => kh.client(ManagementService, 'grpc', kh.adminToken, headers);
const users = () => kh.client(UserService, 'grpc');

beforeAll(async () => {
  kh = await startTestKeyhold();
  [org, otherOrg] = await Promise.all([addOrg(kh, 'Validation'), addOrg(kh, 'Other')]);
  project = (await mgmt(inOrg(org)).addProject({ name: 'Validation project' })).id;
});
afterAll(async () => kh?.close());

describe('400 INVALID_REQUEST names every bad field', () => {
  it('AddProject with an empty or blank name', async () => {
    const res = await kh.rest('POST', '/management/v1/projects', { name: '' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(3);
    expect(restReason(res.body)).toBe('INVALID_REQUEST');
    expect(restFields(res.body)).toEqual(['name']);
    const err = await rpcError(mgmt().addProject({ name: '   ' }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.fields).toEqual(['name']);
    expect(err.violations[0].description).toBe('must not be empty');
  });

  it('AddProject with a name over 200 characters', async () => {
    const res = await kh.rest('POST', '/management/v1/projects', { name: 'p'.repeat(201) });
    expect(res.status).toBe(400);
    expect(restFields(res.body)).toEqual(['name']);
  });

  it('AddMachineUser reports userName, name and description at once', async () => {
    const body = { userName: ' ', name: '', description: 'd'.repeat(501) };
    const res = await kh.rest('POST', '/management/v1/users/machine', body, inOrg(org));
    expect(res.status).toBe(400);
    expect(restFields(res.body).sort()).toEqual(['description', 'name', 'userName']);
    const err = await rpcError(mgmt(inOrg(org)).addMachineUser(body));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.fields.sort()).toEqual(['description', 'name', 'userName']);
    // The localized description follows Accept-Language per field.
    const de = await kh.rest('POST', '/management/v1/users/machine', body, { ...inOrg(org), 'accept-language': 'de' });
    const violations = de.body.details.find((d: any) => d.fieldViolations).fieldViolations;
    expect(violations.find((v: any) => v.field === 'name').description).toBe('darf nicht leer sein');
  });

  it('AddOrgMember with an unknown role, and with a project-only role, names the role entries', async () => {
    const { userId } = await mgmt(inOrg(org)).addMachineUser({ userName: 'member-to-be', name: 'M' });
    const res = await kh.rest('POST', '/management/v1/orgs/me/members', { userId, roles: ['ORG_OWNER', 'SUPER_ADMIN'] }, inOrg(org));
    expect(res.status).toBe(400);
    expect(restFields(res.body)).toEqual(['roles[1]']);
    const err = await rpcError(mgmt(inOrg(org)).addOrgMember({ userId, roles: ['PROJECT_OWNER'] }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.fields).toEqual(['roles[0]']);
    expect(err.violations[0].description).toMatch(/ORG_OWNER/);
    const none = await rpcError(mgmt(inOrg(org)).addOrgMember({ userId, roles: [] }));
    expect(none.fields).toEqual(['roles']);
    // And with userId empty too, both are reported.
    const both = await kh.rest('POST', '/management/v1/orgs/me/members', { userId: '', roles: ['NOPE'] }, inOrg(org));
    expect(restFields(both.body).sort()).toEqual(['roles[0]', 'userId']);
    // Nothing was granted by the refused calls.
    const me = await kh.rest('GET', `/v2/users/${userId}`);
    expect(me.status).toBe(200);
  });

  it('AddProjectMember with an unknown role', async () => {
    const { userId } = await mgmt(inOrg(org)).addMachineUser({ userName: 'pm-to-be', name: 'P' });
    const res = await kh.rest('POST', `/management/v1/projects/${project}/members`, { userId, roles: ['ORG_OWNER'] }, inOrg(org));
    expect(res.status).toBe(400);
    expect(restFields(res.body)).toEqual(['roles[0]']);
  });

  it('AddPersonalAccessToken with an expiration in the past', async () => {
    const { userId } = await mgmt(inOrg(org)).addMachineUser({ userName: 'pat-holder', name: 'P' });
    const past = new Date(Date.now() - 60_000);
    const res = await kh.rest('POST', `/management/v1/users/${userId}/pats`, { expirationDate: past.toISOString() }, inOrg(org));
    expect(res.status).toBe(400);
    expect(restFields(res.body)).toEqual(['expirationDate']);
    const err = await rpcError(mgmt(inOrg(org)).addPersonalAccessToken({ userId, expirationDate: timestampFromDate(past) }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.fields).toEqual(['expirationDate']);
    expect(err.violations[0].description).toBe('must be in the future');
  });

  it('AddHumanUser reports every bad field of the body', async () => {
    const res = await kh.rest('POST', '/v2/users/human', { username: '', profile: { givenName: '', familyName: 'F' }, email: { email: 'not-an-email' } });
    expect(res.status).toBe(400);
    expect(restFields(res.body).sort()).toEqual(['email.email', 'profile.givenName', 'username']);
  });

  it('validation comes before authorization: a caller without roles still learns what is wrong (400, not 403)', async () => {
    const nobody = await machineCaller(kh, org, 'validation-nobody');
    const res = await kh.rest('POST', '/management/v1/projects', { name: '' }, bearer(nobody.token));
    expect(res.status).toBe(400);
    expect(restFields(res.body)).toEqual(['name']);
  });
});

describe('404 USER_NOT_FOUND', () => {
  it('AddPersonalAccessToken for an unknown user', async () => {
    const res = await kh.rest('POST', `/management/v1/users/${unknownUser}/pats`, {}, inOrg(org));
    expect(res.status).toBe(404);
    expect(restReason(res.body)).toBe('USER_NOT_FOUND');
    expect(res.body.details[0].metadata.userId).toBe(unknownUser);
    const err = await rpcError(mgmt(inOrg(org)).addPersonalAccessToken({ userId: unknownUser }));
    expect(err.code).toBe(Code.NotFound);
    expect(err.reason).toBe('USER_NOT_FOUND');
  });

  it('AddPersonalAccessToken for a user of another org, in this org context', async () => {
    const { userId } = await mgmt(inOrg(otherOrg)).addMachineUser({ userName: 'elsewhere', name: 'E' });
    const err = await rpcError(mgmt(inOrg(org)).addPersonalAccessToken({ userId }));
    expect(err.reason).toBe('USER_NOT_FOUND');
  });

  it('GetUserByID, AddOrgMember and AddProjectMember with an unknown user', async () => {
    const get = await kh.rest('GET', `/v2/users/${unknownUser}`);
    expect(get.status).toBe(404);
    expect(restReason(get.body)).toBe('USER_NOT_FOUND');
    const orgMember = await rpcError(mgmt(inOrg(org)).addOrgMember({ userId: unknownUser, roles: ['ORG_OWNER'] }));
    expect(orgMember.code).toBe(Code.NotFound);
    expect(orgMember.reason).toBe('USER_NOT_FOUND');
    const projectMember = await kh.rest('POST', `/management/v1/projects/${project}/members`, { userId: unknownUser, roles: ['PROJECT_OWNER'] }, inOrg(org));
    expect(projectMember.status).toBe(404);
    expect(restReason(projectMember.body)).toBe('USER_NOT_FOUND');
  });
});

describe('409 conflicts', () => {
  it('a machine username taken in the org → USERNAME_TAKEN; in another org too (usernames are login names, unique across the instance)', async () => {
    const first = await kh.rest('POST', '/management/v1/users/machine', { userName: 'ci-bot', name: 'CI' }, inOrg(org));
    expect(first.status).toBe(200);
    const again = await kh.rest('POST', '/management/v1/users/machine', { userName: 'ci-bot', name: 'CI again' }, inOrg(org));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe(6);
    expect(restReason(again.body)).toBe('USERNAME_TAKEN');
    // Usernames compare case-insensitively.
    const upper = await rpcError(mgmt(inOrg(org)).addMachineUser({ userName: 'CI-Bot', name: 'CI' }));
    expect(upper.code).toBe(Code.AlreadyExists);
    expect(upper.reason).toBe('USERNAME_TAKEN');
    const elsewhere = await rpcError(mgmt(inOrg(otherOrg)).addMachineUser({ userName: 'CI-BOT', name: 'CI' }));
    expect([elsewhere.code, elsewhere.reason]).toEqual([Code.AlreadyExists, 'USERNAME_TAKEN']);
  });

  it('a human username taken by a machine user of the same org → USERNAME_TAKEN', async () => {
    await mgmt(inOrg(org)).addMachineUser({ userName: 'shared-name', name: 'S' });
    const err = await rpcError(
      users().addHumanUser({ username: 'shared-name', organization: { orgId: org }, profile: { givenName: 'G', familyName: 'F' }, email: { email: 'g@example.com' } }),
    );
    expect(err.code).toBe(Code.AlreadyExists);
    expect(err.reason).toBe('USERNAME_TAKEN');
  });

  it('AddHumanUser with a caller-chosen userId that exists → 409, and the first user is unchanged', async () => {
    const human = (username: string, userId: string) => ({
      userId,
      username,
      organization: { orgId: org },
      profile: { givenName: 'Ada', familyName: 'Lovelace' },
      email: { email: `${username}@example.com` },
    });
    const chosen = `chosen-${Date.now()}`;
    const first = await kh.rest('POST', '/v2/users/human', human('ada', chosen));
    expect(first.status).toBe(200);
    expect(first.body.userId).toBe(chosen);
    const again = await kh.rest('POST', '/v2/users/human', human('ada2', chosen));
    expect(again.status).toBe(409);
    expect(restReason(again.body)).toBe('USER_ID_TAKEN');
    const err = await rpcError(users().addHumanUser(human('ada3', chosen)));
    expect(err.code).toBe(Code.AlreadyExists);
    expect(err.reason).toBe('USER_ID_TAKEN');
    // The id of a machine user is taken for humans too.
    const { userId: machineId } = await mgmt(inOrg(org)).addMachineUser({ userName: 'machine-id-owner', name: 'M' });
    expect((await kh.rest('POST', '/v2/users/human', human('ada4', machineId))).status).toBe(409);
    const stored = await users().getUserByID({ userId: chosen });
    expect(stored.user?.username).toBe('ada');
  });
});
