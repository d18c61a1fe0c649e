// DATABASE_URL with a Unix-socket directory (libpq's ?host=/dir), which
// postgres.js cannot parse itself.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { postgresTarget } from '../../src/store/postgres-url.js';
import { sql } from '../../src/store/sql.js';

describe('postgresTarget', () => {
  it('takes a socket directory out of the URL and passes it as the host', () => {
    expect(postgresTarget('postgres://keyhold@/keyhold?host=/var/run/postgresql')).toEqual({
      url: 'postgres://keyhold@localhost/keyhold',
      host: '/var/run/postgresql',
    });
    expect(postgresTarget('postgresql://u:p@/db?host=%2Ftmp&sslmode=disable')).toEqual({
      url: 'postgresql://u:p@localhost/db?sslmode=disable',
      host: '/tmp',
    });
    expect(postgresTarget('postgresql:///db?host=/tmp')).toEqual({ url: 'postgresql://localhost/db', host: '/tmp' });
  });

  it('leaves TCP URLs alone, including a host parameter that is not a path', () => {
    expect(postgresTarget('postgres://u@127.0.0.1:5432/db')).toEqual({ url: 'postgres://u@127.0.0.1:5432/db' });
    expect(postgresTarget('postgres://u@db.example:5432/db?sslmode=require')).toEqual({
      url: 'postgres://u@db.example:5432/db?sslmode=require',
    });
    expect(postgresTarget('postgres://u@h/db?host=other')).toEqual({ url: 'postgres://u@h/db?host=other' });
  });
});

// The socket of the local PostgreSQL the tests use (Debian's default directory).
const testUrl = process.env.TEST_DATABASE_URL;
const socketDir = '/var/run/postgresql';
const socketFile = testUrl && `${socketDir}/.s.PGSQL.${new URL(testUrl).port || 5432}`;
describe.skipIf(!socketFile || !existsSync(socketFile))('a Unix-socket DATABASE_URL', () => {
  it('reaches the same database as the TCP URL, without TCP', async () => {
    const url = new URL(testUrl!);
    url.search = `?host=${encodeURIComponent(socketDir)}`;
    const database = await openDatabase({ databaseUrl: url.toString(), dataDir: '/nonexistent' });
    try {
      const [row] = await database.sql.query<{ db: string; client: string | null }>(
        sql`select current_database() as db, inet_client_addr()::text as client`,
      );
      expect(row.db).toBe(url.pathname.slice(1));
      expect(row.client).toBeNull(); // null: a Unix-socket connection
    } finally {
      await database.close();
    }
  });
});
