// Containment through real clients: personal access tokens only for machine
// users, containment measured at the moment of the call, and error bodies that
// say what is wrong without telling what the target holds.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../../gen/keyhold/auth/v1/auth_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { restReason, rpcError } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addOrg, bearer, inOrg, machineCaller, type MachineCaller } from '../../support/identity.js';

let kh: TestKeyhold;
let org: string;
let owner: MachineCaller; // ORG_OWNER of org
let manager: MachineCaller; // ORG_USER_MANAGER of org
let human: string; // a human user of org

beforeAll(async () => {
  kh = await startTestKeyhold();
  org = await addOrg(kh, 'Containment');
  [owner, manager] = await Promise.all([machineCaller(kh, org, 'owner', ['ORG_OWNER']), machineCaller(kh, org, 'manager', ['ORG_USER_MANAGER'])]);
  ({ userId: human } = await kh.client(UserService).addHumanUser({
    username: 'ada',
    organization: { orgId: org },
    profile: { givenName: 'Ada', familyName: 'Lovelace' },
    email: { email: 'ada@example.com' },
  }));
});
afterAll(async () => kh?.close());

describe('personal access tokens are for machine users only', () => {
  it('a human target → 400 FAILED_PRECONDITION PAT_ONLY_FOR_MACHINE_USERS (REST and gRPC), even for the admin', async () => {
    const res = await kh.rest('POST', `/management/v1/users/${human}/pats`, {}, inOrg(org));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(Code.FailedPrecondition);
    expect(restReason(res.body)).toBe('PAT_ONLY_FOR_MACHINE_USERS');
    expect(res.body.message).toBe(`Personal access tokens are for machine users only; user ${human} is a human user.`);
    const de = await kh.rest('POST', `/management/v1/users/${human}/pats`, {}, { ...inOrg(org), 'accept-language': 'de' });
    expect(de.body.details.find((d: any) => d.locale)?.message).toMatch(/nur für Maschinenbenutzer/);
    const err = await rpcError(kh.client(ManagementService, 'grpc', owner.token).addPersonalAccessToken({ userId: human }));
    expect([err.code, err.reason]).toEqual([Code.FailedPrecondition, 'PAT_ONLY_FOR_MACHINE_USERS']);
  });

  it('a caller without user.write learns nothing about the kind: 403 first', async () => {
    const nobody = await machineCaller(kh, org, 'nobody');
    const res = await kh.rest('POST', `/management/v1/users/${human}/pats`, {}, bearer(nobody.token));
    expect([res.status, restReason(res.body)]).toEqual([403, 'PERMISSION_DENIED']);
  });
});

describe('containment is measured when the call is made', () => {
  it('an ORG_OWNER mints for an ORG_USER_MANAGER, and the token holds exactly that role', async () => {
    const target = await machineCaller(kh, org, 'managed', ['ORG_USER_MANAGER']);
    const { token } = await kh.client(ManagementService, 'grpc', owner.token).addPersonalAccessToken({ userId: target.userId });
    const me = await kh.client(AuthService, 'grpc', token).getMyUser({});
    expect([me.user?.userId, me.roles]).toEqual([target.userId, [`ORG_USER_MANAGER@org:${org}`]]);
  });

  it('a machine user a manager could mint for is out of reach once it is promoted to ORG_OWNER', async () => {
    const target = await machineCaller(kh, org, 'promoted');
    const mgmt = kh.client(ManagementService, 'grpc', manager.token);
    expect((await mgmt.addPersonalAccessToken({ userId: target.userId })).token).toBeTruthy();
    await kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(org)).addOrgMember({ userId: target.userId, roles: ['ORG_OWNER'] });
    const err = await rpcError(mgmt.addPersonalAccessToken({ userId: target.userId }));
    expect([err.code, err.reason]).toEqual([Code.PermissionDenied, 'PRIVILEGE_ESCALATION']);
    // Nor may the manager enrol a security key in its name.
    const key = await rpcError(kh.client(UserService, 'grpc', manager.token).registerU2F({ userId: target.userId }));
    expect(key.reason).toBe('PRIVILEGE_ESCALATION');
  });

  it('the refusal names the user and the rule, not what the target holds or where', async () => {
    const me = await kh.client(AuthService).getMyUser({});
    const admin = me.user!.userId;
    // A manager of the admin's own org (elsewhere the admin is simply not found).
    const local = await machineCaller(kh, me.organizationId, 'local-manager', ['ORG_USER_MANAGER']);
    const res = await kh.rest('POST', `/management/v1/users/${admin}/pats`, {}, bearer(local.token));
    expect([res.status, res.body.code, restReason(res.body)]).toEqual([403, Code.PermissionDenied, 'PRIVILEGE_ESCALATION']);
    const text = JSON.stringify(res.body);
    expect(text).toContain(admin);
    for (const secret of ['IAM_OWNER', 'instance', 'org.create', 'user.id.choose']) expect(text).not.toContain(secret);
  });
});
