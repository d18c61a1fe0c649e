// The one-time codes sent by mail (src/store/email-codes.ts) on both
// backends: used once — of 8 uses at once, in each of 5 rounds, exactly one
// gets the owner — never after expiry; a new code leaves the older ones
// working and using any one retires the rest — of 8 uses at once spread over
// three live codes of one account, 5 rounds, exactly one wins; the issue
// budget per window — also for 8 requests at once from two stores, 5 rounds:
// never more than the window allows, each issued code live — and the expired
// rows swept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmailCodes } from '../../src/commands/ports.js';
import { createEmailCodes } from '../../src/store/email-codes.js';
import { announcePostgresSkip, freshPglite, freshPostgres, postgresAvailable, type FreshDatabase } from '../support/databases.js';

announcePostgresSkip('mailed one-time codes on PostgreSQL');

const backends = [
  ['PGlite', freshPglite, true],
  ['PostgreSQL', freshPostgres, postgresAvailable],
] as const;

for (const [name, open, available] of backends) {
  describe.skipIf(!available)(`mailed one-time codes on ${name}`, () => {
    let db: FreshDatabase;
    let codes: EmailCodes;
    beforeAll(async () => {
      db = await open();
      codes = createEmailCodes(db.database);
    }, 60_000);
    afterAll(async () => {
      await db?.cleanup();
    });

    const issue = (codeHash: string, userId: string, extra: Partial<Parameters<EmailCodes['issue']>[0]> = {}) =>
      codes.issue({ purpose: 'reset', codeHash, userId, email: `${userId}@example.com`, ttlSeconds: 3600, perWindow: 100, windowSeconds: 900, ...extra });

    it('gives a code\'s owner to exactly one of 8 uses at once, in each of 5 rounds', async () => {
      for (let round = 0; round < 5; round++) {
        expect(await issue(`race-${round}`, `u-race-${round}`)).toBe(true);
        expect(await codes.peek('reset', `race-${round}`)).toEqual({ userId: `u-race-${round}`, email: `u-race-${round}@example.com` });
        const got = await Promise.all(Array.from({ length: 8 }, () => codes.use('reset', `race-${round}`)));
        expect(got.filter(Boolean)).toEqual([{ userId: `u-race-${round}`, email: `u-race-${round}@example.com` }]);
        expect(await codes.peek('reset', `race-${round}`)).toBeUndefined();
      }
    });

    it('works only for its purpose, not after expiry; a new code leaves the older ones working, using one retires the rest', async () => {
      await issue('p1', 'u-p');
      expect(await codes.use('verify', 'p1')).toBeUndefined();
      await issue('p2', 'u-p');
      await issue('p3', 'u-p');
      // Another account's code and another purpose's are not the account's reset codes.
      await issue('p-other', 'u-p-other');
      await issue('p-verify', 'u-p', { purpose: 'verify' });
      // A request after the person's own (someone else's, perhaps) does not take the person's code away.
      expect(await codes.peek('reset', 'p1')).toEqual({ userId: 'u-p', email: 'u-p@example.com' });
      expect(await codes.use('reset', 'p1')).toMatchObject({ userId: 'u-p' });
      // One code used: the account's other codes for the purpose are spent with it.
      expect(await codes.peek('reset', 'p2')).toBeUndefined();
      expect(await codes.use('reset', 'p2')).toBeUndefined();
      expect(await codes.use('reset', 'p3')).toBeUndefined();
      expect(await codes.use('reset', 'p-other')).toMatchObject({ userId: 'u-p-other' });
      expect(await codes.use('verify', 'p-verify')).toMatchObject({ userId: 'u-p' });
      await issue('old', 'u-old', { ttlSeconds: 1 });
      await db.database.sql.query({ text: `update email_codes set expires_at = now() - interval '1 second' where code_hash = 'old'`, params: [] });
      expect(await codes.peek('reset', 'old')).toBeUndefined();
      expect(await codes.use('reset', 'old')).toBeUndefined();
      expect(await codes.countExpired(100)).toBeGreaterThanOrEqual(1);
      expect(await codes.deleteExpired(100)).toBeGreaterThanOrEqual(1);
      expect(await codes.countExpired(100)).toBe(0);
      const [row] = await db.database.sql.query<{ n: number }>({ text: `select count(*)::int as n from email_codes where code_hash = 'old'`, params: [] });
      expect(Number(row?.n)).toBe(0);
    });

    it('8 requests at once for one account, two stores as two processes, 5 rounds: at most the window\u2019s codes issued, each of them live', async () => {
      const second = createEmailCodes(db.database);
      for (let round = 0; round < 5; round++) {
        const userId = `u-flood-${round}`;
        const issued = await Promise.all(
          Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? codes : second).issue({ purpose: 'reset', codeHash: `flood-${round}-${i}`, userId, email: `${userId}@example.com`, ttlSeconds: 3600, perWindow: 3, windowSeconds: 900 })),
        );
        expect(issued.filter(Boolean), `round ${round}`).toHaveLength(3);
        const live = await db.database.sql.query<{ code_hash: string }>({ text: `select code_hash from email_codes where user_id = $1 and used_at is null order by code_hash`, params: [userId] });
        expect(live.map((r) => r.code_hash), `round ${round}`).toEqual(issued.flatMap((ok, i) => (ok ? [`flood-${round}-${i}`] : [])).sort());
      }
    });

    it('8 uses at once spread over three live codes of one account, two stores, 5 rounds: exactly one wins, none stays live', async () => {
      const second = createEmailCodes(db.database);
      for (let round = 0; round < 5; round++) {
        const userId = `u-spread-${round}`;
        for (let c = 0; c < 3; c++) expect(await issue(`spread-${round}-${c}`, userId, { perWindow: 3 })).toBe(true);
        for (let c = 0; c < 3; c++) expect(await codes.peek('reset', `spread-${round}-${c}`), `round ${round} code ${c}`).toEqual({ userId, email: `${userId}@example.com` });
        const got = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? codes : second).use('reset', `spread-${round}-${i % 3}`)));
        expect(got.filter(Boolean), `round ${round}`).toEqual([{ userId, email: `${userId}@example.com` }]);
        const [live] = await db.database.sql.query<{ n: number }>({ text: `select count(*)::int as n from email_codes where user_id = $1 and used_at is null`, params: [userId] });
        expect(Number(live?.n), `round ${round}`).toBe(0);
      }
    });

    it('issues at most `perWindow` codes per user and purpose within the window', async () => {
      const budget = { perWindow: 3, windowSeconds: 900 };
      const issued = [];
      for (let i = 0; i < 5; i++) issued.push(await issue(`w-${i}`, 'u-w', budget));
      expect(issued).toEqual([true, true, true, false, false]);
      expect(await issue('w-other', 'u-w2', budget)).toBe(true);
    });
  });
}
