// Guessing budgets on the database (src/store/attempt-budgets.ts) on PGlite
// and, with TEST_DATABASE_URL, PostgreSQL — there also through two separate
// connection pools, as two processes would share it: reservations are
// decided under a row lock, so a burst gets exactly what the rules allow.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS, FIRST_DELAY_SECONDS, type BucketRequest } from '../../src/domain/identity/attempt-budget.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { createAttemptBudgets, type AttemptBudgets } from '../../src/store/attempt-budgets.js';
import { announcePostgresSkip, freshPglite, freshPostgres, postgresAvailable, tempDir, type FreshDatabase } from '../support/databases.js';

announcePostgresSkip('attempt budgets on PostgreSQL');

const SECRET = randomBytes(32);
const ROUNDS = 20;
const BURST = 8;
const unique = () => randomBytes(6).toString('hex');
const account = (key = unique()): BucketRequest => ({ kind: 'password.account.client', key });
const FREE = BUCKETS['password.account.client'].free;

for (const [engine, fresh, skip] of [
  ['PGlite', freshPglite, false],
  ['PostgreSQL', freshPostgres, !postgresAvailable],
] as const) {
  describe.skipIf(skip)(`attempt budgets on ${engine}`, () => {
    let db: FreshDatabase;
    let second: Database | undefined;
    /** Who reserves: on PostgreSQL every other caller goes through a second pool. */
    let budgets: AttemptBudgets[];
    beforeAll(async () => {
      db = await fresh();
      budgets = [createAttemptBudgets(db.database, SECRET)];
      if (db.databaseUrl) {
        second = await openDatabase({ databaseUrl: db.databaseUrl, dataDir: await tempDir() });
        budgets.push(createAttemptBudgets(second, SECRET));
      }
    }, 60_000);
    afterAll(async () => {
      await second?.close();
      await db?.cleanup();
    });

    const burst = (requests: BucketRequest[]) => Promise.all(Array.from({ length: BURST }, (_, i) => budgets[i % budgets.length]!.reserve(requests)));
    const allowed = (results: Awaited<ReturnType<typeof burst>>) => results.filter((r) => r.ok);
    /** Moves every streak's last failure back, as if `seconds` had passed. */
    const age = (seconds: number) => db.database.sql.query({ text: `update attempt_budgets set last_failure_at = last_failure_at - make_interval(secs => $1)`, params: [seconds] });

    it('a burst on a new bucket gets the free allowance and no more; their failures engage the delay', async () => {
      const bucket = account();
      const results = await burst([bucket]);
      expect(allowed(results)).toHaveLength(FREE);
      const refused = results.filter((r) => !r.ok);
      for (const r of refused) expect(r).toEqual({ ok: false, waitSeconds: 1 });
      const finished = await Promise.all(allowed(results).map((r) => (r.ok ? r.finish('failure') : [])));
      expect(finished.map((f) => f[0]!.failures).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
      expect(await budgets[0]!.reserve([bucket])).toEqual({ ok: false, waitSeconds: FIRST_DELAY_SECONDS });
    });

    it(`beyond the allowance, once the delay passed: exactly one of ${BURST} concurrent attempts, ${ROUNDS} rounds`, async () => {
      const bucket = account();
      for (let i = 0; i < FREE; i++) {
        const r = await budgets[0]!.reserve([bucket]);
        if (r.ok) await r.finish('failure');
      }
      for (let round = 0; round < ROUNDS; round++) {
        await age(3600 - 60); // past any delay, inside the window
        const winners = allowed(await burst([bucket]));
        expect(winners, `round ${round}`).toHaveLength(1);
        const [winner] = winners;
        if (winner?.ok) await winner.finish('failure');
      }
    }, 120_000);

    it(`a lockout policy of 3 with 2 recorded wrong passwords: exactly one check in flight, ${ROUNDS} rounds`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const userId = `user-${unique()}`;
        for (const [sequence, type] of [[1, 'user.human.added'], [2, 'user.password.check.failed'], [3, 'user.password.check.failed']] as const) {
          await db.database.sql.query({
            text: `insert into events (aggregate_type, aggregate_id, sequence, type, payload, resource_owner, creator) values ('user', $1, $2, $3, '{}'::jsonb, 'org', $1)`,
            params: [userId, sequence, type],
          });
        }
        const lockout: BucketRequest = { kind: 'lockout', userId, maxAttempts: 3 };
        const winners = allowed(await burst([lockout, account()]));
        expect(winners, `round ${round}`).toHaveLength(1);
        const [winner] = winners;
        if (winner?.ok) await winner.finish('none');
      }
    }, 120_000);

    it('the lockout bound counts from the last successful login; a policy below the count still lets one check run', async () => {
      const userId = `user-${unique()}`;
      const types = ['user.human.added', 'user.password.check.failed', 'user.password.check.failed', 'user.login.succeeded', 'user.password.check.failed'];
      for (const [i, type] of types.entries()) {
        await db.database.sql.query({
          text: `insert into events (aggregate_type, aggregate_id, sequence, type, payload, resource_owner, creator) values ('user', $1, $2, $3, '{}'::jsonb, 'org', $1)`,
          params: [userId, i + 1, type],
        });
      }
      // 1 failure since the login: 5 − 1 = 4 at once.
      expect(allowed(await burst([{ kind: 'lockout', userId, maxAttempts: 5 }]))).toHaveLength(4);
      await db.database.sql.query({ text: `update attempt_budgets set in_flight = 0`, params: [] });
      expect(allowed(await burst([{ kind: 'lockout', userId, maxAttempts: 1 }]))).toHaveLength(1);
    });

    it('all or none: a full bucket refuses the attempt and the others are not held', async () => {
      const full = account();
      const other = account();
      for (let i = 0; i < FREE; i++) {
        const r = await budgets[0]!.reserve([full]);
        if (r.ok) await r.finish('failure');
      }
      const rowCount = async () => Number((await db.database.sql.query<{ n: number }>({ text: `select count(*)::int as n from attempt_budgets`, params: [] }))[0]!.n);
      const before = await rowCount();
      expect((await budgets[0]!.reserve([other, full])).ok).toBe(false);
      // A refused guess leaves no row behind: a spray of new names past a full address fills nothing.
      expect(await rowCount()).toBe(before);
      // `other` holds nothing: its whole allowance is still there.
      expect(allowed(await burst([other]))).toHaveLength(FREE);
    });

    it('a success clears the streak of a bucket it clears, not of an address', async () => {
      const mine = account();
      const address: BucketRequest = { kind: 'password.address', key: unique() };
      for (let i = 0; i < 3; i++) {
        const r = await budgets[0]!.reserve([mine, address]);
        if (r.ok) await r.finish('failure');
      }
      const right = await budgets[0]!.reserve([mine, address]);
      expect(right.ok && (await right.finish('success'))).toEqual(expect.arrayContaining([{ kind: 'password.account.client', failures: 0 }, { kind: 'password.address', failures: 3 }]));
    });

    it('a reservation never finished (a process that died) stops holding its place after its time; its late finish releases nobody else', async () => {
      const bucket = account();
      for (let i = 0; i < FREE; i++) {
        const r = await budgets[0]!.reserve([bucket]);
        if (r.ok) await r.finish('failure');
      }
      await age(3600 - 60);
      const lost = await budgets[0]!.reserve([bucket]);
      expect(lost.ok).toBe(true);
      expect((await budgets[0]!.reserve([bucket])).ok).toBe(false);
      await db.database.sql.query({ text: `update attempt_budgets set in_flight_until = now() - interval '1 second' where in_flight > 0`, params: [] });
      const next = await budgets[0]!.reserve([bucket]);
      expect(next.ok).toBe(true);
      // The lost one comes back late: its failure counts, but the newer reservation still holds the bucket.
      if (lost.ok) await lost.finish('failure');
      expect((await budgets[0]!.reserve([bucket])).ok).toBe(false);
      if (next.ok) await next.finish('none');
    });

    it('the table holds no name, address or user id in clear; expired buckets are swept', async () => {
      await budgets[0]!.reserve([{ kind: 'password.address', key: '203.0.113.9' }, { kind: 'lockout', userId: 'user-in-clear', maxAttempts: 3 }]);
      const rows = await db.database.sql.query<{ key: string }>({ text: `select key from attempt_budgets`, params: [] });
      expect(JSON.stringify(rows)).not.toMatch(/203\.0\.113\.9|user-in-clear/);
      await db.database.sql.query({ text: `update attempt_budgets set expires_at = now() - interval '1 second'`, params: [] });
      expect(await budgets[0]!.deleteExpired(10_000)).toBe(rows.length);
      expect(await budgets[0]!.deleteExpired(10_000)).toBe(0);
    });
  });
}
