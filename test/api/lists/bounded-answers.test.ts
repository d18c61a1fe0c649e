// Answers bounded in bytes: unbounded, one ListApps of 300 large apps answers
// 113.6 MiB and blocks /healthz for 1.5 s. A page of 1000 entries bounds nothing when one app is ~400 KB, so an
// answer is also bounded in bytes (MAX_ANSWER_BYTES). Here: enough large apps that
// an unpaged answer is many MiB, then every way of asking for "all" — limit 0, a
// huge limit, no query — is a 400 at query.limit naming the limit that fits (a
// short page would make clients stepping by `limit` skip apps), a huge offset is
// an empty page, walking by the suggested limit sees every app once, ListEvents
// (a cursor) answers a shorter page and goes on, and /healthz keeps answering. Real REST over HTTP; sizes are the bytes
// on the wire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { Code } from '@connectrpc/connect';
import { MAX_ANSWER_BYTES, MAX_PAGE_LIMIT } from '../../../src/domain/lists.js';
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import { restFields, rpcError } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

const APPS = 40;
/** 2 lists × 100 URIs × ~1,950 characters: ~390 KB an app, as the (113.6 MiB / 300). */
const uris = (i: number, kind: string) => Array.from({ length: 100 }, (_, j) => `https://app${i}.example/${kind}/${j}/${'x'.repeat(1900)}`);
/** A page's answer: its configurations (≤ MAX_ANSWER_BYTES) and per app its name, ids, details and compliance report. */
const BOUND = MAX_ANSWER_BYTES + 64 * 1024;

/** The limit a refused page names ("… ask for limit K"). */
function suggestedLimit(body: any): number {
  const violations = body.details.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest').fieldViolations;
  const text = violations.find((v: any) => v.field === 'query.limit').description as string;
  return Number(/limit (\d+)$/.exec(text)![1]);
}

announcePostgresSkip('bounded answers: PostgreSQL');
for (const backend of ['pglite', 'postgres'] as const) {
  describe.skipIf(backend === 'postgres' && !postgresAvailable)(`a list of large apps never answers more than one bounded page (${backend})`, () => {
    let kh: TestKeyhold;
    let projectId: string;
    let ids: string[] = [];
    let baseUrl: string;

    beforeAll(async () => {
      kh = await startTestKeyhold({ postgres: backend === 'postgres' });
      baseUrl = `http://127.0.0.1:${kh.port}`;
      const mgmt = kh.client(ManagementService);
      projectId = (await mgmt.addProject({ name: 'Large apps' })).id;
      for (let i = 0; i < APPS; i++) {
        ids.push((await mgmt.addOIDCApp({ projectId, name: `large-${i}`, redirectUris: uris(i, 'cb'), postLogoutRedirectUris: uris(i, 'out') })).appId);
      }
    }, 300_000);
    afterAll(async () => kh?.close());

    /** POST the body; the answer's size in bytes as sent, and its JSON. */
    async function post(path: string, body: unknown): Promise<{ status: number; bytes: number; json: any }> {
      const res = await fetch(baseUrl + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${kh.adminToken}` },
        body: JSON.stringify(body),
      });
      const buf = Buffer.from(await res.arrayBuffer());
      return { status: res.status, bytes: buf.length, json: JSON.parse(buf.toString('utf8')) };
    }
    const searchApps = (body: unknown) => post(`/management/v1/projects/${projectId}/apps/_search`, body);

    /** Polls /healthz every 25 ms while `work` runs; the slowest answer in ms. */
    async function slowestHealthzDuring<T>(work: () => Promise<T>): Promise<{ result: T; slowest: number; polls: number }> {
      let done = false;
      let slowest = 0;
      let polls = 0;
      const poller = (async () => {
        while (!done) {
          const from = performance.now();
          const res = await fetch(`${baseUrl}/healthz`);
          expect(res.status).toBe(200);
          await res.arrayBuffer();
          slowest = Math.max(slowest, performance.now() - from);
          polls++;
          await new Promise((r) => setTimeout(r, 25));
        }
      })();
      try {
        return { result: await work(), slowest, polls };
      } finally {
        done = true;
        await poller;
      }
    }

      it('the unpaged answer would be many MiB: the apps as stored', async () => {
        const one = await post(`/management/v1/projects/${projectId}/apps/_search`, { query: { limit: 1 } });
        expect(one.status).toBe(200);
        expect(one.json.result).toHaveLength(1);
        // One app alone is ~390 KB; all of them would be APPS times that.
        expect(one.bytes).toBeGreaterThan(350_000);
        expect(one.bytes * APPS).toBeGreaterThan(4 * MAX_ANSWER_BYTES);
        console.info(`one large app answers ${one.bytes} bytes; all ${APPS} unpaged would be ~${((one.bytes * APPS) / 2 ** 20).toFixed(1)} MiB`);
      });

      it.each([
        ['limit 0 (the default)', { query: { limit: 0 } }],
        ['no query at all', {}],
        ['limit 1e9', { query: { limit: 1_000_000_000 } }],
        ['limit 4294967295 (the largest uint32), oldest first', { query: { limit: 4294967295, asc: true } }],
        [`limit ${MAX_PAGE_LIMIT} (the maximum)`, { query: { limit: MAX_PAGE_LIMIT } }],
      ])('%s: a 400 at query.limit naming the limit that fits, small; that limit answers a bounded page', async (_name, body) => {
        const { result, slowest, polls } = await slowestHealthzDuring(() => searchApps(body));
        expect(result.status).toBe(400);
        expect(restFields(result.json)).toEqual(['query.limit']);
        expect(result.bytes).toBeLessThan(10_000);
        const fits = suggestedLimit(result.json);
        expect(fits).toBeGreaterThan(0);
        expect(fits).toBeLessThan(APPS);
        const page = await searchApps({ query: { ...(body as { query?: object }).query, limit: fits } });
        expect(page.status).toBe(200);
        console.info(`bounded page (${backend}): ${_name}: refused, ${fits} fit: ${page.bytes} bytes, /healthz slowest ${slowest.toFixed(0)} ms over ${polls} polls`);
        expect(page.bytes).toBeLessThanOrEqual(BOUND);
        expect(page.json.details.totalResult).toBe(String(APPS));
        expect(page.json.result).toHaveLength(fits);
        expect(polls).toBeGreaterThan(0);
        // The issue measured 1.5 s; generous for a loaded machine.
        expect(slowest).toBeLessThan(1000);
      });

      it('a huge offset answers an empty page; beyond uint64 or negative is 400 naming query.offset; beyond uint32 is 400 naming query.limit', async () => {
        const past = await searchApps({ query: { offset: '18446744073709551615', limit: 1_000_000_000 } });
        expect(past.status).toBe(200);
        expect(past.json.result ?? []).toHaveLength(0);
        expect(past.json.details.totalResult).toBe(String(APPS));
        for (const offset of [-1, '-5', '18446744073709551616']) {
          const bad = await searchApps({ query: { offset } });
          expect(bad.status, String(offset)).toBe(400);
          expect(restFields(bad.json)).toEqual(['query.offset']);
        }
        for (const limit of [-1, 4294967296, 1e12]) {
          const bad = await searchApps({ query: { limit } });
          expect(bad.status, String(limit)).toBe(400);
          expect(restFields(bad.json)).toEqual(['query.limit']);
        }
      });

      it('walking by the suggested limit sees every app once, in order, each page bounded', async () => {
        const fits = suggestedLimit((await searchApps({ query: { limit: MAX_PAGE_LIMIT, asc: true } })).json);
        const seen: string[] = [];
        let pages = 0;
        for (let offset = 0; offset < APPS; ) {
          const page = await searchApps({ query: { offset, limit: fits, asc: true } });
          expect(page.status).toBe(200);
          expect(page.bytes).toBeLessThanOrEqual(BOUND);
          const result = page.json.result ?? [];
          expect(result.length).toBeGreaterThan(0);
          seen.push(...result.map((a: { id: string }) => a.id));
          offset += result.length;
          pages++;
        }
        expect(seen).toEqual(ids);
        expect(pages).toBeGreaterThan(1);
      });

      it('gRPC (binary): INVALID_ARGUMENT for the same request; the limit that fits answers a bounded page', async () => {
        const mgmt = kh.client(ManagementService);
        expect((await rpcError(mgmt.listApps({ projectId, query: { limit: 1_000_000_000 } }))).code).toBe(Code.InvalidArgument);
        const fits = suggestedLimit((await searchApps({ query: { limit: MAX_PAGE_LIMIT } })).json);
        const listed = await mgmt.listApps({ projectId, query: { limit: fits } });
        expect(listed.details?.totalResult).toBe(BigInt(APPS));
        expect(listed.result.length).toBeLessThan(APPS);
        const uriBytes = listed.result.reduce((n, a) => n + [...(a.oidcConfig?.redirectUris ?? []), ...(a.oidcConfig?.postLogoutRedirectUris ?? [])].join('').length, 0);
        expect(uriBytes).toBeGreaterThan(0);
        expect(uriBytes).toBeLessThanOrEqual(BOUND);
      });

      it('ListEvents: events carrying those configurations, limit 1000, answer a bounded page; the cursor walks on', async () => {
        const body = { aggregateTypes: ['app'], eventTypes: ['app.oidc.config.added'], limit: 1000, asc: true };
        const { result: first, slowest } = await slowestHealthzDuring(() => post('/admin/v1/events/_search', body));
        expect(first.status).toBe(200);
        expect(first.bytes).toBeLessThanOrEqual(BOUND);
        type Audited = { sequence: string; aggregate: { id: string } };
        const events: Audited[] = first.json.events;
        expect(events.length).toBeGreaterThan(0);
        expect(events.length).toBeLessThan(APPS);
        expect(slowest).toBeLessThan(1000);
        const seen = events.map((e) => e.aggregate.id);
        let cursor = events[events.length - 1]!.sequence;
        for (;;) {
          const next = await post('/admin/v1/events/_search', { ...body, sequence: cursor });
          expect(next.bytes).toBeLessThanOrEqual(BOUND);
          const more: Audited[] = next.json.events ?? [];
          if (more.length === 0) break;
          seen.push(...more.map((e) => e.aggregate.id));
          cursor = more[more.length - 1]!.sequence;
        }
        // Every large app's configuration once (and the console app's, made at the first start).
        expect(seen.filter((id) => ids.includes(id))).toEqual(ids);
        expect(seen.length).toBe(APPS + 1);
      });
  });
}
