// Every list is a search with pages — ListApps, ListProjects,
// ListUsers, ListOrganizations over REST and gRPC: defaults and the maximum,
// a stable order while others create, filters, who sees what, 400/401/403/404.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { TextQueryMethod } from '../../../gen/keyhold/object/v1/object_pb.js';
import { OrganizationService } from '../../../gen/keyhold/org/v2/org_pb.js';
import { Type, UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { rpcError, restFields, restReason } from '../../support/errors.js';
import { addOrg, bearer, inOrg, machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
let projectId: string;
const INITIAL = 1000;
let initialIds: string[] = [];

async function inParallel<T>(count: number, width: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await make(i);
      }
    }),
  );
  return out;
}

beforeAll(async () => {
  kh = await startTestKeyhold();
  const mgmt = kh.client(ManagementService);
  projectId = (await mgmt.addProject({ name: 'Many apps' })).id;
  const added = await inParallel(INITIAL, 32, (i) => mgmt.addOIDCApp({ projectId, name: `app-${String(i).padStart(4, '0')}`, redirectUris: ['https://a.example/cb'] }));
  initialIds = added.map((a) => a.appId);
}, 180_000);
afterAll(async () => kh?.close());

const searchApps = (body: unknown, headers?: Record<string, string>) => kh.rest('POST', `/management/v1/projects/${projectId}/apps/_search`, body, headers);

describe('ListApps: pages', () => {
  it(`walks ${INITIAL} apps page by page (asc) with no duplicate or missing id while 100 more are created`, async () => {
    const mgmt = kh.client(ManagementService);
    let creating = true;
    const creator = inParallel(100, 4, (i) => mgmt.addOIDCApp({ projectId, name: `late-${i}`, redirectUris: ['https://a.example/cb'] })).finally(() => {
      creating = false;
    });
    const seen: string[] = [];
    let sawCreatesDuringPaging = false;
    for (let offset = 0; ; offset += 100) {
      const res = await searchApps({ query: { offset, limit: 100, asc: true } });
      expect(res.status).toBe(200);
      if (creating) sawCreatesDuringPaging = true;
      seen.push(...res.body.result.map((a: any) => a.id));
      if (res.body.result.length < 100 || offset > 2000) break;
    }
    await creator;
    expect(sawCreatesDuringPaging).toBe(true);
    expect(new Set(seen).size).toBe(seen.length);
    const seenSet = new Set(seen);
    expect(initialIds.filter((id) => !seenSet.has(id))).toEqual([]);
  }, 120_000);

  it('details: totalResult over all pages, processedSequence, viewTimestamp; default 100, newest first', async () => {
    const res = await searchApps({});
    expect(res.status).toBe(200);
    expect(res.body.result).toHaveLength(100);
    expect(Number(res.body.details.totalResult)).toBeGreaterThanOrEqual(INITIAL);
    expect(Number(res.body.details.processedSequence)).toBeGreaterThan(2 * INITIAL);
    expect(Date.parse(res.body.details.viewTimestamp)).toBeGreaterThan(Date.now() - 60_000);
    const dates = res.body.result.map((a: any) => Date.parse(a.details.creationDate));
    expect([...dates].sort((a, b) => b - a)).toEqual(dates);
  });

  it('a limit above the maximum is answered with 1000 entries, never more (gRPC too)', async () => {
    const res = await searchApps({ query: { limit: 5000 } });
    expect(res.status).toBe(200);
    expect(res.body.result).toHaveLength(1000);
    const grpc = await kh.client(ManagementService).listApps({ projectId, query: { limit: 4_000_000_000 } });
    expect(grpc.result).toHaveLength(1000);
    expect(Number(grpc.details?.totalResult)).toBeGreaterThan(1000);
    const beyond = await searchApps({ query: { offset: '999999999999' } });
    expect(beyond.body.result ?? []).toEqual([]);
  });

  it('filters by name with each TEXT_QUERY_METHOD', async () => {
    const names = async (name: string, method: string) =>
      ((await searchApps({ query: { limit: 1000, asc: true }, queries: [{ nameQuery: { name, method } }] })).body.result ?? []).map((a: any) => a.name);
    expect(await names('app-0042', 'TEXT_QUERY_METHOD_EQUALS')).toEqual(['app-0042']);
    expect(await names('APP-0042', 'TEXT_QUERY_METHOD_EQUALS')).toEqual([]);
    expect(await names('APP-0042', 'TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE')).toEqual(['app-0042']);
    expect(await names('app-004', 'TEXT_QUERY_METHOD_STARTS_WITH')).toHaveLength(10);
    expect(await names('APP-004', 'TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE')).toHaveLength(10);
    expect(await names('p-099', 'TEXT_QUERY_METHOD_CONTAINS')).toHaveLength(10);
    expect(await names('P-099', 'TEXT_QUERY_METHOD_CONTAINS_IGNORE_CASE')).toHaveLength(10);
    expect(await names('99', 'TEXT_QUERY_METHOD_ENDS_WITH')).toEqual(['app-0099', 'app-0199', 'app-0299', 'app-0399', 'app-0499', 'app-0599', 'app-0699', 'app-0799', 'app-0899', 'app-0999', 'late-99']);
    // LIKE's wildcards are matched literally.
    expect(await names('app-00_1', 'TEXT_QUERY_METHOD_EQUALS')).toEqual([]);
    expect(await names('%', 'TEXT_QUERY_METHOD_CONTAINS')).toEqual([]);
    const grpc = await kh.client(ManagementService).listApps({ projectId, queries: [{ query: { case: 'nameQuery', value: { name: 'app-0007', method: TextQueryMethod.EQUALS } } }] });
    expect(grpc.result.map((a) => a.name)).toEqual(['app-0007']);
    expect(grpc.details?.totalResult).toBe(1n);
  });

  it('400 for an unknown method, a too-long value, too many queries; 404 unknown project; 401; 403', async () => {
    const bad = await searchApps({ queries: [{ nameQuery: { name: 'x'.repeat(201) } }, { nameQuery: { name: 'a', method: 99 } }] });
    expect(bad.status).toBe(400);
    expect(restFields(bad.body)).toEqual(['queries[0].nameQuery.name', 'queries[1].nameQuery.method']);
    const many = await searchApps({ queries: Array.from({ length: 21 }, () => ({ nameQuery: { name: 'a' } })) });
    expect(many.status).toBe(400);
    expect(restFields(many.body)).toEqual(['queries']);
    const missing = await kh.rest('POST', '/management/v1/projects/01aaaaaaaaaaaaaaaaaaaaaaaa/apps/_search', {});
    expect(missing.status).toBe(404);
    expect(restReason(missing.body)).toBe('PROJECT_NOT_FOUND');
    expect((await searchApps({}, { authorization: '' })).status).toBe(401);
    const nobody = await machineCaller(kh, undefined, `nobody-${Date.now()}`);
    const denied = await searchApps({}, bearer(nobody.token));
    expect(denied.status).toBe(403);
    const err = await rpcError(kh.client(ManagementService, 'grpc', nobody.token).listApps({ projectId }));
    expect(err.code).toBe(Code.PermissionDenied);
  });

  it('the GET list is retired: POST …/apps/_search is the one list', async () => {
    expect((await kh.rest('GET', `/management/v1/projects/${projectId}/apps`)).status).toBe(404);
  });
});

describe('ListProjects', () => {
  it('pages and filters by name; a project owner sees only its projects', async () => {
    const org = await addOrg(kh, `projects-${Date.now()}`);
    const mgmt = kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(org));
    const ids = [];
    for (const name of ['Alpha', 'Beta', 'alphabet', 'Gamma']) ids.push((await mgmt.addProject({ name })).id);
    const all = await kh.rest('POST', '/management/v1/projects/_search', { query: { asc: true } }, inOrg(org));
    expect(all.status).toBe(200);
    expect(all.body.result.map((p: any) => p.name)).toEqual(['Alpha', 'Beta', 'alphabet', 'Gamma']);
    expect(all.body.details.totalResult).toBe('4');
    const page = await kh.rest('POST', '/management/v1/projects/_search', { query: { offset: 1, limit: 2, asc: true } }, inOrg(org));
    expect(page.body.result.map((p: any) => p.name)).toEqual(['Beta', 'alphabet']);
    expect(page.body.details.totalResult).toBe('4');
    const alpha = await mgmt.listProjects({ query: { asc: true }, queries: [{ query: { case: 'nameQuery', value: { name: 'alpha', method: TextQueryMethod.STARTS_WITH_IGNORE_CASE } } }] });
    expect(alpha.result.map((p) => p.name)).toEqual(['Alpha', 'alphabet']);
    expect(alpha.details?.totalResult).toBe(2n);

    const owner = await machineCaller(kh, org, `p-owner-${Date.now()}`);
    await mgmt.addProjectMember({ projectId: ids[1]!, userId: owner.userId, roles: ['PROJECT_OWNER'] });
    const mine = await kh.client(ManagementService, 'grpc', owner.token).listProjects({});
    expect(mine.result.map((p) => p.id)).toEqual([ids[1]]);
    expect(mine.details?.totalResult).toBe(1n);
  });
});

describe('ListUsers (POST /v2/users)', () => {
  it('filters by username, email, type, state and org; an org owner sees its org and itself only', async () => {
    const stamp = Date.now();
    const orgA = await addOrg(kh, `users-a-${stamp}`);
    const orgB = await addOrg(kh, `users-b-${stamp}`);
    const users = kh.client(UserService);
    await users.addHumanUser({ username: `Ada-${stamp}`, organization: { orgId: orgA }, profile: { givenName: 'Ada', familyName: 'L', displayName: 'Ada L' }, email: { email: `ada-${stamp}@example.com` } });
    await users.addHumanUser({ username: `bob-${stamp}`, organization: { orgId: orgB }, profile: { givenName: 'Bob', familyName: 'B' }, email: { email: `bob-${stamp}@example.org` } });
    const ownerA = await machineCaller(kh, orgA, `owner-${stamp}`, ['ORG_OWNER']);

    const byName = await kh.rest('POST', '/v2/users', { queries: [{ userNameQuery: { userName: `ADA-${stamp}`, method: 'TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE' } }] });
    expect(byName.status).toBe(200);
    expect(byName.body.result.map((u: any) => u.username)).toEqual([`Ada-${stamp}`]);
    expect(byName.body.details.totalResult).toBe('1');
    expect(byName.body.details.timestamp).toBeTruthy();
    const byEmail = await kh.rest('POST', '/v2/users', { queries: [{ emailQuery: { emailAddress: '@example.org', method: 'TEXT_QUERY_METHOD_ENDS_WITH' } }, { organizationIdQuery: { organizationId: orgB } }] });
    expect(byEmail.body.result.map((u: any) => u.username)).toEqual([`bob-${stamp}`]);
    const machines = await users.listUsers({ queries: [{ query: { case: 'typeQuery', value: { type: Type.MACHINE } } }, { query: { case: 'organizationIdQuery', value: { organizationId: orgA } } }] });
    expect(machines.result.map((u) => u.username)).toEqual([`owner-${stamp}`]);
    const active = await kh.rest('POST', '/v2/users', { queries: [{ stateQuery: { state: 'USER_STATE_ACTIVE' } }, { organizationIdQuery: { organizationId: orgA } }] });
    expect(active.body.details.totalResult).toBe('2');

    const seen = await kh.client(UserService, 'grpc', ownerA.token).listUsers({ query: { limit: 1000 } });
    const orgsSeen = new Set(seen.result.map((u) => u.details?.resourceOwner));
    expect([...orgsSeen]).toEqual([orgA]);
    expect(seen.result.map((u) => u.username).sort()).toEqual([`Ada-${stamp}`, `owner-${stamp}`]);
    // A user without roles sees itself.
    const plain = await machineCaller(kh, orgB, `plain-${stamp}`);
    const self = await kh.rest('POST', '/v2/users', {}, bearer(plain.token));
    expect(self.body.result.map((u: any) => u.userId)).toEqual([plain.userId]);
    expect((await kh.rest('POST', '/v2/users', {}, { authorization: '' })).status).toBe(401);
    const bad = await kh.rest('POST', '/v2/users', { queries: [{ organizationIdQuery: { organizationId: 'not an id' } }] });
    expect(bad.status).toBe(400);
    expect(restFields(bad.body)).toEqual(['queries[0].organizationIdQuery.organizationId']);
  });
});

describe('ListOrganizations (POST /v2/organizations/_search)', () => {
  it('the instance owner sees every org, an org owner its own; by name and id', async () => {
    const stamp = Date.now();
    const orgA = await addOrg(kh, `Search Org A ${stamp}`);
    const orgB = await addOrg(kh, `Search Org B ${stamp}`);
    const byName = await kh.rest('POST', '/v2/organizations/_search', { query: { asc: true }, queries: [{ nameQuery: { name: `org a ${stamp}`, method: 'TEXT_QUERY_METHOD_ENDS_WITH_IGNORE_CASE' } }] });
    expect(byName.status).toBe(200);
    expect(byName.body.result.map((o: any) => o.id)).toEqual([orgA]);
    expect(byName.body.result[0].state).toBe('ORGANIZATION_STATE_ACTIVE');
    const all = await kh.client(OrganizationService).listOrganizations({ query: { limit: 1000 } });
    expect(all.result.map((o) => o.id)).toEqual(expect.arrayContaining([orgA, orgB, kh.bootstrap.created ? kh.bootstrap.orgId : orgA]));
    const byId = await kh.client(OrganizationService).listOrganizations({ queries: [{ query: { case: 'idQuery', value: { id: orgB } } }] });
    expect(byId.result.map((o) => o.name)).toEqual([`Search Org B ${stamp}`]);

    const ownerB = await machineCaller(kh, orgB, `org-owner-${stamp}`, ['ORG_OWNER']);
    const own = await kh.client(OrganizationService, 'connect', ownerB.token).listOrganizations({});
    expect(own.result.map((o) => o.id)).toEqual([orgB]);
    const plain = await machineCaller(kh, orgB, `org-plain-${stamp}`);
    const none = await kh.rest('POST', '/v2/organizations/_search', {}, bearer(plain.token));
    expect(none.status).toBe(200);
    expect(none.body.result ?? []).toEqual([]);
    expect(none.body.details.totalResult ?? '0').toBe('0');
    expect((await kh.rest('POST', '/v2/organizations/_search', {}, { authorization: '' })).status).toBe(401);
  });
});
