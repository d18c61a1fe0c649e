// The lists' searches: one page of the matches in a stable order
// (creation date, then id), the number of matches in all, and the event
// position the read model had reached. Cold queries: drizzle builds them.
import { and, asc, count, desc, eq, inArray, like, max, or, sql as dsql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { displayNameKey, usernameKey } from '../../domain/identity/identifiers.js';
import { entriesWithin, type Listed, type Page, type TextFilter } from '../../domain/lists.js';
import type { UserGrantSearch, UserSearch } from '../../queries/read-model.js';
import type { Db } from '../database.js';
import { appKeys, apps, events, orgs, passkeys, personalAccessTokens, projectRoles, projects, u2fTokens, userGrants, users } from '../schema.js';

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * One text filter on a column. Case-insensitive methods compare `key(value)` with
 * the stored key column when the object has one (Keyhold's folding), else
 * lower() on both sides (the database's folding).
 */
export function textCondition(column: PgColumn, f: TextFilter, folded?: { column: PgColumn; key: (s: string) => string }): SQL {
  const ignoreCase = f.method.endsWith('IgnoreCase');
  let target: SQL | PgColumn = column;
  let value = f.value.normalize('NFC');
  if (ignoreCase && folded) {
    target = folded.column;
    value = folded.key(value);
  } else if (ignoreCase) {
    target = dsql`lower(${column})`;
    value = value.toLowerCase();
  }
  const base = f.method.replace('IgnoreCase', '');
  switch (base) {
    case 'equals':
      return dsql`${target} = ${value}`;
    case 'startsWith':
      return like(target as AnyColumn, `${escapeLike(value)}%`);
    case 'contains':
      return like(target as AnyColumn, `%${escapeLike(value)}%`);
    default:
      return like(target as AnyColumn, `%${escapeLike(value)}`);
  }
}

const all = (conditions: (SQL | undefined)[]): SQL | undefined => and(...conditions.filter((c): c is SQL => c !== undefined));
const FALSE = dsql`false`;

/** A table a list pages through: each has an id and a creation date, the list's order. */
type ListedTable = typeof apps | typeof projects | typeof users | typeof orgs | typeof personalAccessTokens | typeof appKeys | typeof u2fTokens | typeof passkeys;

/**
 * The shared page of every list: `where`'s matches in the stable order (creation date,
 * then id; asc or desc), `page.limit` of them from `page.offset`, their count and the
 * read model's position. `columns` picks what is read (a list that never shows a hash
 * or a key does not read it); without it, the whole row.
 */
export async function listed<T>(
  db: Db,
  table: ListedTable,
  where: SQL | undefined,
  page: Page,
  columns?: Record<string, PgColumn>,
): Promise<Listed<T>> {
  const t = table as typeof apps;
  const order = page.asc ? [asc(t.createdAt), asc(t.id)] : [desc(t.createdAt), desc(t.id)];
  const items = (columns ? db.select(columns).from(t) : db.select().from(t)).where(where).orderBy(...order).limit(page.limit).offset(page.offset);
  const [taken, [counted], [position]] = await Promise.all([
    items,
    db.select({ n: count() }).from(t).where(where),
    db.select({ p: max(events.position) }).from(events),
  ]);
  return { items: taken as T[], total: Number(counted?.n ?? 0), processedSequence: BigInt(position?.p ?? 0), at: new Date() };
}

/**
 * `listed` for entries that can be large (an app's configuration: up to
 * ~600,000 characters; a grant's role keys: up to 100 × 200): the page is read
 * in two steps, the ids and stored sizes (`bytes`) of its entries, then only the
 * entries that fit in `maxBytes` (entriesWithin); `leftOut` says how many did not.
 */
async function listedWithin<T>(db: Db, table: typeof apps | typeof userGrants, where: SQL | undefined, page: Page, bytes: SQL<number>, maxBytes: number): Promise<Listed<T>> {
  const t = table as typeof apps;
  const order = page.asc ? [asc(t.createdAt), asc(t.id)] : [desc(t.createdAt), desc(t.id)];
  const sized = await db
    .select({ id: t.id, bytes: bytes.mapWith(Number) })
    .from(t)
    .where(where)
    .orderBy(...order)
    .limit(page.limit)
    .offset(page.offset);
  const fitting = entriesWithin(sized.map((r) => r.bytes), maxBytes);
  const ids = sized.slice(0, fitting).map((r) => r.id);
  const [items, [counted], [position]] = await Promise.all([
    ids.length ? db.select().from(t).where(inArray(t.id, ids)).orderBy(...order) : Promise.resolve([]),
    db.select({ n: count() }).from(t).where(where),
    db.select({ p: max(events.position) }).from(events),
  ]);
  return { items: items as T[], total: Number(counted?.n ?? 0), processedSequence: BigInt(position?.p ?? 0), at: new Date(), leftOut: sized.length - fitting };
}

export function searchApps<T>(db: Db, projectId: string, names: readonly TextFilter[], page: Page, maxBytes: number): Promise<Listed<T>> {
  const where = all([eq(apps.projectId, projectId), ...names.map((f) => textCondition(apps.name, f, { column: apps.nameKey, key: displayNameKey }))]);
  return listedWithin(db, apps, where, page, dsql<number>`coalesce(octet_length(${apps.config}::text), 0)`, maxBytes);
}

export function searchProjects<T>(db: Db, orgId: string, projectIds: readonly string[] | undefined, names: readonly TextFilter[], page: Page): Promise<Listed<T>> {
  const where = all([
    eq(projects.orgId, orgId),
    projectIds === undefined ? undefined : projectIds.length ? inArray(projects.id, [...projectIds]) : FALSE,
    ...names.map((f) => textCondition(projects.name, f)),
  ]);
  return listed(db, projects, where, page);
}

/**
 * A project's roles (ListProjectRoles), oldest first by default, ties by key. A
 * role's version is its project's: roles are part of the project aggregate.
 */
export async function searchProjectRoles<T>(
  db: Db,
  projectId: string,
  filters: { keys: readonly TextFilter[]; displayNames: readonly TextFilter[] },
  page: Page,
): Promise<Listed<T>> {
  const r = projectRoles;
  const where = all([eq(r.projectId, projectId), ...filters.keys.map((f) => textCondition(r.roleKey, f)), ...filters.displayNames.map((f) => textCondition(r.displayName, f))]);
  const order = page.asc ? [asc(r.createdAt), asc(r.roleKey)] : [desc(r.createdAt), desc(r.roleKey)];
  const columns = {
    projectId: r.projectId,
    roleKey: r.roleKey,
    orgId: r.orgId,
    displayName: r.displayName,
    group: r.group,
    createdAt: r.createdAt,
    changedAt: projects.changedAt,
    sequence: projects.sequence,
  };
  const [items, [counted], [position]] = await Promise.all([
    db.select(columns).from(r).innerJoin(projects, eq(projects.id, r.projectId)).where(where).orderBy(...order).limit(page.limit).offset(page.offset),
    db.select({ n: count() }).from(r).where(where),
    db.select({ p: max(events.position) }).from(events),
  ]);
  return { items: items as T[], total: Number(counted?.n ?? 0), processedSequence: BigInt(position?.p ?? 0), at: new Date() };
}

export function searchUserGrants<T>(db: Db, s: UserGrantSearch, page: Page, maxBytes: number): Promise<Listed<T>> {
  // A role key query matches a grant holding at least one matching key.
  const roleKey = dsql.raw('k.role_key') as unknown as PgColumn;
  const where = all([
    eq(userGrants.orgId, s.orgId),
    // A grant left by a project's removal racing its creation is no grant (it gives no roles either).
    dsql`exists (select 1 from projects p where p.id = ${userGrants.projectId})`,
    s.projectIds === undefined ? undefined : s.projectIds.length ? inArray(userGrants.projectId, [...s.projectIds]) : FALSE,
    ...s.userIds.map((id) => eq(userGrants.userId, id)),
    ...s.inProjects.map((id) => eq(userGrants.projectId, id)),
    ...s.roleKeys.map((f) => dsql`exists (select 1 from unnest(${userGrants.roleKeys}) as k(role_key) where ${textCondition(roleKey, f)})`),
  ]);
  return listedWithin(db, userGrants, where, page, dsql<number>`octet_length(${userGrants.roleKeys}::text)`, maxBytes);
}

export function searchUsers<T>(db: Db, s: UserSearch, page: Page): Promise<Listed<T>> {
  const visible =
    s.orgIds === undefined
      ? undefined
      : or(...[s.orgIds.length ? inArray(users.orgId, [...s.orgIds]) : undefined, s.userIds.length ? inArray(users.id, [...s.userIds]) : undefined].filter((c) => c !== undefined)) ?? FALSE;
  // A display name: the human's display name or the machine's name.
  const shown = dsql`coalesce(${users.displayName}, ${users.name}, '')`;
  const where = all([
    visible,
    ...s.usernames.map((f) => textCondition(users.username, f, { column: users.usernameKey, key: usernameKey })),
    ...s.displayNames.map((f) => textCondition(shown as unknown as PgColumn, f)),
    ...s.emails.map((f) => textCondition(users.email, f)),
    ...s.kinds.map((k) => eq(users.kind, k)),
    ...s.states.map((state) => eq(users.state, state as 'active')),
    ...s.inOrgs.map((o) => eq(users.orgId, o)),
  ]);
  return listed(db, users, where, page);
}

export function searchOrgs<T>(db: Db, orgIds: readonly string[] | undefined, names: readonly TextFilter[], ids: readonly string[], page: Page): Promise<Listed<T>> {
  const where = all([
    orgIds === undefined ? undefined : orgIds.length ? inArray(orgs.id, [...orgIds]) : FALSE,
    ...names.map((f) => textCondition(orgs.name, f)),
    ...ids.map((id) => eq(orgs.id, id)),
  ]);
  return listed(db, orgs, where, page);
}

/** A user's tokens without their hashes. */
export function listPats<T>(db: Db, userId: string, page: Page): Promise<Listed<T>> {
  const p = personalAccessTokens;
  return listed(db, p, eq(p.userId, userId), page, { id: p.id, userId: p.userId, orgId: p.orgId, expiresAt: p.expiresAt, createdAt: p.createdAt });
}

/** One page of the app's keys (expired ones included), never a key itself. */
export function listAppKeys<T>(db: Db, appId: string, page: Page): Promise<Listed<T>> {
  const k = appKeys;
  return listed(db, k, eq(k.appId, appId), page, { id: k.id, appId: k.appId, orgId: k.orgId, type: k.type, expiresAt: k.expiresAt, createdAt: k.createdAt });
}

/** One page of a user's passkeys, pending and ready (ListPasskeys). */
export function listPasskeyPage<T>(db: Db, userId: string, page: Page): Promise<Listed<T>> {
  return listed(db, passkeys, eq(passkeys.userId, userId), page);
}

/** One page of a user's security keys, pending and ready (ListU2FTokens). */
export function listU2fPage<T>(db: Db, userId: string, page: Page): Promise<Listed<T>> {
  return listed(db, u2fTokens, eq(u2fTokens.userId, userId), page);
}
