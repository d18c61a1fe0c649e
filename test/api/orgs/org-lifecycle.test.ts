// UpdateOrg, DeactivateOrg, ReactivateOrg, RemoveOrg (management v1, the org
// of the call) over REST and gRPC: bad input, who may (org.write, org.delete:
// ORG_OWNER and IAM_OWNER), the instance's first org protected, the states'
// preconditions, what a removal takes with it, the last-owner rule, the
// cascade bound, and concurrent calls. Logins and tokens: test/server/oidc/org-lifecycle-tokens.test.ts.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { OrgState } from '../../../gen/keyhold/management/v1/orgs_lifecycle_pb.js';
import { OrganizationService } from '../../../gen/keyhold/org/v2/org_pb.js';
import { deactivateOrg, removeOrg } from '../../../src/commands/orgs/org-lifecycle.js';
import { runCommand } from '../../../src/commands/run.js';
import { INSTANCE_ID } from '../../../src/domain/events/index.js';
import { instanceDecider } from '../../../src/domain/instance/decider.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { MAX_CASCADE } from '../../../src/commands/projects/cascade-bound.js';
import type { Ports } from '../../../src/commands/ports.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { addOrg, bearer, inOrg, machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
beforeAll(async () => {
  kh = await startTestKeyhold();
}, 60_000);
afterAll(async () => kh?.close());

const ME = '/management/v1/orgs/me';
const b64 = (s: string) => Buffer.from(s).toString('base64');
let n = 0;
const unique = (p: string) => `${p} ${++n} ${Date.now()}`;

describe('UpdateOrg', () => {
  it('renames the org of the call (REST and gRPC); the same name writes nothing; a bad name is 400 at `name`', async () => {
    const orgId = await addOrg(kh, unique('Rename'));
    const renamed = await kh.rest('PUT', ME, { name: '  Renamed org  ' }, inOrg(orgId));
    expect(renamed.status).toBe(200);
    expect(renamed.body.details.resourceOwner).toBe(orgId);
    const mine = await kh.rest('GET', ME, undefined, inOrg(orgId));
    expect(mine.body.name).toBe('Renamed org');
    const again = await kh.rest('PUT', ME, { name: 'Renamed org' }, inOrg(orgId));
    expect(again.status).toBe(200);
    expect(again.body.details.sequence).toBe(mine.body.details.sequence);
    for (const name of ['', '   ', 'x'.repeat(201)]) {
      const bad = await kh.rest('PUT', ME, { name }, inOrg(orgId));
      expect(bad.status).toBe(400);
      expect(restFields(bad.body)).toEqual(['name']);
    }
    expect((await kh.rest('GET', ME, undefined, inOrg(orgId))).body.name).toBe('Renamed org');
    const owner = await machineCaller(kh, orgId, unique('owner').replace(/ /g, '-'), ['ORG_OWNER']);
    await kh.client(ManagementService, 'grpc', owner.token).updateOrg({ name: 'By its owner' });
    expect((await kh.client(ManagementService, 'connect', kh.adminToken, inOrg(orgId)).getMyOrganization({})).name).toBe('By its owner');
  });

  it('org.write: an ORG_USER_MANAGER, a plain user, another org’s owner are refused; no token is 401', async () => {
    const orgId = await addOrg(kh, unique('Guarded'));
    const other = await addOrg(kh, unique('Other'));
    const manager = await machineCaller(kh, orgId, unique('manager').replace(/ /g, '-'), ['ORG_USER_MANAGER']);
    const plain = await machineCaller(kh, orgId, unique('plain').replace(/ /g, '-'));
    const stranger = await machineCaller(kh, other, unique('stranger').replace(/ /g, '-'), ['ORG_OWNER']);
    for (const caller of [manager, plain]) {
      const refused = await rpcError(kh.client(ManagementService, 'grpc', caller.token).updateOrg({ name: 'Taken over' }));
      expect(refused.code).toBe(Code.PermissionDenied);
      for (const [method, path] of [['POST', `${ME}/_deactivate`], ['DELETE', ME]] as const) {
        expect((await kh.rest(method, path, method === 'POST' ? {} : undefined, bearer(caller.token))).status).toBe(403);
      }
    }
    expect((await kh.rest('PUT', ME, { name: 'Taken over' }, bearer(stranger.token, inOrg(orgId)))).status).toBe(403);
    expect((await kh.rest('DELETE', ME, undefined, bearer(stranger.token, inOrg(orgId)))).status).toBe(403);
    expect((await kh.rest('PUT', ME, { name: 'Taken over' }, { authorization: '' })).status).toBe(401);
    expect((await kh.rest('GET', ME, undefined, inOrg(orgId))).body.name).not.toBe('Taken over');
  });
});

describe('DeactivateOrg / ReactivateOrg', () => {
  it('each only from the other state (FAILED_PRECONDITION), shown in the org’s state; the first org is protected', async () => {
    const orgId = await addOrg(kh, unique('States'));
    const mgmt = kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(orgId));
    const reactivated = await rpcError(mgmt.reactivateOrg({}));
    expect([reactivated.code, reactivated.reason]).toEqual([Code.FailedPrecondition, 'ORG_NOT_INACTIVE']);
    await mgmt.deactivateOrg({});
    expect((await kh.client(OrganizationService).getOrganization({ organizationId: orgId })).organization?.state).toBe(2);
    // GetMyOrganization says it too, in ZITADEL's OrgState words over REST.
    expect((await mgmt.getMyOrganization({})).state).toBe(OrgState.INACTIVE);
    expect((await kh.rest('GET', ME, undefined, inOrg(orgId))).body.state).toBe('ORG_STATE_INACTIVE');
    const twice = await kh.rest('POST', `${ME}/_deactivate`, {}, inOrg(orgId));
    expect([twice.status, restReason(twice.body)]).toEqual([400, 'ORG_NOT_ACTIVE']);
    expect((await kh.rest('POST', `${ME}/_reactivate`, {}, inOrg(orgId))).status).toBe(200);
    expect((await kh.rest('GET', `/v2/organizations/${orgId}`)).body.organization.state).toBe('ORGANIZATION_STATE_ACTIVE');
    expect((await mgmt.getMyOrganization({})).state).toBe(OrgState.ACTIVE);

    // The admin's own org, the instance's first: it holds the console's project.
    for (const [method, path] of [['POST', `${ME}/_deactivate`], ['DELETE', ME]] as const) {
      const refused = await kh.rest(method, path, method === 'POST' ? {} : undefined);
      expect([refused.status, restReason(refused.body)]).toEqual([400, 'CONSOLE_ORG_PROTECTED']);
      expect(refused.body.message).toMatch(/console/);
    }
    const rpc = await rpcError(kh.client(ManagementService, 'grpc', kh.adminToken).removeOrg({}));
    expect([rpc.code, rpc.reason]).toEqual([Code.FailedPrecondition, 'CONSOLE_ORG_PROTECTED']);
  });

  it('8 concurrent deactivations over several rounds: one each time, the others FAILED_PRECONDITION', async () => {
    const orgId = await addOrg(kh, unique('Racing'));
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 8 }, () => kh.rest('POST', `${ME}/_deactivate`, {}, inOrg(orgId))));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 400 && restReason(a.body) === 'ORG_NOT_ACTIVE')).toHaveLength(7);
      expect((await kh.rest('POST', `${ME}/_reactivate`, {}, inOrg(orgId))).status).toBe(200);
    }
  });
});

describe('RemoveOrg', () => {
  it('takes its projects, apps, roles, grants, users, members and metadata in one step; its name is free again', async () => {
    const name = unique('Doomed');
    const orgId = await addOrg(kh, name);
    const h = inOrg(orgId);
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'P' }, h)).body.id as string;
    expect((await kh.rest('POST', `/management/v1/projects/${projectId}/roles`, { roleKey: 'editor', displayName: 'Editor' }, h)).status).toBe(200);
    const app = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: 'web', redirectUris: ['https://doomed.example/cb'] }, h);
    expect(app.status).toBe(200);
    const user = await kh.rest('POST', '/v2/users/human', { username: unique('doomed').replace(/ /g, '.'), organization: { orgId }, profile: { givenName: 'D', familyName: 'U' }, email: { email: 'd@example.com' } });
    expect(user.status).toBe(200);
    const userId = user.body.userId as string;
    expect((await kh.rest('POST', `/management/v1/users/${userId}/metadata/dept`, { value: b64('sales') }, h)).status).toBe(200);
    expect((await kh.rest('POST', `/management/v1/users/${userId}/grants`, { projectId, roleKeys: ['editor'] }, h)).status).toBe(200);
    expect((await kh.rest('POST', '/management/v1/orgs/me/members', { userId, roles: ['ORG_OWNER'] }, h)).status).toBe(200);
    // A user of another org granted a role of its project: the grant goes, the user stays.
    const outsider = await kh.rest('POST', '/v2/users/human', { username: unique('outsider').replace(/ /g, '.'), profile: { givenName: 'O', familyName: 'U' }, email: { email: 'o@example.com' } });
    const outsiderGrant = await kh.rest('POST', `/management/v1/users/${outsider.body.userId}/grants`, { projectId, roleKeys: ['editor'] }, h);
    expect(outsiderGrant.status).toBe(200);

    const removed = await kh.client(ManagementService, 'grpc', kh.adminToken, h).removeOrg({});
    expect(removed.details?.resourceOwner).toBe(orgId);
    const read = kh.readModel;
    expect(await read.org(orgId)).toBeUndefined();
    expect(await read.project(projectId)).toBeUndefined();
    expect(await read.app(app.body.appId)).toBeUndefined();
    expect(await read.user(userId)).toBeUndefined();
    expect(await read.userMetadataOf(userId)).toEqual([]);
    expect(await read.membershipsOf(userId)).toEqual([]);
    expect(await read.projectRolesOfUser(outsider.body.userId, projectId)).toEqual([]);
    expect(await read.user(outsider.body.userId)).toBeDefined();
    // Gone: naming it is refused as any org the caller cannot act in; asking for it is 404.
    expect((await kh.rest('GET', ME, undefined, h)).status).toBe(403);
    expect((await kh.rest('GET', `/v2/organizations/${orgId}`)).status).toBe(404);
    const again = await kh.rest('POST', '/v2/organizations', { name });
    expect(again.status).toBe(200);
    expect(again.body.organizationId).not.toBe(orgId);
  });

  it('never removes the last ORG_OWNER of another org with its users: LAST_ORG_OWNER, nothing removed', async () => {
    const orgId = await addOrg(kh, unique('Holder'));
    const { userId } = await machineCaller(kh, orgId, unique('holder').replace(/ /g, '-'));
    const kept = (await kh.client(OrganizationService).addOrganization({ name: unique('Kept'), admins: [{ userId, roles: [] }] })).organizationId;
    const refused = await kh.rest('DELETE', ME, undefined, inOrg(orgId));
    expect([refused.status, restReason(refused.body)]).toEqual([400, 'LAST_ORG_OWNER']);
    expect(await kh.readModel.org(orgId)).toBeDefined();
    expect(await kh.readModel.user(userId)).toBeDefined();
    // With a second owner there, the user leaves it with its org.
    const { userId: second } = await machineCaller(kh, kept, unique('second').replace(/ /g, '-'), ['ORG_OWNER']);
    expect((await kh.rest('DELETE', ME, undefined, inOrg(orgId))).status).toBe(200);
    expect((await kh.readModel.membershipsOf(second)).map((m) => m.scopeId)).toEqual([kept]);
    expect((await kh.rest('GET', '/management/v1/orgs/me/members', undefined, inOrg(kept))).status).not.toBe(500);
  });

  it('its own ORG_OWNER may remove it; 8 concurrent removals over several rounds: exactly one succeeds', async () => {
    for (let round = 0; round < 3; round++) {
      const orgId = await addOrg(kh, unique('Contested'));
      await kh.rest('POST', '/management/v1/projects', { name: 'P' }, inOrg(orgId));
      const answers = await Promise.all(Array.from({ length: 8 }, () => kh.rest('DELETE', ME, undefined, inOrg(orgId))));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      // The others: the org is gone (404), or already unknown to the org context (403).
      for (const a of answers.filter((x) => x.status !== 200)) expect([403, 404]).toContain(a.status);
    }
    const orgId = await addOrg(kh, unique('Self-removed'));
    const owner = await machineCaller(kh, orgId, unique('owner').replace(/ /g, '-'), ['ORG_OWNER']);
    await kh.client(ManagementService, 'grpc', owner.token).removeOrg({});
    expect(await kh.readModel.org(orgId)).toBeUndefined();
  });

  it(`over ${MAX_CASCADE} objects is CASCADE_TOO_LARGE before anything is written`, async () => {
    const appended: unknown[] = [];
    const many = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
    const ports = {
      lookups: {
        orgExists: async () => true,
        ownerOfProject: async () => 'console-org',
        userIdsOfOrg: async () => many('u', 3000),
        projectIdsOfOrg: async () => many('p', 2),
        appIdsOfProject: async () => many('a', 500),
        grantIdsOfProject: async () => many('g', 500),
        membershipsOf: async () => [],
      },
      events: { load: async () => [], append: async (e: unknown[]) => appended.push(...e) },
    } as unknown as Ports;
    const caller = { userId: 'admin', orgId: 'console-org', tokenId: 't', memberships: [{ scopeType: 'instance' as const, scopeId: 'default', orgId: 'console-org', roles: ['IAM_OWNER'] }] };
    await expect(removeOrg(ports, { caller, org: 'big' })).rejects.toMatchObject({ reason: 'CASCADE_TOO_LARGE', metadata: { count: String(3000 + 2 * 1001), max: String(MAX_CASCADE) } });
    expect(appended).toEqual([]);
  });
});

describe('ending an org ends its users: containment and the owners that must remain', () => {
  const endings = [
    ['DeactivateOrg', 'POST', `${ME}/_deactivate`],
    ['RemoveOrg', 'DELETE', ME],
  ] as const;
  const end = (method: 'POST' | 'DELETE', path: string, headers: Record<string, string>) => kh.rest(method, path, method === 'POST' ? {} : undefined, headers);
  const makeIamOwner = (userId: string) =>
    runCommand(createEventStore(kh.database), { type: 'instance', id: INSTANCE_ID }, instanceDecider, { kind: 'addOwner', userId, actor: 'test' });

  for (const [name, method, path] of endings) {
    it(`${name} by an ORG_OWNER: a co-owner of another org, or an IAM_OWNER of the org, is PRIVILEGE_ESCALATION naming it; nothing changed`, async () => {
      const orgId = await addOrg(kh, unique('Contained'));
      const owner = await machineCaller(kh, orgId, unique('owner').replace(/ /g, '-'), ['ORG_OWNER']);
      // A user of the org who also owns another org, where the caller holds no role.
      const { userId: coOwner } = await machineCaller(kh, orgId, unique('co').replace(/ /g, '-'));
      const elsewhere = (await kh.client(OrganizationService).addOrganization({ name: unique('Elsewhere'), admins: [{ userId: coOwner, roles: [] }] })).organizationId;
      await machineCaller(kh, elsewhere, unique('keeper').replace(/ /g, '-'), ['ORG_OWNER']);
      const refused = await end(method, path, bearer(owner.token));
      expect([refused.status, restReason(refused.body)]).toEqual([403, 'PRIVILEGE_ESCALATION']);
      expect(refused.body.message).toContain(coOwner);
      expect((await kh.readModel.org(orgId))?.state).toBe('active');
      expect((await kh.readModel.user(coOwner))?.state).toBe('active');
      expect((await kh.readModel.membershipsOf(coOwner)).map((m) => m.scopeId)).toContain(elsewhere);
      const grpc = await rpcError(method === 'POST' ? kh.client(ManagementService, 'grpc', owner.token).deactivateOrg({}) : kh.client(ManagementService, 'grpc', owner.token).removeOrg({}));
      expect([grpc.code, grpc.reason]).toEqual([Code.PermissionDenied, 'PRIVILEGE_ESCALATION']);

      // An IAM_OWNER whose home org it is (the co-owner gone from the other org first).
      const second = await addOrg(kh, unique('Home'));
      const homeOwner = await machineCaller(kh, second, unique('owner').replace(/ /g, '-'), ['ORG_OWNER']);
      const { userId: iam } = await machineCaller(kh, second, unique('iam').replace(/ /g, '-'));
      await makeIamOwner(iam);
      const iamRefused = await end(method, path, bearer(homeOwner.token));
      expect([iamRefused.status, restReason(iamRefused.body)]).toEqual([403, 'PRIVILEGE_ESCALATION']);
      expect(iamRefused.body.message).toContain(iam);
      expect((await kh.readModel.org(second))?.state).toBe('active');
      expect((await kh.readModel.user(iam))?.state).toBe('active');
      // An IAM_OWNER contains everyone, and another active IAM_OWNER remains (the admin): it may.
      expect((await end(method, path, inOrg(second))).status).toBe(200);
    });
  }

  for (const [name, call] of [['DeactivateOrg', deactivateOrg], ['RemoveOrg', removeOrg]] as const) {
    it(`${name} is LAST_IAM_OWNER when no active IAM_OWNER would remain outside the org; nothing appended`, async () => {
      const appended: unknown[] = [];
      const iam = { scopeType: 'instance' as const, scopeId: 'default', orgId: 'console-org', roles: ['IAM_OWNER'] };
      const facts: Record<string, { state: string; orgId: string; orgActive?: boolean }> = {
        // Deactivated, or of a deactivated org: neither can act as the instance's owner.
        other: { state: 'inactive', orgId: 'console-org', orgActive: true },
        paused: { state: 'active', orgId: 'paused-org', orgActive: false },
      };
      const ports = {
        lookups: {
          orgExists: async () => true,
          ownerOfProject: async () => 'console-org',
          userIdsOfOrg: async () => ['plain', 'home-iam'],
          projectIdsOfOrg: async () => [],
          membershipsOf: async (userId: string) => (userId === 'home-iam' ? [iam] : []),
          instanceOwnerIds: async () => ['home-iam', 'other', 'paused'],
          userFacts: async (userId: string) => facts[userId],
        },
        events: { load: async () => [], append: async (e: unknown[]) => appended.push(...e) },
      } as unknown as Ports;
      const caller = { userId: 'home-iam', orgId: 'doomed', tokenId: 't', memberships: [iam] };
      await expect(call(ports, { caller, org: 'doomed' })).rejects.toMatchObject({ reason: 'LAST_IAM_OWNER', metadata: { userId: 'home-iam', orgId: 'doomed' } });
      expect(appended).toEqual([]);
    });
  }

  it('DeactivateOrg never leaves another org with no owner who can sign in: LAST_ORG_OWNER, counting owners of deactivated orgs as gone', async () => {
    const a = await addOrg(kh, unique('Owners home'));
    const c = await addOrg(kh, unique('Other home'));
    const { userId: fromA } = await machineCaller(kh, a, unique('from-a').replace(/ /g, '-'));
    const held = (await kh.client(OrganizationService).addOrganization({ name: unique('Held'), admins: [{ userId: fromA, roles: [] }] })).organizationId;
    const refused = await kh.rest('POST', `${ME}/_deactivate`, {}, inOrg(a));
    expect([refused.status, restReason(refused.body)]).toEqual([400, 'LAST_ORG_OWNER']);
    expect(refused.body.message).toContain(held);
    expect((await kh.readModel.org(a))?.state).toBe('active');
    // A second owner, of org C: deactivating C first makes it gone, so A still may not go.
    const { userId: fromC } = await machineCaller(kh, c, unique('from-c').replace(/ /g, '-'));
    expect((await kh.rest('POST', '/management/v1/orgs/me/members', { userId: fromC, roles: ['ORG_OWNER'] }, inOrg(held))).status).toBe(200);
    expect((await kh.rest('POST', `${ME}/_deactivate`, {}, inOrg(c))).status).toBe(200);
    const still = await kh.rest('POST', `${ME}/_deactivate`, {}, inOrg(a));
    expect([still.status, restReason(still.body)]).toEqual([400, 'LAST_ORG_OWNER']);
    // Nor may that owner be taken away now: its org's deactivation made it gone too.
    const demoted = await kh.rest('DELETE', `/management/v1/orgs/me/members/${fromA}`, undefined, inOrg(held));
    expect([demoted.status, restReason(demoted.body)]).toEqual([400, 'LAST_ORG_OWNER']);
    // C back: A may go, and its owner's suspension is recorded on the held org's events.
    expect((await kh.rest('POST', `${ME}/_reactivate`, {}, inOrg(c))).status).toBe(200);
    expect((await kh.rest('POST', `${ME}/_deactivate`, {}, inOrg(a))).status).toBe(200);
    const types = (await createEventStore(kh.database).load('org', held)).map((e) => e.type);
    expect(types).toContain('org.owner.suspended');
  });

  it('8 concurrent deactivations of the two orgs of another org\'s only owners, over several rounds: never both', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await addOrg(kh, unique('Race A'));
      const b = await addOrg(kh, unique('Race B'));
      const { userId: ua } = await machineCaller(kh, a, unique('ua').replace(/ /g, '-'));
      const { userId: ub } = await machineCaller(kh, b, unique('ub').replace(/ /g, '-'));
      const held = (await kh.client(OrganizationService).addOrganization({ name: unique('Race held'), admins: [{ userId: ua, roles: [] }, { userId: ub, roles: [] }] })).organizationId;
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => kh.rest('POST', `${ME}/_deactivate`, {}, inOrg(i % 2 ? a : b))));
      expect(answers.filter((x) => x.status === 200)).toHaveLength(1);
      for (const x of answers.filter((y) => y.status !== 200)) expect(['LAST_ORG_OWNER', 'ORG_NOT_ACTIVE']).toContain(restReason(x.body));
      const states = [(await kh.readModel.org(a))?.state, (await kh.readModel.org(b))?.state];
      expect(states.filter((x) => x === 'active')).toHaveLength(1);
      expect(held).toBeTruthy();
    }
  });
});
