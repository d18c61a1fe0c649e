// Keys of private_key_jwt apps: the public keys the token endpoint
// verifies client assertions with (ListAppKeys' page: search.ts).
import { and, asc, eq, gt } from 'drizzle-orm';
import type { Db } from '../database.js';
import { appKeys } from '../schema.js';

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
