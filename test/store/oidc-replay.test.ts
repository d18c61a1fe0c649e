// Replay detection of client assertions (private_key_jwt): the
// store's insertNew (src/store/oidc-store.ts) stores a jti only when no live
// one has it, in one statement — so of two stores (two Keyhold processes) on
// one database racing with the same jti exactly one succeeds; an expired
// record is replaced (the jti may be used again after it expired).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcStateStore } from '../../src/store/oidc-store.js';
import { announcePostgresSkip, freshPglite, freshPostgres, postgresAvailable, type FreshDatabase } from '../support/databases.js';

announcePostgresSkip('oidc replay detection on PostgreSQL');

for (const [engine, fresh, skip] of [
  ['PGlite', freshPglite, false],
  ['PostgreSQL', freshPostgres, !postgresAvailable],
] as const) {
  describe.skipIf(skip)(`replay detection on ${engine}`, () => {
    let db: FreshDatabase;
    beforeAll(async () => {
      db = await fresh();
    }, 60_000);
    afterAll(async () => db?.cleanup());

    it('of 20 concurrent inserts of one jti through two stores, exactly one succeeds; another jti is independent', async () => {
      const stores = [createOidcStateStore(db.database), createOidcStateStore(db.database)];
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 2]!.insertNew('ReplayDetection', 'jti-1', { jti: 'jti-1', iss: 'client' }, 60)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await stores[0]!.insertNew('ReplayDetection', 'jti-2', { jti: 'jti-2', iss: 'client' }, 60)).toBe(true);
      expect(await stores[1]!.find('ReplayDetection', 'jti-1')).toMatchObject({ iss: 'client' });
    });

    it('saved for 0 seconds (in its assertion\'s last second): refused again at once, and it still expires', async () => {
      const store = createOidcStateStore(db.database);
      expect(await store.insertNew('ReplayDetection', 'jti-last-second', { jti: 'jti-last-second', iss: 'client' }, 0)).toBe(true);
      expect(await store.insertNew('ReplayDetection', 'jti-last-second', { jti: 'jti-last-second', iss: 'client' }, 0)).toBe(false);
      const [row] = await db.database.sql.query<{ expiring: boolean }>({
        text: `select expires_at is not null and expires_at <= now() + interval '2 seconds' as expiring from oidc_payloads where key = 'jti-last-second'`,
        params: [],
      });
      expect(row?.expiring).toBe(true);
    });

    it('an expired record is replaced: the jti is accepted again', async () => {
      const store = createOidcStateStore(db.database);
      expect(await store.insertNew('ReplayDetection', 'jti-old', { jti: 'jti-old', iss: 'client' }, 60)).toBe(true);
      expect(await store.insertNew('ReplayDetection', 'jti-old', { jti: 'jti-old', iss: 'client' }, 60)).toBe(false);
      await db.database.sql.query({ text: `update oidc_payloads set expires_at = now() - interval '1 second' where key = 'jti-old'`, params: [] });
      expect(await store.insertNew('ReplayDetection', 'jti-old', { jti: 'jti-old', iss: 'client' }, 60)).toBe(true);
    });
  });
}
