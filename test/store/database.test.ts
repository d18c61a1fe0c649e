// Opening the database: the PGlite directory lock, reopening, concurrent
// migration on a shared PostgreSQL, and typed unavailability.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/store/database.js';
import { createEventStore } from '../../src/store/event-store.js';
import { DataDirLocked, DatabaseUnavailable } from '../../src/store/errors.js';
import { findOrg } from '../../src/store/queries/index.js';
import {
  announcePostgresSkip,
  createPostgresDatabase,
  freshPostgres,
  pgliteDirFromTemplate,
  postgresAvailable,
  tempDir,
} from '../support/databases.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});
async function dir(): Promise<string> {
  const d = await tempDir();
  dirs.push(d);
  return d;
}

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('PGlite data directory', () => {
  // This one starts from an empty directory: the real first start (initdb + migrations).
  it('holds a lock: a second open fails naming the directory; close releases it and keeps the data', async () => {
    const dataDir = await dir();
    const first = await openDatabase({ dataDir });
    expect(first.kind).toBe('pglite');
    const lockPath = join(dataDir, 'keyhold.lock');
    expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));

    const err = await openDatabase({ dataDir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLocked);
    expect((err as Error).message).toContain(dataDir);
    expect((err as Error).message).toContain(String(process.pid));

    await createEventStore(first).append(
      [{ type: 'org.added', aggregateType: 'org', aggregateId: 'kept', payload: { name: 'Kept' }, resourceOwner: 'kept', creator: 'u' }],
      [{ aggregateType: 'org', aggregateId: 'kept', sequence: 0 }],
    );
    await first.close();
    expect(existsSync(lockPath)).toBe(false);

    const again = await openDatabase({ dataDir });
    try {
      expect((await findOrg(again.sql, 'kept'))?.name).toBe('Kept');
      expect(await createEventStore(again).load('org', 'kept')).toHaveLength(1);
    } finally {
      await again.close();
    }
  });

  it('refuses a directory locked by another live process', async () => {
    const dataDir = await dir();
    const ownerPid = process.ppid; // alive for as long as this test runs
    writeFileSync(join(dataDir, 'keyhold.lock'), `${ownerPid}\n`);
    await expect(openDatabase({ dataDir })).rejects.toThrow(new RegExp(`in use by process ${ownerPid}`));
    expect(readFileSync(join(dataDir, 'keyhold.lock'), 'utf8').trim()).toBe(String(ownerPid));
  });

  it('takes over a stale lock left by a dead process', async () => {
    const dataDir = await pgliteDirFromTemplate();
    dirs.push(dataDir);
    writeFileSync(join(dataDir, 'keyhold.lock'), `${deadPid()}\n`);
    const database = await openDatabase({ dataDir });
    try {
      expect(readFileSync(join(dataDir, 'keyhold.lock'), 'utf8').trim()).toBe(String(process.pid));
      await database.ping();
    } finally {
      await database.close();
      await database.close(); // a second close is harmless
    }
    expect(existsSync(join(dataDir, 'keyhold.lock'))).toBe(false);
  });

  it('takes over a lock naming its own pid that it does not hold (a restarted container reusing the pid)', async () => {
    const dataDir = await pgliteDirFromTemplate();
    dirs.push(dataDir);
    writeFileSync(join(dataDir, 'keyhold.lock'), `${process.pid}\n`);
    const database = await openDatabase({ dataDir });
    try {
      await expect(openDatabase({ dataDir })).rejects.toBeInstanceOf(DataDirLocked);
    } finally {
      await database.close();
    }
  });
});

announcePostgresSkip('database opening: PostgreSQL');
describe.skipIf(!postgresAvailable)('PostgreSQL', () => {
  it('lets several processes migrate one empty database at once', async () => {
    const created = await createPostgresDatabase();
    const dataDir = await dir();
    try {
      const opened = await Promise.all(
        Array.from({ length: 4 }, () => openDatabase({ databaseUrl: created.url, dataDir, poolSize: 2 })),
      );
      try {
        expect(opened.every((d) => d.kind === 'postgres')).toBe(true);
        // postgres.js returns the rows as an array.
        const applied = (await opened[0].db.execute(
          sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
        )) as unknown as { n: number }[];
        const journal = JSON.parse(
          readFileSync(new URL('../../src/store/migrations/meta/_journal.json', import.meta.url), 'utf8'),
        ) as { entries: unknown[] };
        expect(applied[0].n).toBe(journal.entries.length);
      } finally {
        await Promise.all(opened.map((d) => d.close()));
      }
    } finally {
      await created.drop();
    }
  });

  it('maps an unreachable server to DatabaseUnavailable', async () => {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    const err = await openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', dataDir: await dir() }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DatabaseUnavailable);
  });

  it('maps a database that went away mid-flight to DatabaseUnavailable', async () => {
    const fixture = await freshPostgres({ poolSize: 2 });
    const store = createEventStore(fixture.database);
    await fixture.database.ping();
    // Dropping WITH (FORCE) terminates our connections (57P01); reconnects find no database (3D000).
    await fixture.cleanup();
    await expect(fixture.database.ping()).rejects.toBeInstanceOf(DatabaseUnavailable);
    await expect(store.load('org', 'x')).rejects.toBeInstanceOf(DatabaseUnavailable);
  });
});
