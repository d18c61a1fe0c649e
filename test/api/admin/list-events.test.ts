// The audit log: ListEvents (POST /admin/v1/events/_search) returns a
// scripted scenario's events in order, filtered each way, with a cursor and a
// limit; an ORG_OWNER sees its org's events only; no payload holds a secret or a hash.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminService } from '../../../gen/keyhold/admin/v1/admin_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { rpcError, restFields } from '../../support/errors.js';
import { addOrg, bearer, inOrg, machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
const s = {} as { org: string; other: string; project: string; appId: string; secrets: string[]; owner: { userId: string; token: string }; bot: string; start: Date; end: Date };

beforeAll(async () => {
  kh = await startTestKeyhold();
  s.start = new Date();
  s.org = await addOrg(kh, 'Audited');
  s.other = await addOrg(kh, 'Elsewhere');
  const mgmt = kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(s.org));
  s.project = (await mgmt.addProject({ name: 'Audited project' })).id;
  const app = await mgmt.addOIDCApp({ projectId: s.project, name: 'Audited app', redirectUris: ['https://a.example/cb'] });
  s.appId = app.appId;
  await mgmt.updateApp({ projectId: s.project, appId: app.appId, name: 'Renamed app' });
  const regenerated = await mgmt.regenerateOIDCClientSecret({ projectId: s.project, appId: app.appId });
  await mgmt.deactivateApp({ projectId: s.project, appId: app.appId });
  s.owner = await machineCaller(kh, s.org, 'audit-owner', ['ORG_OWNER']);
  const bot = await machineCaller(kh, s.org, 'audit-bot');
  s.bot = bot.userId;
  s.secrets = [app.clientSecret, regenerated.clientSecret, s.owner.token, bot.token];
  await kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(s.other)).addProject({ name: 'Not yours' });
  s.end = new Date(Date.now() + 1000);
});
afterAll(async () => kh?.close());

const search = (body: Record<string, unknown>, headers?: Record<string, string>) => kh.rest('POST', '/admin/v1/events/_search', body, headers);
const types = (res: { body: any }) => (res.body.events ?? []).map((e: any) => e.type);

describe('ListEvents', () => {
  it("returns the org's scenario in order, with editor, aggregate, sequences, dates", async () => {
    const res = await search({ resourceOwner: s.org, asc: true });
    expect(res.status).toBe(200);
    expect(types(res)).toEqual([
      'org.added',
      'project.added',
      'app.added',
      'app.oidc.config.added',
      'app.changed',
      'app.oidc.secret.changed',
      'app.deactivated',
      'user.machine.added',
      'org.member.added',
      'user.pat.added',
      'user.machine.added',
      'user.pat.added',
    ]);
    const first = res.body.events[2];
    expect(first).toMatchObject({ aggregate: { id: s.appId, type: 'app', resourceOwner: s.org }, aggregateSequence: '1', payload: { projectId: s.project, name: 'Audited app' } });
    expect(first.editor.userId).toBeTruthy();
    const positions = res.body.events.map((e: any) => BigInt(e.sequence));
    expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
  });

  it('never carries a secret or a hash, by the one rule (SECRET_FIELDS)', async () => {
    const res = await search({ limit: 1000 });
    const text = JSON.stringify(res.body);
    for (const secret of s.secrets) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/clientSecretHash|tokenHash/);
    const config = res.body.events.find((e: any) => e.type === 'app.oidc.config.added' && e.aggregate.id === s.appId);
    expect(config.payload.clientId).toBeTruthy();
    expect(config.payload.config.redirectUris).toEqual(['https://a.example/cb']);
  });

  it('filters: aggregate types and id, event types, editor, creation date range, cursor, limit, desc', async () => {
    expect(types(await search({ aggregateTypes: ['app'], aggregateId: s.appId, asc: true }))).toEqual([
      'app.added',
      'app.oidc.config.added',
      'app.changed',
      'app.oidc.secret.changed',
      'app.deactivated',
    ]);
    const pats = await search({ eventTypes: ['user.pat.added'], resourceOwner: s.org });
    expect(pats.body.events).toHaveLength(2);
    const byOwner = await search({ editorUserId: s.owner.userId });
    expect(byOwner.body.events ?? []).toEqual([]);
    const inRange = await search({ resourceOwner: s.org, creationDateRange: { since: s.start.toISOString(), until: s.end.toISOString() } });
    expect(inRange.body.events).toHaveLength(12);
    const future = await search({ creationDateRange: { since: s.end.toISOString() } });
    expect(future.body.events ?? []).toEqual([]);
    // Cursor: pages of 5, ascending, then the rest; descending goes back from a cursor.
    const page1 = await search({ resourceOwner: s.org, asc: true, limit: 5 });
    const last = page1.body.events.at(-1).sequence;
    const page2 = await search({ resourceOwner: s.org, asc: true, limit: 5, sequence: last });
    expect([...types(page1), ...types(page2)]).toEqual(types(await search({ resourceOwner: s.org, asc: true, limit: 10 })));
    const back = await search({ resourceOwner: s.org, sequence: last, limit: 2 });
    expect(back.body.events.map((e: any) => BigInt(e.sequence) < BigInt(last))).toEqual([true, true]);
    expect(BigInt(back.body.events[0].sequence)).toBeGreaterThan(BigInt(back.body.events[1].sequence));
    const newest = await kh.client(AdminService).listEvents({ limit: 1 });
    expect(newest.events).toHaveLength(1);
    const big = await kh.client(AdminService).listEvents({ limit: 50_000 });
    expect(big.events.length).toBeLessThanOrEqual(1000);
  });

  it("an ORG_OWNER sees its org's events only; another org named → 403; no role → 403; no token → 401; bad filters → 400", async () => {
    const own = await search({ limit: 1000 }, bearer(s.owner.token));
    expect(own.status).toBe(200);
    expect(new Set(own.body.events.map((e: any) => e.aggregate.resourceOwner))).toEqual(new Set([s.org]));
    expect(types(own)).not.toContain('instance.added');
    const foreign = await rpcError(kh.client(AdminService, 'grpc', s.owner.token).listEvents({ resourceOwner: s.other }));
    expect(foreign.code).toBe(Code.PermissionDenied);
    const plain = await machineCaller(kh, s.org, 'audit-plain');
    expect((await search({}, bearer(plain.token))).status).toBe(403);
    expect((await search({}, { authorization: '' })).status).toBe(401);
    const bad = await search({ aggregateTypes: ['app', 'nope'], aggregateId: 'bad id', creationDateRange: { since: s.end.toISOString(), until: s.start.toISOString() } });
    expect(bad.status).toBe(400);
    expect(restFields(bad.body)).toEqual(['aggregateId', 'aggregateTypes[1]', 'creationDateRange']);
  });
});
