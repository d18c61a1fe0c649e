// The OpenID Provider store's one-time writes (src/store/oidc-store.ts):
// consume, replaceIf, destroy and revokeGrant are each one conditional
// statement, and a device code's poll is counted under a row lock, so of 8 requests through two stores (two Keyhold processes'
// worth of connections and shared transactions) on one database exactly one
// wins, round after round; on PGlite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcStateStore, type OidcStateStore } from '../../src/store/oidc-store.js';
import { announcePostgresSkip, freshPglite, freshPostgres, postgresAvailable, type FreshDatabase } from '../support/databases.js';

announcePostgresSkip('one-time writes of the oidc state store on PostgreSQL');

const ROUNDS = 20;
const AT_ONCE = 8;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

for (const [engine, fresh, skip] of [
  ['PGlite', freshPglite, false],
  ['PostgreSQL', freshPostgres, !postgresAvailable],
] as const) {
  describe.skipIf(skip)(`one-time writes on ${engine}`, () => {
    let db: FreshDatabase;
    let stores: OidcStateStore[];
    const through = (i: number) => stores[i % stores.length]!;
    beforeAll(async () => {
      db = await fresh();
      stores = [createOidcStateStore(db.database), createOidcStateStore(db.database)];
    }, 60_000);
    afterAll(async () => db?.cleanup());

    it('consume: exactly one of 8 at once consumes a code; a consumed or gone code is consumed by nobody', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const code = `code-${round}`;
        await stores[0]!.upsert('AuthorizationCode', code, { jti: code, grantId: `g-${round}` }, 60);
        const won = await Promise.all(range(AT_ONCE).map((i) => through(i).consume('AuthorizationCode', code)));
        expect(won.filter(Boolean)).toHaveLength(1);
        expect(await stores[1]!.consume('AuthorizationCode', code)).toBe(false);
        expect((await stores[1]!.find('AuthorizationCode', code))?.consumed).toEqual(expect.any(Number));
      }
      expect(await stores[0]!.consume('AuthorizationCode', 'never-stored')).toBe(false);
    });

    it('replaceIf: exactly one of 8 at once replaces a record expecting one value; absent fields expected as null; expired records never', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const id = `login-${round}`;
        await stores[0]!.upsert('Interaction', id, { jti: id, result: { step: { challenge: 'c1' } } }, 60);
        const expected = [{ path: ['result', 'step', 'challenge'], equals: 'c1' }];
        const won = await Promise.all(range(AT_ONCE).map((i) => through(i).replaceIf('Interaction', id, { jti: id, result: { step: { taker: i } } }, 60, expected)));
        expect(won.filter(Boolean)).toHaveLength(1);
        const taker = won.indexOf(true);
        expect(await stores[1]!.find('Interaction', id)).toMatchObject({ result: { step: { taker } } });
      }
      // null: the field is absent (several expectations: all of them must hold).
      await stores[0]!.upsert('DeviceCode', 'device-1', { jti: 'device-1', userCode: 'ABCD' }, 60);
      const claim = [
        { path: ['inFlight'], equals: null },
        { path: ['accountId'], equals: null },
      ];
      const claimed = await Promise.all(range(AT_ONCE).map((i) => through(i).replaceIf('DeviceCode', 'device-1', { jti: 'device-1', userCode: 'ABCD', inFlight: true }, 60, claim)));
      expect(claimed.filter(Boolean)).toHaveLength(1);
      expect(await stores[1]!.findByUserCode('DeviceCode', 'ABCD')).toMatchObject({ inFlight: true });
      // Gone or expired: nothing to replace.
      expect(await stores[0]!.replaceIf('Interaction', 'never-stored', { jti: 'never-stored' }, 60, [])).toBe(false);
      await stores[0]!.upsert('Interaction', 'old', { jti: 'old' }, 60);
      await db.database.sql.query({ text: `update oidc_payloads set expires_at = now() - interval '1 second' where model = 'Interaction' and key = 'old'`, params: [] });
      expect(await stores[0]!.replaceIf('Interaction', 'old', { jti: 'old', late: true }, 60, [])).toBe(false);
    });

    it('recordDevicePoll: of 8 first polls of a device code at once exactly one is in time, the others too soon', async () => {
      const until = new Date(Date.now() + 60_000);
      for (let round = 0; round < ROUNDS; round++) {
        const polls = await Promise.all(range(AT_ONCE).map((i) => through(i).recordDevicePoll(`device-code-${round}`, 5, until)));
        expect(polls.filter((p) => !p.slowDown)).toHaveLength(1);
      }
    });

    it('destroy and revokeGrant: exactly one of 8 at once deletes, and is told what it deleted; the grant goes with all its artifacts', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const id = `resume-${round}`;
        await stores[0]!.upsert('Interaction', id, { jti: id, uid: id }, 60);
        const deleted = await Promise.all(range(AT_ONCE).map((i) => through(i).destroy('Interaction', id)));
        expect(deleted.filter(Boolean)).toEqual([expect.objectContaining({ uid: id })]);

        const grantId = `grant-${round}`;
        await stores[0]!.upsert('Grant', grantId, { jti: grantId, accountId: 'user-1', clientId: 'app-1' }, 60);
        await stores[0]!.upsert('AccessToken', `at-${round}`, { jti: `at-${round}`, grantId }, 60);
        await stores[0]!.upsert('RefreshToken', `rt-${round}`, { jti: `rt-${round}`, grantId }, 60);
        const revoked = await Promise.all(range(AT_ONCE).map((i) => through(i).revokeGrant(grantId)));
        expect(revoked.filter(Boolean)).toEqual([expect.objectContaining({ accountId: 'user-1', clientId: 'app-1' })]);
        for (const [model, key] of [
          ['Grant', grantId],
          ['AccessToken', `at-${round}`],
          ['RefreshToken', `rt-${round}`],
        ] as const) {
          expect(await stores[1]!.find(model, key)).toBeUndefined();
        }
      }
    });
  });
}
