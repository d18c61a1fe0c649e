// The OpenID Provider's state store (src/store/oidc-store.ts) on PGlite and,
// with TEST_DATABASE_URL, PostgreSQL: bearer artifacts stored under their hash,
// consume, revoke by grant, uid lookup, expiry and its cleanup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcStateStore, type OidcStateStore } from '../../src/store/oidc-store.js';
import { announcePostgresSkip, freshPglite, freshPostgres, postgresAvailable, type FreshDatabase } from '../support/databases.js';

announcePostgresSkip('oidc state store on PostgreSQL');

for (const [engine, fresh, skip] of [
  ['PGlite', freshPglite, false],
  ['PostgreSQL', freshPostgres, !postgresAvailable],
] as const) {
  describe.skipIf(skip)(`oidc state store on ${engine}`, () => {
    let db: FreshDatabase;
    let store: OidcStateStore;
    beforeAll(async () => {
      db = await fresh();
      store = createOidcStateStore(db.database);
    }, 60_000);
    afterAll(async () => db?.cleanup());

    it('a token is stored under its hash, found by its value, consumed, and revoked with its grant', async () => {
      await store.upsert('AccessToken', 'secret-token-value', { jti: 'secret-token-value', grantId: 'g1', accountId: 'u' }, 60);
      const rows = await db.database.sql.query<{ key: string; payload: unknown }>({ text: `select key, payload from oidc_payloads where model = 'AccessToken'`, params: [] });
      expect(JSON.stringify(rows)).not.toContain('secret-token-value');
      expect(await store.find('AccessToken', 'secret-token-value')).toMatchObject({ jti: 'secret-token-value', grantId: 'g1' });
      const before = Math.floor(Date.now() / 1000);
      await store.consume('AccessToken', 'secret-token-value');
      // Epoch seconds of the consumption, whatever the server's DateStyle.
      const consumed = (await store.find('AccessToken', 'secret-token-value'))?.consumed;
      expect(consumed).toBeGreaterThanOrEqual(before - 5);
      expect(consumed).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 5);
      await store.revokeByGrantId('g1');
      expect(await store.find('AccessToken', 'secret-token-value')).toBeUndefined();
    });

    it('a code is found with its grant and the live session it is bound to, in one read; a token bound to none names none', async () => {
      await store.upsert('Grant', 'grant-s1', { jti: 'grant-s1', accountId: 'acct-s', clientId: 'app-s' }, 60);
      await store.upsert('Session', 'session-s1', { jti: 'session-s1', uid: 'uid-s1', accountId: 'acct-s' }, 60);
      await store.upsert('AuthorizationCode', 'code-s1', { jti: 'code-s1', grantId: 'grant-s1', sessionUid: 'uid-s1', expiresWithSession: true }, 60);
      await store.upsert('AuthorizationCode', 'code-s2', { jti: 'code-s2', grantId: 'grant-s1', sessionUid: 'uid-gone', expiresWithSession: true }, 60);
      await store.upsert('AccessToken', 'token-s3', { jti: 'token-s3', grantId: 'grant-s1', sessionUid: 'uid-s1', expiresWithSession: false }, 60);
      const [bound] = await store.findToken('code-s1', ['AuthorizationCode']);
      expect(bound).toMatchObject({ model: 'AuthorizationCode', grantId: 'grant-s1', grant: { accountId: 'acct-s' }, sessionUid: 'uid-s1', session: { uid: 'uid-s1', accountId: 'acct-s' } });
      // Its session ended (gone from the store): the uid is named, no session is found.
      const [orphan] = await store.findToken('code-s2', ['AuthorizationCode']);
      expect(orphan!.sessionUid).toBe('uid-gone');
      expect(orphan!.session).toBeUndefined();
      await store.destroy('Session', 'session-s1');
      expect((await store.findToken('code-s1', ['AuthorizationCode']))[0]!.session).toBeUndefined();
      // Not bound to its session: the library checks none, so none is read.
      await store.upsert('AuthorizationCode', 'code-s4', { jti: 'code-s4', grantId: 'grant-s1', sessionUid: 'uid-s1', expiresWithSession: false }, 60);
      expect((await store.findToken('code-s4', ['AuthorizationCode']))[0]!.sessionUid).toBeUndefined();
      const [unbound] = await store.findToken('token-s3', ['AccessToken']);
      expect(unbound!.sessionUid).toBeUndefined();
    });

    it('a live record is taken once: of 8 takes at once one gets it; not one finished as another account, nor an expired one', async () => {
      for (let round = 0; round < 10; round++) {
        await store.upsert('Interaction', `taken-${round}`, { jti: `taken-${round}`, uid: `taken-${round}`, params: { client_id: 'app' } }, 60);
        const takes = await Promise.all(Array.from({ length: 8 }, () => store.take('Interaction', `taken-${round}`)));
        expect(takes.filter(Boolean)).toEqual([expect.objectContaining({ uid: `taken-${round}` })]);
        expect(await store.find('Interaction', `taken-${round}`)).toBeUndefined();
      }
      // A sign-in finished as another account than the browser's session holds is not taken; as that account, or none, it is.
      await store.upsert('Interaction', 'taken-bob', { jti: 'taken-bob', uid: 'taken-bob', result: { login: { accountId: 'bob' } } }, 60);
      expect(await store.take('Interaction', 'taken-bob', 'alice')).toBeUndefined();
      expect(await store.find('Interaction', 'taken-bob')).toMatchObject({ uid: 'taken-bob' });
      expect(await store.take('Interaction', 'taken-bob', 'bob')).toMatchObject({ uid: 'taken-bob' });
      await store.upsert('Interaction', 'taken-open', { jti: 'taken-open', uid: 'taken-open' }, 60);
      expect(await store.take('Interaction', 'taken-open', 'alice')).toMatchObject({ uid: 'taken-open' });
      await store.upsert('Interaction', 'taken-late', { jti: 'taken-late', uid: 'taken-late' }, -1);
      expect(await store.take('Interaction', 'taken-late')).toBeUndefined();
      await store.destroy('Interaction', 'taken-late'); // not left for the expiry sweep counted below
    });

    it("a user's grants: its own live ones only, by id and app", async () => {
      await store.upsert('Grant', 'grant-a1', { jti: 'grant-a1', accountId: 'acct-a', clientId: 'app-1' }, 60);
      await store.upsert('Grant', 'grant-a2', { jti: 'grant-a2', accountId: 'acct-a', clientId: 'app-2' }, 60);
      await store.upsert('Grant', 'grant-a0', { jti: 'grant-a0', accountId: 'acct-a', clientId: 'app-0' }, -1);
      await store.upsert('Grant', 'grant-b1', { jti: 'grant-b1', accountId: 'acct-b', clientId: 'app-1' }, 60);
      await store.upsert('Session', 'session-a', { jti: 'session-a', accountId: 'acct-a' }, 60);
      expect(await store.grantsOf('acct-a')).toEqual([
        { grantId: 'grant-a1', clientId: 'app-1' },
        { grantId: 'grant-a2', clientId: 'app-2' },
      ]);
      await store.revokeGrant('grant-a1');
      expect(await store.grantsOf('acct-a')).toEqual([{ grantId: 'grant-a2', clientId: 'app-2' }]);
      expect(await store.grantsOf('acct-b')).toEqual([{ grantId: 'grant-b1', clientId: 'app-1' }]);
      // The expired grant is the sweep's, not a later test's.
      expect(await store.deleteExpired(new Date(), 100)).toBe(1);
    });

    it('writes arriving together share transactions; one the database refuses fails alone and the rest are stored', async () => {
      const ids = Array.from({ length: 40 }, (_, i) => `shared-${i}`);
      // PostgreSQL's jsonb refuses \u0000 in a string: one bad member of the shared transaction.
      const results = await Promise.allSettled(
        ids.map((id, i) => store.upsert('AccessToken', id, { jti: id, grantId: 'g-shared', note: i === 17 ? 'nul \u0000 here' : 'fine' }, 60)),
      );
      expect(results.map((r) => r.status)).toEqual(ids.map((_, i) => (i === 17 ? 'rejected' : 'fulfilled')));
      for (const [i, id] of ids.entries()) expect(await store.find('AccessToken', id)).toEqual(i === 17 ? undefined : expect.objectContaining({ note: 'fine' }));
      // Rows written by one transaction share its xmin: 39 rows, far fewer transactions.
      const [row] = await db.database.sql.query<{ n: number }>({
        text: `select count(distinct xmin::text)::int as n from oidc_payloads where grant_id = 'g-shared'`,
        params: [],
      });
      expect(row!.n).toBeLessThan(10);
      await store.revokeByGrantId('g-shared');
    });

    it('sessions by uid; expired rows are not found and the cleanup deletes them', async () => {
      await store.upsert('Session', 'cookie-1', { jti: 'cookie-1', uid: 'uid-1', accountId: 'u' }, 60);
      expect(await store.findByUid('Session', 'uid-1')).toMatchObject({ accountId: 'u' });
      await store.upsert('Interaction', 'old', { jti: 'old' }, 60);
      await db.database.sql.query({ text: `update oidc_payloads set expires_at = now() - interval '1 hour' where key = 'old'`, params: [] });
      expect(await store.find('Interaction', 'old')).toBeUndefined();
      expect(await store.deleteExpired(new Date(), 100)).toBe(1);
      expect(await store.deleteExpired(new Date(), 100)).toBe(0);
      await store.destroy('Session', 'cookie-1');
      expect(await store.findByUid('Session', 'uid-1')).toBeUndefined();
    });

    it('device polls (RFC 8628 §3.5): the first is fine, one too soon is slow_down with 5 s more, concurrent polls are counted once each', async () => {
      const until = new Date(Date.now() + 60_000);
      expect(await store.recordDevicePoll('device-code-secret', 2, until)).toEqual({ slowDown: false, intervalSeconds: 2 });
      expect(await store.recordDevicePoll('device-code-secret', 2, until)).toEqual({ slowDown: true, intervalSeconds: 7 });
      // Two at once: each sees the other's write (the row is locked), so both are too soon and the interval grows twice.
      const both = await Promise.all([store.recordDevicePoll('device-code-secret', 2, until), store.recordDevicePoll('device-code-secret', 2, until)]);
      expect(both.map((b) => b.slowDown)).toEqual([true, true]);
      expect(both.map((b) => b.intervalSeconds).sort()).toEqual([12, 17]);
      // Stored under the code's hash, never the code.
      const rows = await db.database.sql.query<{ key: string }>({ text: `select key from oidc_payloads where model = 'DevicePoll'`, params: [] });
      expect(rows).toHaveLength(1);
      expect(rows[0]?.key).not.toContain('device-code-secret');
    });
  });
}
