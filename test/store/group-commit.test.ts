// Group commit (src/store/group-commit.ts) through the event store, on real
// databases: concurrent appends share transactions, yet each keeps its own
// outcome. The database handle is wrapped only to count the transactions the
// store opens; every statement runs on the real engine.
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupCommitter } from '../../src/store/group-commit.js';
import type { SqlStatement } from '../../src/store/sql.js';
import type { OidcConfig } from '../../src/domain/oidc/types.js';
import type { Database } from '../../src/store/database.js';
import { createEventStore, type EventStore } from '../../src/store/event-store.js';
import { ConcurrencyConflict, DatabaseUnavailable, UniqueViolation } from '../../src/store/errors.js';
import * as q from '../../src/store/queries/index.js';
import { announcePostgresSkip, freshPglite, freshPostgres, postgresAvailable, type FreshDatabase, knownOrgs } from '../support/databases.js';

const id = (prefix: string) => `${prefix}-${randomUUID()}`;

/** The store over `database`, and the statement count of every transaction it opened. */
function countingStore(database: Database): { store: EventStore; transactions: number[] } {
  const transactions: number[] = [];
  const sql = {
    query: database.sql.query.bind(database.sql),
    atomic: (statements: Parameters<Database['sql']['atomic']>[0]) => {
      transactions.push(statements.length);
      return database.sql.atomic(statements);
    },
  };
  return { store: createEventStore({ kind: database.kind, sql }), transactions };
}

/** The orgs the projects below name (the read model refers each project to its org). */
let fixtureDatabase: Database | undefined;
const orgsMade = new WeakMap<Database, Map<string, Promise<void>>>();

async function addProject(store: EventStore, orgId: string, projectId = id('project')) {
  if (fixtureDatabase) {
    const made = orgsMade.get(fixtureDatabase) ?? new Map<string, Promise<void>>();
    orgsMade.set(fixtureDatabase, made);
    if (!made.has(orgId)) made.set(orgId, knownOrgs(fixtureDatabase, orgId));
    await made.get(orgId);
  }
  return store.append(
    [{ type: 'project.added', aggregateType: 'project', aggregateId: projectId, payload: { name: 'P' }, resourceOwner: orgId, creator: 'u' }],
    [{ aggregateType: 'project', aggregateId: projectId, sequence: 0 }],
  );
}

function addApp(store: EventStore, orgId: string, projectId: string, name: string, appId = id('app')) {
  return store.append(
    [
      { type: 'app.added', aggregateType: 'app', aggregateId: appId, payload: { projectId, name }, resourceOwner: orgId, creator: 'u' },
      {
        type: 'app.oidc.config.added',
        aggregateType: 'app',
        aggregateId: appId,
        payload: { clientId: id('client'), clientSecretHash: 'h', config: { appType: 'WEB' } as unknown as OidcConfig },
        resourceOwner: orgId,
        creator: 'u',
      },
    ],
    [{ aggregateType: 'app', aggregateId: appId, sequence: 0 }],
  );
}

function groupCommitContract(driver: string, open: () => Promise<FreshDatabase>): void {
  describe(`group commit: ${driver}`, () => {
    let fixture: FreshDatabase;
    beforeAll(async () => {
      fixture = await open();
      fixtureDatabase = fixture.database;
    });
    afterAll(async () => {
      await fixture?.cleanup();
    });

    it('50 concurrent appends land in far fewer than 50 transactions, each with its own events', async () => {
      const { store, transactions } = countingStore(fixture.database);
      const orgId = id('org');
      const ids = Array.from({ length: 50 }, () => id('project'));
      const appended = await Promise.all(ids.map((projectId) => addProject(store, orgId, projectId)));

      // The first starts alone; the 49 that arrive while it runs share the next transaction.
      expect(transactions.length).toBeLessThanOrEqual(3);
      expect(transactions.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(50);
      appended.forEach((events, i) => {
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({ aggregateId: ids[i], sequence: 1, type: 'project.added' });
      });
      const positions = appended.map((events) => events[0]!.position);
      expect(new Set(positions).size).toBe(50);
      for (const projectId of ids) {
        expect(await store.load('project', projectId)).toHaveLength(1);
        expect(await q.findProject(fixture.database.sql, projectId)).toMatchObject({ id: projectId, orgId });
      }
    });

    it('a member refused by a unique index fails alone; the others sharing its transaction land', async () => {
      const { store, transactions } = countingStore(fixture.database);
      const orgId = id('org');
      const projectId = id('project');
      await addProject(store, orgId, projectId);
      const names = Array.from({ length: 12 }, (_, i) => (i === 4 || i === 9 ? 'same name' : `app ${i}`));
      const appIds = names.map(() => id('app'));
      const outcomes = await Promise.allSettled(names.map((name, i) => addApp(store, orgId, projectId, name, appIds[i])));

      // A shared transaction failed on the duplicate and its members were re-run around it.
      expect(transactions.some((count) => count > 2)).toBe(true);
      outcomes.forEach((outcome, i) => {
        if (i === 9) {
          expect(outcome.status).toBe('rejected');
          expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(UniqueViolation);
        } else {
          expect(outcome.status, `append ${i}`).toBe('fulfilled');
        }
      });
      const stored = await q.listApps(fixture.database.db, projectId);
      expect(stored.map((app) => app.name).sort()).toEqual(names.filter((_, i) => i !== 9).sort());
      expect(await store.load('app', appIds[9]!)).toEqual([]);
    });

    it('one refused member costs a few extra transactions, not one per member', async () => {
      const { store, transactions } = countingStore(fixture.database);
      const orgId = id('org');
      const projectId = id('project');
      await addProject(store, orgId, projectId);
      await addApp(store, orgId, projectId, 'taken');
      transactions.length = 0;
      // The first runs alone; the 39 behind it share one transaction, which fails on member 20's taken name.
      const names = Array.from({ length: 40 }, (_, i) => (i === 20 ? 'taken' : `app ${i}`));
      const outcomes = await Promise.allSettled(names.map((name) => addApp(store, orgId, projectId, name)));

      expect(outcomes.map((o) => o.status)).toEqual(names.map((_, i) => (i === 20 ? 'rejected' : 'fulfilled')));
      expect((outcomes[20] as PromiseRejectedResult).reason).toBeInstanceOf(UniqueViolation);
      // Alone, shared, then again: the 19 before it together, it alone, the 19 after it together.
      const perAppend = transactions[0]!;
      expect(transactions.map((count) => count / perAppend)).toEqual([1, 39, 19, 1, 19]);
      const stored = await q.listApps(fixture.database.db, projectId);
      expect(stored).toHaveLength(40);
    });

    it('two members expecting the same sequence of one aggregate: the earlier lands, the later conflicts', async () => {
      const { store } = countingStore(fixture.database);
      const orgId = id('org');
      const projectId = id('project');
      // Both written against the project as loaded after its add (sequence 1).
      const addMember = (userId: string) =>
        store.append(
          [
            {
              type: 'project.member.added',
              aggregateType: 'project',
              aggregateId: projectId,
              payload: { userId, roles: ['PROJECT_OWNER'] },
              resourceOwner: orgId,
              creator: 'u',
            },
          ],
          [{ aggregateType: 'project', aggregateId: projectId, sequence: 1 }],
        );
      // The add runs alone; the three behind it queue and share one transaction.
      const outcomes = await Promise.allSettled([addProject(store, orgId, projectId), addMember('user-a'), addProject(store, orgId), addMember('user-b')]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
      expect((outcomes[3] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyConflict);
      const events = await store.load('project', projectId);
      expect(events.map((e) => [e.sequence, e.type, e.payload])).toEqual([
        [1, 'project.added', { name: 'P' }],
        [2, 'project.member.added', { userId: 'user-a', roles: ['PROJECT_OWNER'] }],
      ]);
    });
  });
}

groupCommitContract('PGlite', freshPglite);

announcePostgresSkip('group commit: PostgreSQL');
describe.skipIf(!postgresAvailable)('PostgreSQL', () => {
  groupCommitContract('PostgreSQL', freshPostgres);

  it('a transaction stuck on a lock does not hold up the appends behind it', async () => {
    const fixture = await freshPostgres();
    fixtureDatabase = fixture.database;
    const other = postgres(fixture.databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      const store = createEventStore(fixture.database);
      // Another session holds the first event of `blockedId` uncommitted: appending it waits on the unique key.
      const blockedId = id('project');
      const session = await other.reserve();
      await session`begin`;
      await session`insert into events (aggregate_type, aggregate_id, sequence, type, payload, resource_owner, creator)
                    values ('project', ${blockedId}, 1, 'project.added', '{"name":"theirs"}', 'org', 'u')`;
      const blocked = addProject(store, 'org', blockedId).then(
        () => 'appended',
        (e: unknown) => e,
      );
      await new Promise((r) => setTimeout(r, 50));
      const others = Promise.all(Array.from({ length: 10 }, () => addProject(store, id('org'))));
      const outcome = await Promise.race([others.then(() => 'others done'), new Promise((r) => setTimeout(() => r('others still waiting'), 10_000))]);
      expect(outcome).toBe('others done');
      expect(await Promise.race([blocked, Promise.resolve('still blocked')])).toBe('still blocked');
      await session`rollback`;
      session.release();
      expect(await blocked).toBe('appended');
      expect((await store.load('project', blockedId)).map((e) => e.payload)).toEqual([{ name: 'P' }]);
    } finally {
      await other.end();
      await fixture.cleanup();
    }
  }, 60_000); // a fresh database and a 10 s bound inside: a machine running the whole suite took over 30 s once

  it('an unreachable database fails the waiting appends at once: no re-runs, no second wait behind the first', async () => {
    const fixture = await freshPostgres();
    // Nothing lands on a closed database: no org rows to make first.
    fixtureDatabase = undefined;
    try {
      const { store, transactions } = countingStore(fixture.database);
      await fixture.database.close();
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => addProject(store, id('org'))));
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(DatabaseUnavailable);
      }
      // The first went alone; the nine queued behind it failed with it, without a transaction of their own.
      expect(transactions).toHaveLength(1);
    } finally {
      await fixture.cleanup();
    }
  });
});

// The rules for failures the real databases above do not produce on demand,
// with scripted answers: which calls the committer makes, and who gets what.
describe('group commit: failures without a statement index, refusals for everyone, outages mid re-run', () => {
  const statement = (n: number): SqlStatement => ({ text: `member ${n}`, params: [] });
  const failure = (code: string) => Object.assign(new Error(`scripted ${code}`), { code });

  /** A committer over scripted answers: `answer` sees the members of each call, in order. */
  function scripted(answer: (members: number[]) => Error | undefined) {
    const calls: number[][] = [];
    const atomic = groupCommitter(
      {
        async atomic(statements) {
          await new Promise((r) => setImmediate(r));
          const members = statements.map((s) => Number(s.text.split(' ')[1]));
          calls.push(members);
          const error = answer(members);
          if (error) throw error;
          return members.map((m) => [{ m }]);
        },
      },
      { maxBatch: 64, maxInFlight: 1, stallMs: 100 },
    );
    const run = (n: number) => atomic([statement(n)]).then((rows) => rows[0], (e: Error & { code: string }) => e.code);
    return { calls, run };
  }

  it('without the failing statement, every member of the shared transaction runs alone, in order', async () => {
    const { calls, run } = scripted((members) => (members.length > 1 || members[0] === 3 ? failure('23505') : undefined));
    const outcomes = await Promise.all([0, 1, 2, 3, 4].map(run));
    expect(calls).toEqual([[0], [1, 2, 3, 4], [1], [2], [3], [4]]);
    expect(outcomes).toEqual([[{ m: 0 }], [{ m: 1 }], [{ m: 2 }], '23505', [{ m: 4 }]]);
  });

  it('a member alone chosen to break a deadlock (40P01) runs again, up to three times; then it gets the deadlock', async () => {
    const deadlocksOf = new Map<number, number>([[0, 1], [1, 5]]);
    const { calls, run } = scripted(([m]) => {
      const left = deadlocksOf.get(m!) ?? 0;
      if (left === 0) return undefined;
      deadlocksOf.set(m!, left - 1);
      return failure('40P01');
    });
    expect(await run(0)).toEqual([{ m: 0 }]);
    expect(await run(1)).toBe('40P01');
    expect(calls).toEqual([[0], [0], [1], [1], [1]]);
  });

  it('a refusal every write gets (read-only database) fails the shared transaction\'s members at once', async () => {
    const { calls, run } = scripted((members) => (members.length > 1 ? failure('25006') : undefined));
    const outcomes = await Promise.all([0, 1, 2, 3].map(run));
    expect(calls).toEqual([[0], [1, 2, 3]]);
    expect(outcomes).toEqual([[{ m: 0 }], '25006', '25006', '25006']);
  });

  it('an outage during the re-runs fails the members not yet run, without trying them', async () => {
    const { calls, run } = scripted((members) => (members.length > 1 ? failure('23505') : members[0] === 2 ? failure('ECONNREFUSED') : undefined));
    const outcomes = await Promise.all([0, 1, 2, 3, 4].map(run));
    expect(calls).toEqual([[0], [1, 2, 3, 4], [1], [2]]);
    expect(outcomes).toEqual([[{ m: 0 }], [{ m: 1 }], 'ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED']);
  });
});
