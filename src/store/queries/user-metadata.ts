// A user's metadata: one page of its entries (ListUserMetadata), one entry
// (GetUserMetadata), or all of them (the claim; at most 64 by the decider).
import { and, asc, count, desc, eq, max } from 'drizzle-orm';
import type { Listed, Page, TextFilter } from '../../domain/lists.js';
import type { Db } from '../database.js';
import { events, userMetadata, type UserMetadataRow } from '../schema.js';
import { textCondition } from './search.js';

/** One page of the user's entries matching every key filter, in the lists' order (creation date, then key). */
export async function searchUserMetadata(db: Db, userId: string, keys: readonly TextFilter[], page: Page): Promise<Listed<UserMetadataRow>> {
  const where = and(eq(userMetadata.userId, userId), ...keys.map((f) => textCondition(userMetadata.key, f)));
  const order = page.asc ? [asc(userMetadata.createdAt), asc(userMetadata.key)] : [desc(userMetadata.createdAt), desc(userMetadata.key)];
  const [items, [counted], [position]] = await Promise.all([
    db.select().from(userMetadata).where(where).orderBy(...order).limit(page.limit).offset(page.offset),
    db.select({ n: count() }).from(userMetadata).where(where),
    db.select({ p: max(events.position) }).from(events),
  ]);
  return { items, total: Number(counted?.n ?? 0), processedSequence: BigInt(position?.p ?? 0), at: new Date() };
}

export async function findUserMetadata(db: Db, userId: string, key: string): Promise<UserMetadataRow | undefined> {
  const [row] = await db.select().from(userMetadata).where(and(eq(userMetadata.userId, userId), eq(userMetadata.key, key))).limit(1);
  return row;
}

/** Every entry of the user, by key. */
export function allUserMetadata(db: Db, userId: string): Promise<UserMetadataRow[]> {
  return db.select().from(userMetadata).where(eq(userMetadata.userId, userId)).orderBy(asc(userMetadata.key));
}
