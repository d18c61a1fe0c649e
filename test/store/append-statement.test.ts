// The events insert carrying a version move in its own statement
// (src/store/append-statement.ts): the read model ends where it did with the
// statements apart, on both backends; two moves of one row stay apart; and a
// stale append still fails as a conflict, writing nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../../src/commands/ports.js';
import type { NewEvent } from '../../src/domain/events/index.js';
import { appendStatements } from '../../src/store/append-statement.js';
import { createEventStore } from '../../src/store/event-store.js';
import { alongside } from '../../src/store/projections/projection.js';
import { sql } from '../../src/store/sql.js';
import { announcePostgresSkip, freshPglite, freshPostgres, knownOrgs, postgresAvailable, type FreshDatabase } from '../support/databases.js';

announcePostgresSkip('an append and its version move in one statement on PostgreSQL');

describe('the statements an append sends', () => {
  const insert = sql`insert into t (a, b) values (${1}, ${2}) returning a`;
  it('one version move rides in the insert, its parameters after the insert’s', () => {
    const [merged, ...rest] = appendStatements(insert, [alongside(sql`update u set sequence = ${3} where id = ${'x'}`)]);
    expect(rest).toEqual([]);
    expect(merged!.text).toBe('with moved as (update u set sequence = $3 where id = $4), inserted as (insert into t (a, b) values ($1, $2) returning a) select * from inserted');
    expect(merged!.params).toEqual([1, 2, 3, 'x']);
  });
  it('only a statement whose every $n is a placeholder of its own may be marked', () => {
    expect(() => alongside(sql`update u set note = '$1 off' where id = ${'x'}`)).toThrow(TypeError);
    expect(() => alongside({ text: 'update u set sequence = $1 where id = $3', params: [1, 'x'] })).toThrow(TypeError);
  });
  it('any other statement, or two moves, go apart', () => {
    const plain = sql`update u set name = ${'n'} where id = ${'x'}`;
    expect(appendStatements(insert, [plain])).toEqual([insert, plain]);
    const moves = [alongside(sql`update u set sequence = ${3} where id = ${'x'}`), alongside(sql`update u set sequence = ${4} where id = ${'x'}`)];
    expect(appendStatements(insert, moves)).toEqual([insert, ...moves]);
  });
});

const USER = 'u-merged';
const event = (type: string, payload: object): NewEvent => ({ aggregateType: 'user', aggregateId: USER, type, payload, resourceOwner: 'org-a', creator: 'test' }) as never;
const login = event('user.login.succeeded', { clientId: 'app', amr: ['pwd'] });

function backend(name: string, open: () => Promise<FreshDatabase>, skip: boolean) {
  describe.skipIf(skip)(`an append and its version move, ${name}`, () => {
    let opened: FreshDatabase | undefined;
    afterEach(async () => {
      await opened?.cleanup();
      opened = undefined;
    });

    it('moves the version in the same transaction, one event or several, and a stale append writes nothing', async () => {
      opened = await open();
      const db = opened.database;
      await knownOrgs(db, 'org-a');
      const store = createEventStore(db);
      const at = (sequence: number) => [{ aggregateType: 'user' as const, aggregateId: USER, sequence }];
      const version = async () => ((await db.sql.query<{ sequence: number }>({ text: 'select sequence from users where id = $1', params: [USER] }))[0]?.sequence);
      const events = async () => Number((await db.sql.query<{ n: number | string }>({ text: 'select count(*)::int as n from events where aggregate_id = $1', params: [USER] }))[0]!.n);

      await store.append([event('user.machine.added', { username: 'merged-bot', name: 'Bot', description: '' })], at(0));
      const [one] = await store.append([login], at(1));
      expect(one!.sequence).toBe(2);
      expect(one!.position).toBeGreaterThan(0n);
      expect(await version()).toBe(2);
      // Two moves of one row in one append: applied one after another, the last version stays.
      await store.append([login, event('user.oidc.grant.saved', { grantId: 'g', clientId: 'app', scope: 'openid' })], at(2));
      expect(await version()).toBe(4);
      // Decided on a stale version: the events' key refuses it, the read model keeps its version.
      await expect(store.append([login], at(2))).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await version()).toBe(4);
      expect(await events()).toBe(4);
    });
  });
}

backend('PGlite', freshPglite, false);
backend('PostgreSQL', freshPostgres, !postgresAvailable);
