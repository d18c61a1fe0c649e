// Keys of private_key_jwt apps (issue 18): the public keys the token endpoint
// verifies client assertions with, and ListAppKeys' page.
import { and, asc, count, desc, eq, gt, max } from 'drizzle-orm';
import type { Listed, Page } from '../../domain/lists.js';
import type { Db } from '../database.js';
import { appKeys, events } from '../schema.js';

export interface AppKeyListedRow {
  id: string;
  appId: string;
  orgId: string;
  type: string;
  expiresAt: Date;
  createdAt: Date;
}

/** The app's public JWKs that have not expired at `now`. */
export async function liveAppKeys(db: Db, appId: string, now: Date): Promise<Record<string, unknown>[]> {
  const rows = await db
    .select({ publicKey: appKeys.publicKey })
    .from(appKeys)
    .where(and(eq(appKeys.appId, appId), gt(appKeys.expiresAt, now)))
    .orderBy(asc(appKeys.createdAt), asc(appKeys.id));
  return rows.map((r) => r.publicKey as Record<string, unknown>);
}

/** One page of the app's keys (expired ones included), never a key itself. */
export async function listAppKeys(db: Db, appId: string, page: Page): Promise<Listed<AppKeyListedRow>> {
  const order = page.asc ? [asc(appKeys.createdAt), asc(appKeys.id)] : [desc(appKeys.createdAt), desc(appKeys.id)];
  const where = eq(appKeys.appId, appId);
  const [items, [counted], [position]] = await Promise.all([
    db
      .select({ id: appKeys.id, appId: appKeys.appId, orgId: appKeys.orgId, type: appKeys.type, expiresAt: appKeys.expiresAt, createdAt: appKeys.createdAt })
      .from(appKeys)
      .where(where)
      .orderBy(...order)
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(appKeys).where(where),
    db.select({ p: max(events.position) }).from(events),
  ]);
  return { items, total: Number(counted?.n ?? 0), processedSequence: BigInt(position?.p ?? 0), at: new Date() };
}
