// ZITADEL's org header, x-zitadel-orgid, names the org a management call acts
// in as x-service-orgid does (src/api/context.ts requestedOrg), over REST and
// in gRPC metadata. Both with the same id are fine; with different ids the
// call is a 400 naming both headers, and nothing is written. The org rules
// stay those of x-service-orgid: an org the caller holds no role in is 403.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { addOrg, bearer, machineCaller, type MachineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
let tenant: string;
let elsewhere: string;
let tenantOwner: MachineCaller;
const ZITADEL = 'x-zitadel-orgid';
const SERVICE = 'x-service-orgid';

const projectNames = async (orgId: string) =>
  (await kh.client(ManagementService, 'grpc', kh.adminToken, { [SERVICE]: orgId }).listProjects({})).result.map((p) => p.name).sort();

beforeAll(async () => {
  kh = await startTestKeyhold();
  [tenant, elsewhere] = await Promise.all([addOrg(kh, 'Zitadel tenant'), addOrg(kh, 'Elsewhere')]);
  tenantOwner = await machineCaller(kh, tenant, 'zitadel-header-owner', ['ORG_OWNER']);
});
afterAll(async () => kh?.close());

describe('x-zitadel-orgid', () => {
  it('a ZITADEL-shaped REST request: the call acts in the org the header names', async () => {
    const created = await kh.rest('POST', '/management/v1/projects', { name: 'Via zitadel header' }, { [ZITADEL]: tenant });
    expect(created.status).toBe(200);
    expect(created.body.details.resourceOwner).toBe(tenant);
    const role = await kh.rest('POST', `/management/v1/projects/${created.body.id}/roles`, { roleKey: 'reader', displayName: 'Reader' }, { [ZITADEL]: tenant });
    expect(role.status).toBe(200);
    const grant = await kh.rest('POST', `/management/v1/users/${tenantOwner.userId}/grants`, { projectId: created.body.id, roleKeys: ['reader'] }, { [ZITADEL]: tenant });
    expect(grant.status).toBe(200);
    const search = await kh.rest('POST', '/management/v1/users/grants/_search', { query: { limit: 10 }, queries: [{ projectIdQuery: { projectId: created.body.id } }] }, { [ZITADEL]: tenant });
    expect([search.status, search.body.details.totalResult, search.body.result[0].id]).toEqual([200, '1', grant.body.userGrantId]);
    // Without the header the admin acts in its own org, where the project is not.
    expect((await kh.rest('GET', `/management/v1/projects/${created.body.id}`)).status).toBe(404);
    expect(await projectNames(tenant)).toEqual(['Via zitadel header']);
  });

  it('gRPC metadata: the same; both headers naming the same org are fine', async () => {
    const viaZitadel = await kh.client(ManagementService, 'grpc', tenantOwner.token, { [ZITADEL]: tenant }).getMyOrganization({});
    expect(viaZitadel.id).toBe(tenant);
    const both = await kh.client(ManagementService, 'grpc', kh.adminToken, { [ZITADEL]: elsewhere, [SERVICE]: elsewhere }).addProject({ name: 'Both agree' });
    expect(both.details?.resourceOwner).toBe(elsewhere);
    const rest = await kh.rest('GET', '/management/v1/orgs/me', undefined, { [ZITADEL]: ` ${elsewhere} `, [SERVICE]: elsewhere });
    expect([rest.status, rest.body.id]).toEqual([200, elsewhere]);
  });

  it('the two naming different orgs: 400 naming both headers, over REST and gRPC; nothing is created', async () => {
    const before = [await projectNames(tenant), await projectNames(elsewhere)];
    const res = await kh.rest('POST', '/management/v1/projects', { name: 'Ambiguous' }, { [ZITADEL]: tenant, [SERVICE]: elsewhere });
    expect([res.status, restReason(res.body), restFields(res.body)]).toEqual([400, 'INVALID_REQUEST', [SERVICE, ZITADEL]]);
    const err = await rpcError(kh.client(ManagementService, 'grpc', kh.adminToken, { [ZITADEL]: elsewhere, [SERVICE]: tenant }).addProject({ name: 'Ambiguous' }));
    expect([err.code, err.fields]).toEqual([Code.InvalidArgument, [SERVICE, ZITADEL]]);
    expect(err.message).toContain(ZITADEL);
    expect([await projectNames(tenant), await projectNames(elsewhere)]).toEqual(before);
  });

  it('an org the caller holds no role in is 403 by either header', async () => {
    const res = await kh.rest('POST', '/management/v1/projects', { name: 'Not mine' }, bearer(tenantOwner.token, { [ZITADEL]: elsewhere }));
    expect([res.status, restReason(res.body)]).toEqual([403, 'PERMISSION_DENIED']);
  });
});
