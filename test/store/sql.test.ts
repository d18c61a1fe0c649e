// The plain-SQL layer (src/store/sql.ts) on both drivers: values survive the
// trip whatever their characters, and atomic() is all or nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { failedStatementIndex, sql } from '../../src/store/sql.js';
import { announcePostgresSkip, freshPglite, freshPostgres, postgresAvailable, type FreshDatabase } from '../support/databases.js';

function sqlContract(name: string, fresh: () => Promise<FreshDatabase>) {
  describe(`plain SQL: ${name}`, () => {
    let opened: FreshDatabase | undefined;
    const open = async () => (opened = await fresh()).database;
    afterEach(async () => {
      await opened?.cleanup();
      opened = undefined;
    });

    it('passes text, arrays, numbers, booleans and null through unchanged', async () => {
      const database = await open();
      const tricky = ['plain', 'with "quotes"', 'back\\slash', 'comma, brace }{', 'ünïcödé ✓', ''];
      const [row] = await database.sql.query<{ t: string; a: string[]; n: number; b: boolean; z: string | null }>(
        sql`select ${'it\'s "x"'}::text as t, ${tricky}::text[] as a, ${-7}::int as n, ${false}::boolean as b, ${null}::text as z`,
      );
      expect(row).toEqual({ t: 'it\'s "x"', a: tricky, n: -7, b: false, z: null });
    });

    it('atomic: every statement or none — a failing statement rolls back the ones before it', async () => {
      const database = await open();
      const orgId = `org-${Math.random().toString(36).slice(2)}`;
      const insert = (id: string) => sql`
        insert into orgs (id, name, created_at, changed_at, sequence) values (${id}, ${'Name'}, now(), now(), ${1})`;
      await expect(database.sql.atomic([insert(orgId), insert(orgId)])).rejects.toMatchObject({ code: '23505' });
      expect(await database.sql.query(sql`select id from orgs where id = ${orgId}`)).toEqual([]);

      const results = await database.sql.atomic([insert(orgId), sql`select name from orgs where id = ${orgId}`]);
      expect(results).toEqual([[], [{ name: 'Name' }]]);
    });

    it('atomic: a failure names the statement that caused it, and is the driver\'s own error', async () => {
      const database = await open();
      const orgId = `org-${Math.random().toString(36).slice(2)}`;
      const insert = (id: string) => sql`
        insert into orgs (id, name, created_at, changed_at, sequence) values (${id}, ${'Name'}, now(), now(), ${1})`;
      const select = sql`select 1 as one`;
      // Statement 3 repeats statement 1's key; statement 4 is never reached.
      const failure = await database.sql.atomic([select, insert(orgId), select, insert(orgId), select]).catch((e: unknown) => e);
      expect(failure).toMatchObject({ code: '23505' });
      expect(failedStatementIndex(failure)).toBe(3);
      await expect(database.sql.atomic([{ text: 'select 1/0', params: [] }])).rejects.toSatisfy((e) => failedStatementIndex(e) === 0);
      expect(failedStatementIndex(new Error('not from atomic'))).toBeUndefined();
    });

    it('a statement that does not parse fails its call and leaves later new statements working', async () => {
      const database = await open();
      const tag = Math.random().toString(36).slice(2);
      // Texts never sent before: the valid one is prepared (PGlite: by name) in the same call as the broken one.
      const good = (n: number) => ({ text: `select ${n}::int as n, '${tag}' as tag`, params: [] });
      await expect(database.sql.atomic([good(1), { text: 'selec nonsense', params: [] }])).rejects.toMatchObject({ code: '42601' });
      expect(await database.sql.atomic([good(1), good(2)])).toEqual([[{ n: 1, tag }], [{ n: 2, tag }]]);
      expect(await database.sql.query(good(3))).toEqual([{ n: 3, tag }]);
    });
  });
}

sqlContract('PGlite', freshPglite);
announcePostgresSkip('plain SQL: PostgreSQL');
describe.skipIf(!postgresAvailable)('PostgreSQL', () => {
  sqlContract('PostgreSQL', freshPostgres);
});
