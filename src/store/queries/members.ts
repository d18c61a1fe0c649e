// The members of one scope (an org or a project) with the facts of their
// users, one page at a time. A membership has no dates of its own: the pages
// are in user id order (asc or desc), stable while others are added.
import { and, asc, count, desc, eq, max } from 'drizzle-orm';
import type { Listed, Page } from '../../domain/lists.js';
import type { MemberListed } from '../../queries/read-model.js';
import type { Db } from '../database.js';
import { events, memberships, users } from '../schema.js';

export async function searchMembers(db: Db, scopeType: 'org' | 'project', scopeId: string, userIds: readonly string[], page: Page): Promise<Listed<MemberListed>> {
  const m = memberships;
  // Every query must match, as in the other lists: two different ids match nobody.
  const where = and(eq(m.scopeType, scopeType), eq(m.scopeId, scopeId), ...userIds.map((id) => eq(m.userId, id)));
  const order = page.asc ? asc(m.userId) : desc(m.userId);
  const [items, [counted], [position]] = await Promise.all([
    db
      .select({ userId: m.userId, orgId: m.orgId, roles: m.roles, username: users.username, kind: users.kind, displayName: users.displayName, name: users.name, email: users.email, givenName: users.givenName, familyName: users.familyName })
      .from(m)
      .innerJoin(users, eq(users.id, m.userId))
      .where(where)
      .orderBy(order)
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(m).innerJoin(users, eq(users.id, m.userId)).where(where),
    db.select({ p: max(events.position) }).from(events),
  ]);
  return {
    items: items.map((r) => ({ userId: r.userId, orgId: r.orgId, roles: r.roles, username: r.username, kind: r.kind, displayName: r.displayName ?? r.name ?? '', email: r.email ?? '', givenName: r.givenName ?? '', familyName: r.familyName ?? '' })),
    total: Number(counted?.n ?? 0),
    processedSequence: BigInt(position?.p ?? 0),
    at: new Date(),
  };
}
