// Tokens: ListPersonalAccessTokens (never the token or its hash) and
// RemovePersonalAccessToken over REST and gRPC; a removed token is refused at
// once by the process that removed it and within 2 s by another process on the
// same PostgreSQL; an expiring token stops at its expiry.
import { rm } from 'node:fs/promises';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { startChildKeyhold } from '../../support/child-keyhold.js';
import { announcePostgresSkip, createPostgresDatabase, postgresAvailable, tempDir } from '../../support/databases.js';
import { rpcError, restFields, restReason } from '../../support/errors.js';
import { bearer, machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
let n = 0;
const unique = (p: string) => `${p}-${++n}-${Date.now()}`;

beforeAll(async () => {
  kh = await startTestKeyhold();
});
afterAll(async () => kh?.close());

const me = (token: string) => kh.rest('GET', '/auth/v1/users/me', undefined, bearer(token));

describe('ListPersonalAccessTokens', () => {
  it('lists ids, dates and expiry, never the token or a hash; pages', async () => {
    const bot = await machineCaller(kh, undefined, unique('bot'));
    const mgmt = kh.client(ManagementService);
    const expires = new Date(Date.now() + 3_600_000);
    const second = await mgmt.addPersonalAccessToken({ userId: bot.userId, expirationDate: timestampFromDate(expires) });
    const res = await kh.rest('POST', `/management/v1/users/${bot.userId}/pats/_search`, { query: { asc: true } });
    expect(res.status).toBe(200);
    expect(res.body.details.totalResult).toBe('2');
    expect(res.body.result).toHaveLength(2);
    expect(res.body.result[1].id).toBe(second.tokenId);
    expect(Date.parse(res.body.result[1].expirationDate)).toBe(Math.floor(expires.getTime() / 1000) * 1000 + (expires.getTime() % 1000));
    expect(res.body.result[0].expirationDate).toBeUndefined();
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(bot.token);
    expect(text).not.toContain(second.token);
    expect(text).not.toMatch(/hash/i);
    const page = await mgmt.listPersonalAccessTokens({ userId: bot.userId, query: { limit: 1, offset: 1n, asc: true } });
    expect(page.result.map((t) => t.id)).toEqual([second.tokenId]);
    expect(page.details?.totalResult).toBe(2n);
  });

  it('400 bad id, 401 no token, 403 without user.read, 404 unknown user', async () => {
    expect((await kh.rest('POST', '/management/v1/users/not%20an%20id/pats/_search', {})).status).toBe(400);
    const bot = await machineCaller(kh, undefined, unique('bot'));
    expect((await kh.rest('POST', `/management/v1/users/${bot.userId}/pats/_search`, {}, { authorization: '' })).status).toBe(401);
    const denied = await kh.rest('POST', `/management/v1/users/${bot.userId}/pats/_search`, {}, bearer(bot.token));
    expect(denied.status).toBe(403);
    const missing = await kh.rest('POST', '/management/v1/users/01aaaaaaaaaaaaaaaaaaaaaaaa/pats/_search', {});
    expect(missing.status).toBe(404);
    expect(restReason(missing.body)).toBe('USER_NOT_FOUND');
  });
});

describe('RemovePersonalAccessToken', () => {
  it('the token is refused at once; the list no longer shows it; removing it again is 404 PAT_NOT_FOUND', async () => {
    const bot = await machineCaller(kh, undefined, unique('bot'));
    expect((await me(bot.token)).status).toBe(200);
    const listed = await kh.client(ManagementService).listPersonalAccessTokens({ userId: bot.userId });
    const tokenId = listed.result[0]!.id;
    const res = await kh.rest('DELETE', `/management/v1/users/${bot.userId}/pats/${tokenId}`);
    expect(res.status).toBe(200);
    expect(res.body.details.sequence).toBe('3');
    expect((await me(bot.token)).status).toBe(401);
    expect((await kh.client(ManagementService).listPersonalAccessTokens({ userId: bot.userId })).result).toEqual([]);
    const again = await kh.rest('DELETE', `/management/v1/users/${bot.userId}/pats/${tokenId}`);
    expect(again.status).toBe(404);
    expect(restReason(again.body)).toBe('PAT_NOT_FOUND');
  });

  it('gRPC: 401, 403 (no user.write; an ORG_USER_MANAGER on an ORG_OWNER’s token: containment), 404, 400', async () => {
    const owner = await machineCaller(kh, undefined, unique('owner'), ['ORG_OWNER']);
    const manager = await machineCaller(kh, undefined, unique('manager'), ['ORG_USER_MANAGER']);
    const plain = await machineCaller(kh, undefined, unique('plain'));
    const tokenId = (await kh.client(ManagementService).listPersonalAccessTokens({ userId: owner.userId })).result[0]!.id;
    const call = (token: string) => kh.client(ManagementService, 'grpc', token).removePersonalAccessToken({ userId: owner.userId, tokenId });
    expect((await rpcError(call(''))).code).toBe(Code.Unauthenticated);
    expect((await rpcError(call(plain.token))).reason).toBe('PERMISSION_DENIED');
    expect((await rpcError(call(manager.token))).reason).toBe('PRIVILEGE_ESCALATION');
    expect((await me(owner.token)).status).toBe(200);
    const bad = await rpcError(kh.client(ManagementService).removePersonalAccessToken({ userId: owner.userId, tokenId: '' }));
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(bad.fields).toEqual(['tokenId']);
    expect((await rpcError(kh.client(ManagementService).removePersonalAccessToken({ userId: owner.userId, tokenId: 'nope' }))).reason).toBe('PAT_NOT_FOUND');
    // A machine user may revoke its own token when it holds user.write (here the owner).
    await kh.client(ManagementService, 'grpc', owner.token).removePersonalAccessToken({ userId: owner.userId, tokenId });
    expect((await me(owner.token)).status).toBe(401);
  });

  it('an expiring token works until its expiry, then 401', async () => {
    const bot = await machineCaller(kh, undefined, unique('bot'));
    const { token } = await kh.client(ManagementService).addPersonalAccessToken({ userId: bot.userId, expirationDate: timestampFromDate(new Date(Date.now() + 1500)) });
    expect((await me(token)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    expect((await me(token)).status).toBe(401);
    const past = await kh.rest('POST', `/management/v1/users/${bot.userId}/pats`, { expirationDate: '2000-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(restFields(past.body)).toEqual(['expirationDate']);
  });
});

announcePostgresSkip('PAT removal across two processes');
describe.runIf(postgresAvailable)('two processes on one PostgreSQL', () => {
  it('a token removed through one process is refused by the other within 2 s', async () => {
    const pg = await createPostgresDatabase();
    const dirs = [await tempDir('keyhold-pat-a-'), await tempDir('keyhold-pat-b-')];
    const a = await startTestKeyhold({ env: { DATABASE_URL: pg.url, KEYHOLD_DATA_DIR: dirs[0]! } });
    const b = await startChildKeyhold({ dataDir: dirs[1]!, databaseUrl: pg.url });
    try {
      const bot = await machineCaller(a, undefined, unique('bot'));
      // Both processes have the caller cached.
      expect((await b.rest('GET', '/auth/v1/users/me', undefined, { token: bot.token })).status).toBe(200);
      expect((await a.rest('GET', '/auth/v1/users/me', undefined, bearer(bot.token))).status).toBe(200);
      const tokenId = (await a.client(ManagementService).listPersonalAccessTokens({ userId: bot.userId })).result[0]!.id;
      await a.client(ManagementService).removePersonalAccessToken({ userId: bot.userId, tokenId });
      const removedAt = Date.now();
      expect((await a.rest('GET', '/auth/v1/users/me', undefined, bearer(bot.token))).status).toBe(401);
      let refusedAfter = Infinity;
      while (Date.now() - removedAt < 3000) {
        if ((await b.rest('GET', '/auth/v1/users/me', undefined, { token: bot.token })).status === 401) {
          refusedAfter = Date.now() - removedAt;
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(refusedAfter).toBeLessThanOrEqual(2000);
    } finally {
      await b.kill('SIGTERM');
      await a.close();
      await pg.drop();
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    }
  }, 120_000);
});
