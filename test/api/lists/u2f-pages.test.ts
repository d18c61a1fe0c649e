// ListU2FTokens has pages as every list: it takes
// `{query: {offset, limit, asc}}` and answers `{details: {totalResult, …}, result}`
// as every v2 list — over POST …/u2f/_search, gRPC, and the kept GET (which
// without a query answers the first page, oldest first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { restFields } from '../../support/errors.js';
import { bearer } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { plainUser, startRegistration } from '../../support/u2f.js';

const COUNT = 7;
let kh: TestKeyhold;
let user: { userId: string; token: string };
let oldestFirst: string[] = [];

beforeAll(async () => {
  kh = await startTestKeyhold({
    env: { KEYHOLD_WEBAUTHN_RP_IDS: 'login.example', KEYHOLD_WEBAUTHN_ORIGINS: 'https://login.example', KEYHOLD_WEBAUTHN_MAX_PENDING: String(COUNT) },
  });
  user = await plainUser(kh);
  for (let i = 0; i < COUNT; i++) oldestFirst.push((await startRegistration(kh, user.userId, user.token)).u2fId);
}, 60_000);
afterAll(async () => kh?.close());

const search = (body: unknown) => kh.rest('POST', `/v2/users/${user.userId}/u2f/_search`, body, bearer(user.token));

describe('ListU2FTokens pages', () => {
  it('POST …/u2f/_search: pages of 3 oldest first cover every key once; totalResult counts all; newest first by default', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < COUNT + 3; offset += 3) {
      const res = await search({ query: { offset, limit: 3, asc: true } });
      expect(res.status).toBe(200);
      expect(res.body.details.totalResult).toBe(String(COUNT));
      expect(res.body.details.timestamp).toBeTruthy();
      // An empty list is left out of the JSON (proto3 defaults).
      const result = res.body.result ?? [];
      expect(result.length).toBeLessThanOrEqual(3);
      seen.push(...result.map((t: { id: string }) => t.id));
    }
    expect(seen).toEqual(oldestFirst);
    const newest = await search({ query: { limit: 2 } });
    expect(newest.body.result.map((t: { id: string }) => t.id)).toEqual(oldestFirst.slice(-2).reverse());
  });

  it('the kept GET: without a query the first page oldest first; `?query.limit=&query.offset=` pages it', async () => {
    const all = await kh.rest('GET', `/v2/users/${user.userId}/u2f`, undefined, bearer(user.token));
    expect(all.status).toBe(200);
    expect(all.body.result.map((t: { id: string }) => t.id)).toEqual(oldestFirst);
    expect(all.body.details.totalResult).toBe(String(COUNT));
    const page = await kh.rest('GET', `/v2/users/${user.userId}/u2f?query.limit=2&query.offset=1&query.asc=true`, undefined, bearer(user.token));
    expect(page.status).toBe(200);
    expect(page.body.result.map((t: { id: string }) => t.id)).toEqual(oldestFirst.slice(1, 3));
  });

  it('/openapi.json describes both routes: GET with query.offset/limit/asc, POST …/_search with a body', async () => {
    const doc = (await kh.rest('GET', '/openapi.json', undefined, { authorization: '' })).body;
    const get = doc.paths['/v2/users/{user_id}/u2f'].get;
    expect(get.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['query.offset', 'query.limit', 'query.asc']));
    const post = doc.paths['/v2/users/{user_id}/u2f/_search'].post;
    expect(post.requestBody).toBeDefined();
    expect(post.operationId).not.toBe(get.operationId);
  });

  it('gRPC: the same page; a limit above the maximum is answered with what there is; past the end is empty', async () => {
    const users = kh.client(UserService, 'grpc', user.token);
    const page = await users.listU2FTokens({ userId: user.userId, query: { offset: 5n, limit: 4, asc: true } });
    expect(page.result.map((t) => t.id)).toEqual(oldestFirst.slice(5));
    expect(page.details?.totalResult).toBe(BigInt(COUNT));
    const huge = await users.listU2FTokens({ userId: user.userId, query: { limit: 4_000_000_000 } });
    expect(huge.result).toHaveLength(COUNT);
    const past = await users.listU2FTokens({ userId: user.userId, query: { offset: 18_000_000_000_000_000_000n, limit: 10 } });
    expect(past.result).toHaveLength(0);
    expect(past.details?.totalResult).toBe(BigInt(COUNT));
  });

  it('400 naming the field: a negative offset, a limit that is no uint32, an unknown query parameter', async () => {
    const negative = await search({ query: { offset: -1 } });
    expect(negative.status).toBe(400);
    expect(restFields(negative.body)).toEqual(['query.offset']);
    const big = await search({ query: { limit: 1e10 } });
    expect(big.status).toBe(400);
    expect(restFields(big.body)).toEqual(['query.limit']);
    const unknown = await kh.rest('GET', `/v2/users/${user.userId}/u2f?query.size=2`, undefined, bearer(user.token));
    expect(unknown.status).toBe(400);
  });
});
