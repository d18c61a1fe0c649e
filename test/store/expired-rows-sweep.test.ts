// The deletes behind the housekeeping sweep (src/server/housekeeping.ts) on a
// real database: on PostgreSQL a batch skips the rows another transaction
// holds instead of waiting for it (several processes sweep one database, and a
// login may be consuming a row), and takes them at the next sweep; on PGlite,
// which runs no autovacuum, the space of swept rows is used again, so the
// table's files stop growing once writes and sweeps balance.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAttemptBudgets } from '../../src/store/attempt-budgets.js';
import { createIdempotentAnswers } from '../../src/store/idempotent-answers.js';
import { createOidcStateStore, type OidcStateStore } from '../../src/store/oidc-store.js';
import { announcePostgresSkip, freshPglite, freshPostgres, postgresAvailable, type FreshDatabase } from '../support/databases.js';

announcePostgresSkip('the expired-rows sweep on PostgreSQL');

/** `n` access tokens, already expired, each with a payload of about a real token's size. */
async function expiredTokens(db: FreshDatabase, store: OidcStateStore, prefix: string, n: number): Promise<void> {
  await Promise.all(Array.from({ length: n }, (_, i) => store.upsert('AccessToken', `${prefix}-${i}`, { jti: `${prefix}-${i}`, grantId: `g-${i}`, accountId: 'u', scope: 'openid profile email', claims: 'x'.repeat(400) }, 60)));
  await db.database.sql.query({ text: `update oidc_payloads set expires_at = now() - interval '1 second' where model = 'AccessToken'`, params: [] });
}

async function rowsOf(db: FreshDatabase, table: string): Promise<number> {
  const [row] = await db.database.sql.query<{ n: number }>({ text: `select count(*)::int as n from ${table}`, params: [] });
  return Number(row?.n);
}

describe.skipIf(!postgresAvailable)('the expired-rows sweep on PostgreSQL', () => {
  let db: FreshDatabase;
  let holder: postgres.Sql;
  beforeAll(async () => {
    db = await freshPostgres();
    holder = postgres(db.databaseUrl!, { max: 1, onnotice: () => {} });
  }, 60_000);
  afterAll(async () => {
    await holder?.end({ timeout: 5 });
    await db?.cleanup();
  });

  it('skips expired rows another transaction holds, without waiting, in every swept table, and takes them once released', async () => {
    const store = createOidcStateStore(db.database);
    const attempts = createAttemptBudgets(db.database, Buffer.alloc(32, 1));
    const answers = createIdempotentAnswers(db.database);
    await expiredTokens(db, store, 'held', 5);
    await db.database.sql.query({
      text: `insert into attempt_budgets (key, expires_at) select 'budget-' || i, now() - interval '1 second' from generate_series(1, 5) i`,
      params: [],
    });
    await db.database.sql.query({
      text: `insert into idempotent_answers (key, request_digest, owner, running_until, expires_at)
             select 'answer-' || i, 'digest', 'owner', now(), now() - interval '1 second' from generate_series(1, 5) i`,
      params: [],
    });
    const sweeps: Array<[string, (limit: number) => Promise<number>, string]> = [
      ['oidc_payloads', (limit) => store.deleteExpired(new Date(), limit), `select 1 from oidc_payloads where key = (select key from oidc_payloads order by key limit 1) for update`],
      ['attempt_budgets', (limit) => attempts.deleteExpired(limit), `select 1 from attempt_budgets where key = 'budget-1' for update`],
      ['idempotent_answers', (limit) => answers.deleteExpired(limit), `select 1 from idempotent_answers where key = 'answer-1' for update`],
    ];
    for (const [table, deleteExpired, lockOne] of sweeps) {
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const holding = holder.begin(async (tx) => {
        await tx.unsafe(lockOne);
        locked();
        await released;
      });
      await isLocked;
      try {
        const started = Date.now();
        expect(await deleteExpired(100), table).toBe(4);
        // Waiting for the lock would take until the release below.
        expect(Date.now() - started, table).toBeLessThan(2_000);
        expect(await rowsOf(db, table), table).toBe(1);
      } finally {
        release();
        await holding;
      }
      expect(await deleteExpired(100), table).toBe(1);
      expect(await rowsOf(db, table), table).toBe(0);
    }
  });

  it('a row being renewed is skipped, and stays once its window is renewed', async () => {
    const store = createOidcStateStore(db.database);
    await expiredTokens(db, store, 'renewed', 3);
    // The renewal runs first and holds its row; the sweep skips it and so cannot delete it in its renewed form.
    await holder.begin(async (tx) => {
      await tx.unsafe(`update oidc_payloads set expires_at = now() + interval '1 hour' where key = (select key from oidc_payloads order by key limit 1)`);
      expect(await store.deleteExpired(new Date(), 100)).toBe(2);
    });
    expect(await store.deleteExpired(new Date(), 100)).toBe(0);
    expect(await rowsOf(db, 'oidc_payloads')).toBe(1);
  });
});

describe('the expired-rows sweep on PGlite', () => {
  let db: FreshDatabase;
  beforeAll(async () => {
    db = await freshPglite();
  }, 60_000);
  afterAll(async () => db?.cleanup());

  it("reclaims the swept rows' space: rounds of writes and sweeps leave the table's size where the first round put it", async () => {
    const store = createOidcStateStore(db.database);
    const size = async () => {
      const [row] = await db.database.sql.query<{ bytes: string }>({ text: `select pg_total_relation_size('oidc_payloads')::text as bytes`, params: [] });
      return Number(row?.bytes);
    };
    const sizes: number[] = [];
    for (let round = 0; round < 4; round++) {
      await expiredTokens(db, store, `round-${round}`, 2_000);
      expect(await store.deleteExpired(new Date(), 5_000)).toBe(2_000);
      await db.database.reclaim!(['oidc_payloads']);
      sizes.push(await size());
    }
    // Without the vacuum every round adds its rows' pages (about 3 MB here): four rounds, four times the first.
    // With it the space of a round's rows is used by the next: the size stays where the first two rounds put it.
    expect(sizes[3]).toBeLessThanOrEqual(Math.max(sizes[0]!, sizes[1]!) * 1.1);
  });

  it('vacuums only the tables the sweep deletes from', async () => {
    await expect(db.database.reclaim!(['events; drop table events'])).rejects.toThrow(/not a table the sweep reclaims/);
  });
});
