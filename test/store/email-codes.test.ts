// The one-time codes sent by mail (src/store/email-codes.ts) on both
// backends: used once — of 8 uses at once, in each of 5 rounds, exactly one
// gets the owner — never after expiry, the older codes of a user retired by a
// new one, the issue budget per window, and the expired rows swept.
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

    it('works only for its purpose, not after expiry, and a new code retires the older ones', async () => {
      await issue('p1', 'u-p');
      expect(await codes.use('verify', 'p1')).toBeUndefined();
      await issue('p2', 'u-p');
      expect(await codes.use('reset', 'p1')).toBeUndefined();
      expect(await codes.use('reset', 'p2')).toMatchObject({ userId: 'u-p' });
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

    it('issues at most `perWindow` codes per user and purpose within the window', async () => {
      const budget = { perWindow: 3, windowSeconds: 900 };
      const issued = [];
      for (let i = 0; i < 5; i++) issued.push(await issue(`w-${i}`, 'u-w', budget));
      expect(issued).toEqual([true, true, true, false, false]);
      expect(await issue('w-other', 'u-w2', budget)).toBe(true);
    });
  });
}
