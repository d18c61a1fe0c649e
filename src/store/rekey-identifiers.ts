// Keys the names stored before Keyhold compared names itself (migration 0001),
// and the usernames stored before they were login names unique across the
// instance (migration 0003: users.login_name_key, scope 'instance').
//
// A name's key is Keyhold's normalization (src/domain/identity/identifiers.ts:
// NFC, width mapping, case mapping), which SQL cannot compute: lower() depends
// on the database's locale, the very thing keys replace. So migration 0001 adds
// the key columns nullable, and this step, run at start right after the
// migrations (under the migration lock on PostgreSQL, before Keyhold serves),
// fills them in TypeScript and then sets them NOT NULL. Once a column is NOT
// NULL the step is done for it: a start costs one catalog read.
//
// Rows whose keys collide (stored under the old rules: "Café" next to
// "Cafe\u0301", "ad\u200Bmin" next to "admin") are all kept. The oldest keeps
// the key; each later one gets the key suffixed with U+001F and its own id — a
// key no name can have (new names cannot hold control characters) — so it
// stays in place and reachable by id but no longer owns the name. Each such
// pair is reported (both ids) for the operator; nothing is renamed or deleted.
import { displayNameKey, usernameKey } from '../domain/identity/identifiers.js';

/** One statement on the transaction's connection: rows as objects. */
export type RekeyQuery = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/** Runs `work` in one transaction on the connection that holds the migration lock. */
export type RekeyTransaction = <T>(work: (query: RekeyQuery) => Promise<T>) => Promise<T>;

export interface IdentifierCollision {
  table: 'users' | 'apps';
  /** The org (users) or project (apps) in which the names collide; 'instance' for login names (users.login_name_key). */
  scopeId: string;
  /** The older row, which keeps the key. */
  keptId: string;
  /** The newer row, whose key got its id as a suffix. */
  rekeyedId: string;
}

export interface RekeyReport {
  /** Rows keyed by this run (0 once every column is NOT NULL). */
  rekeyed: number;
  collisions: IdentifierCollision[];
}

interface KeyedTable {
  table: 'users' | 'apps';
  /** The column the key is unique within, or a SQL literal for the whole instance. */
  scope: string;
  name: string;
  key: string;
  keyOf: (name: string) => string;
}

// Table, column and function names are constants, never input.
const KEYED_TABLES: readonly KeyedTable[] = [
  { table: 'users', scope: 'org_id', name: 'username', key: 'username_key', keyOf: usernameKey },
  // Usernames as login names, unique across the instance (migration 0003).
  { table: 'users', scope: `'instance'`, name: 'username', key: 'login_name_key', keyOf: usernameKey },
  { table: 'apps', scope: 'project_id', name: 'name', key: 'name_key', keyOf: displayNameKey },
];

/** Separates a colliding row's key from its id: a control character, which no name may hold. */
export const COLLISION_SEPARATOR = '\u001f';

const BATCH = 1000;

async function keyTable(query: RekeyQuery, t: KeyedTable, report: RekeyReport): Promise<void> {
  const [column] = await query(
    `select is_nullable from information_schema.columns where table_schema = current_schema() and table_name = $1 and column_name = $2`,
    [t.table, t.key],
  );
  if (!column || column.is_nullable === 'NO') return;
  // Writers of an older Keyhold still running would insert rows without a key.
  await query(`lock table ${t.table} in exclusive mode`);
  const rows = (await query(`select id, ${t.scope} as scope, ${t.name} as name, ${t.key} as key from ${t.table} order by created_at, id`)) as {
    id: string;
    scope: string;
    name: string;
    key: string | null;
  }[];
  const owner = new Map<string, string>(); // scope + key → id
  for (const r of rows) if (r.key !== null) owner.set(`${r.scope}\u0000${r.key}`, r.id);
  const updates: { id: string; key: string }[] = [];
  for (const r of rows) {
    if (r.key !== null) continue;
    let key = t.keyOf(r.name);
    const taken = owner.get(`${r.scope}\u0000${key}`);
    if (taken === undefined) {
      owner.set(`${r.scope}\u0000${key}`, r.id);
    } else {
      report.collisions.push({ table: t.table, scopeId: r.scope, keptId: taken, rekeyedId: r.id });
      key = `${key}${COLLISION_SEPARATOR}${r.id}`;
    }
    updates.push({ id: r.id, key });
  }
  for (let i = 0; i < updates.length; i += BATCH) {
    await query(
      `update ${t.table} as t set ${t.key} = v.key from json_to_recordset($1::text::json) as v(id text, key text) where t.id = v.id`,
      [JSON.stringify(updates.slice(i, i + BATCH))],
    );
  }
  report.rekeyed += updates.length;
  await query(`alter table ${t.table} alter column ${t.key} set not null`);
}

/** Keys every row that has no key yet and makes the key columns NOT NULL (idempotent). */
export async function rekeyIdentifiers(transaction: RekeyTransaction): Promise<RekeyReport> {
  return transaction(async (query) => {
    const report: RekeyReport = { rekeyed: 0, collisions: [] };
    for (const t of KEYED_TABLES) await keyTable(query, t, report);
    return report;
  });
}
