// Issue 19: "no request can make the server serialize more than the maximum
// page" — measured in bytes, not only entries. Apps with the largest
// configurations the bounds allow (~400 KB each) fill one answer with a few
// entries: ListApps refuses a page that does not fit and names the limit that
// does; ListEvents (a cursor) returns fewer events and goes on from the last.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminService } from '../../../gen/keyhold/admin/v1/admin_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { rpcError, restFields } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

const APPS = 10;
/** gRPC clients' default receive limit (grpc-go, grpc-js): an answer must stay below it. */
const GRPC_DEFAULT_MAX = 4 * 1024 * 1024;

let kh: TestKeyhold;
let projectId: string;
let orgId: string;
const appIds: string[] = [];

/** 100 distinct URIs of ~1,950 characters: the most one list may hold. */
const longUris = (app: number, kind: string) =>
  Array.from({ length: 100 }, (_, j) => `https://app${app}.example/${kind}/${j}/${'x'.repeat(1900)}`);

beforeAll(async () => {
  kh = await startTestKeyhold();
  const mgmt = kh.client(ManagementService);
  const project = await mgmt.addProject({ name: 'Large apps' });
  projectId = project.id;
  orgId = project.details!.resourceOwner;
  for (let i = 0; i < APPS; i++) {
    const app = await mgmt.addOIDCApp({
      projectId,
      name: `large-${i}`,
      redirectUris: longUris(i, 'cb'),
      postLogoutRedirectUris: longUris(i, 'out'),
    });
    appIds.push(app.appId);
  }
}, 180_000);
afterAll(async () => kh?.close());

const searchApps = (body: unknown) => kh.rest('POST', `/management/v1/projects/${projectId}/apps/_search`, body);

/** The limit a refused page names ("… ask for limit K"). */
function suggestedLimit(body: any): number {
  const violations = body.details.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest').fieldViolations;
  const text = violations.find((v: any) => v.field === 'query.limit').description as string;
  return Number(/limit (\d+)$/.exec(text)![1]);
}

describe('ListApps: an answer is bounded in bytes', () => {
  it('a page that would exceed the answer budget is a 400 at query.limit naming the limit that fits; nothing is sent', async () => {
    const res = await searchApps({ query: { limit: 1000 } });
    expect(res.status).toBe(400);
    expect(restFields(res.body)).toEqual(['query.limit']);
    const fits = suggestedLimit(res.body);
    expect(fits).toBeGreaterThanOrEqual(1);
    expect(fits).toBeLessThan(APPS);
    expect(JSON.stringify(res.body).length).toBeLessThan(10_000);
  });

  it('the suggested limit answers below 4 MiB, and paging by it reaches every app once', async () => {
    const fits = suggestedLimit((await searchApps({ query: { limit: 1000 } })).body);
    const seen: string[] = [];
    for (let offset = 0; offset < APPS; offset += fits) {
      const res = await searchApps({ query: { offset, limit: fits, asc: true } });
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body).length).toBeLessThan(GRPC_DEFAULT_MAX);
      expect(Number(res.body.details.totalResult)).toBe(APPS);
      seen.push(...res.body.result.map((a: any) => a.id));
    }
    expect(seen).toEqual(appIds);
  });

  it('over gRPC the same page is INVALID_ARGUMENT, and the default page of 100 is refused the same way', async () => {
    const mgmt = kh.client(ManagementService, 'grpc');
    const err = await rpcError(mgmt.listApps({ projectId, query: { limit: 1000 } }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect((await searchApps({})).status).toBe(400);
  });
});

describe('ListEvents: large payloads shorten the page, the cursor goes on', () => {
  it('returns fewer events than asked, below 4 MiB, and the next page starts after the last one', async () => {
    const seen: string[] = [];
    let sequence = '0';
    let pages = 0;
    for (;;) {
      const res = await kh.rest('POST', '/admin/v1/events/_search', { resourceOwner: orgId, eventTypes: ['app.oidc.config.added'], asc: true, limit: 1000, sequence });
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body).length).toBeLessThan(GRPC_DEFAULT_MAX);
      const events = res.body.events ?? [];
      if (events.length === 0) break;
      pages++;
      expect(events.length).toBeLessThan(APPS);
      seen.push(...events.map((e: any) => e.aggregate.id));
      sequence = events[events.length - 1].sequence;
    }
    expect(pages).toBeGreaterThan(1);
    // The org also holds the console's app (bootstrap); ours come in order, each once.
    expect(seen.filter((id) => appIds.includes(id))).toEqual(appIds);
    // gRPC's answer fits a default client too.
    const grpc = await kh.client(AdminService, 'grpc').listEvents({ resourceOwner: orgId, eventTypes: ['app.oidc.config.added'], limit: 1000 });
    expect(grpc.events.length).toBeGreaterThan(0);
    expect(grpc.events.length).toBeLessThan(APPS);
  });
});
