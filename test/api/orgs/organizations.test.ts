// Organizations: GetOrganization (v2) and GetMyOrganization
// (management) over REST and gRPC, with 400/401/404 (ListOrganizations: test/api/lists).
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { OrganizationService } from '../../../gen/keyhold/org/v2/org_pb.js';
import { rpcError, restReason } from '../../support/errors.js';
import { addOrg, bearer, inOrg, machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
beforeAll(async () => {
  kh = await startTestKeyhold();
});
afterAll(async () => kh?.close());

describe('GetOrganization / GetMyOrganization', () => {
  it('the instance owner reads any org; an org owner its own; others get 404 as for none', async () => {
    const stamp = Date.now();
    const orgA = await addOrg(kh, `Org A ${stamp}`);
    const orgB = await addOrg(kh, `Org B ${stamp}`);
    const got = await kh.rest('GET', `/v2/organizations/${orgA}`);
    expect(got.status).toBe(200);
    expect(got.body.organization).toMatchObject({ id: orgA, name: `Org A ${stamp}`, state: 'ORGANIZATION_STATE_ACTIVE' });
    expect(got.body.organization.details.resourceOwner).toBe(orgA);
    const ownerB = await machineCaller(kh, orgB, `owner-${stamp}`, ['ORG_OWNER']);
    expect((await kh.client(OrganizationService, 'grpc', ownerB.token).getOrganization({ organizationId: orgB })).organization?.name).toBe(`Org B ${stamp}`);
    const hidden = await rpcError(kh.client(OrganizationService, 'grpc', ownerB.token).getOrganization({ organizationId: orgA }));
    expect(hidden.code).toBe(Code.NotFound);
    expect(hidden.reason).toBe('ORG_NOT_FOUND');
    const none = await kh.rest('GET', '/v2/organizations/01aaaaaaaaaaaaaaaaaaaaaaaa');
    expect(none.status).toBe(404);
    expect(restReason(none.body)).toBe('ORG_NOT_FOUND');
    expect((await kh.rest('GET', `/v2/organizations/${orgA}`, undefined, { authorization: '' })).status).toBe(401);
    expect((await kh.rest('GET', '/v2/organizations/bad%20id')).status).toBe(400);

    // GetMyOrganization: the org the call acts in.
    const plainB = await machineCaller(kh, orgB, `plain-${stamp}`);
    const mine = await kh.rest('GET', '/management/v1/orgs/me', undefined, bearer(plainB.token));
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ id: orgB, name: `Org B ${stamp}` });
    const named = await kh.client(ManagementService, 'connect', kh.adminToken, inOrg(orgA)).getMyOrganization({});
    expect(named.id).toBe(orgA);
    const foreign = await kh.rest('GET', '/management/v1/orgs/me', undefined, bearer(plainB.token, inOrg(orgA)));
    expect(foreign.status).toBe(403);
    expect((await kh.rest('GET', '/management/v1/orgs/me', undefined, { authorization: '' })).status).toBe(401);
  });
});
