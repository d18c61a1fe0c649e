// Keyhold's migration runner: the numbered SQL files of ./migrations, in the
// order of meta/_journal.json, recorded in drizzle's table
// (drizzle.__drizzle_migrations: the file's SHA-256 and the journal's `when`),
// as drizzle's own migrator did, so databases it migrated continue unchanged.
//
// On top of it:
// - each migration runs in its own transaction and is reported when it
//   committed (number, name, milliseconds), so a long upgrade shows progress
//   and a failed one leaves the schema at the last whole migration;
// - keyhold_schema (migration 0015) records the Keyhold version that last
//   migrated the database, in the same transaction as the migration;
// - a database holding a migration newer than every one this Keyhold knows
//   (an older Keyhold started after a newer one migrated it) is refused before
//   anything is changed: its code would run against a schema it was not
//   written for. The error names both versions and what to do.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One statement on the migrating connection: rows as objects. */
export type MigrationQuery = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/** Runs `work` in one transaction on the migrating connection. */
export type MigrationTransaction = <T>(work: (query: MigrationQuery) => Promise<T>) => Promise<T>;

export interface Migration {
  /** `0015` */
  number: string;
  /** `schema_version` */
  name: string;
  /** The journal's `when`: drizzle's record of it (created_at) and the order. */
  when: number;
  hash: string;
  statements: string[];
}

export interface MigrationRun {
  number: string;
  name: string;
  ms: number;
}

/** The migrations of `folder` (its meta/_journal.json), oldest first. */
export function readMigrations(folder: string): Migration[] {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ tag: string; when: number }> };
  return journal.entries.map(({ tag, when }) => {
    const text = readFileSync(join(folder, `${tag}.sql`), 'utf8');
    const [, number = tag, name = tag] = /^(\d+)_(.+)$/.exec(tag) ?? [];
    return { number, name, when, hash: createHash('sha256').update(text).digest('hex'), statements: text.split('--> statement-breakpoint') };
  });
}

/** A database migrated by a newer Keyhold than this one: starting would run old code on a newer schema. */
export class SchemaTooNew extends Error {
  constructor(
    readonly databaseVersion: string | undefined,
    readonly keyholdVersion: string,
    readonly unknownMigrations: number,
  ) {
    const by = databaseVersion ? `Keyhold ${databaseVersion}` : 'a newer Keyhold';
    super(
      `the database was migrated by ${by}: it has ${unknownMigrations} migration${unknownMigrations === 1 ? '' : 's'} this Keyhold ${keyholdVersion} does not know. ` +
        `Run ${databaseVersion ? `Keyhold ${databaseVersion}` : 'the newer Keyhold'} or later on it; to go back to ${keyholdVersion}, restore the backup taken before the upgrade (docs/upgrading.md)`,
    );
    this.name = 'SchemaTooNew';
  }
}

const RECORDS = 'drizzle.__drizzle_migrations';

/**
 * Brings the database to this Keyhold's schema (the caller holds whatever lock
 * keeps other processes out). Returns the migrations applied.
 */
export async function runMigrations(options: {
  query: MigrationQuery;
  transaction: MigrationTransaction;
  migrations: readonly Migration[];
  keyholdVersion: string;
  /** Called as each migration commits. */
  onMigrated?: (run: MigrationRun) => void;
}): Promise<MigrationRun[]> {
  const { query, transaction, migrations, keyholdVersion } = options;
  // drizzle's table, as drizzle's migrator made it.
  await query('CREATE SCHEMA IF NOT EXISTS "drizzle"');
  await query(`CREATE TABLE IF NOT EXISTS ${RECORDS} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`);
  const [last] = await query(`select created_at::text as created_at from ${RECORDS} order by created_at desc nulls last limit 1`);
  const lastWhen = last?.created_at == null ? undefined : Number(last.created_at);
  const newestKnown = migrations.at(-1)?.when ?? 0;
  if (lastWhen !== undefined && lastWhen > newestKnown) {
    const [{ n }] = (await query(`select count(*)::int as n from ${RECORDS} where created_at > $1`, [newestKnown])) as [{ n: number }];
    const [table] = await query(`select to_regclass('keyhold_schema') is not null as present`);
    const [recorded] = table?.present ? await query('select keyhold_version from keyhold_schema') : [];
    throw new SchemaTooNew(recorded?.keyhold_version as string | undefined, keyholdVersion, n);
  }
  const runs: MigrationRun[] = [];
  for (const migration of migrations) {
    // drizzle's rule: a migration runs when it is newer than the last one recorded.
    if (lastWhen !== undefined && migration.when <= lastWhen) continue;
    const started = performance.now();
    await transaction(async (tx) => {
      for (const statement of migration.statements) {
        if (statement.trim()) await tx(statement);
      }
      await tx(`insert into ${RECORDS} ("hash", "created_at") values ($1, $2)`, [migration.hash, migration.when]);
      const [table] = await tx(`select to_regclass('keyhold_schema') is not null as present`);
      if (table?.present) {
        await tx(
          `insert into keyhold_schema (id, keyhold_version, migration, migrated_at) values (true, $1, $2, now())
           on conflict (id) do update set keyhold_version = excluded.keyhold_version, migration = excluded.migration, migrated_at = excluded.migrated_at`,
          [keyholdVersion, `${migration.number}_${migration.name}`],
        );
      }
    });
    const run = { number: migration.number, name: migration.name, ms: Math.round(performance.now() - started) };
    runs.push(run);
    options.onMigrated?.(run);
  }
  return runs;
}
