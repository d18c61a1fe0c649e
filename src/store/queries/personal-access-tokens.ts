import { eq, sql } from 'drizzle-orm';
import type { Db } from '../database.js';
import { orgs, personalAccessTokens, users, type PatRow, type UserRow } from '../schema.js';
import { userColumns } from './users.js';

export interface PatWithUser {
  pat: PatRow;
  /** The token's user, with its org (`user.orgId`) and whether that org is active (DeactivateOrg). */
  user: UserRow & { orgActive: boolean };
}

/**
 * The token with this SHA-256 hash and its user, in one round trip (the
 * authentication hot path). Expiry is the caller's to check.
 */
export async function findPatByHash(db: Db, tokenHash: string): Promise<PatWithUser | undefined> {
  const [row] = await db
    .select({ pat: personalAccessTokens, user: { ...userColumns, orgActive: sql<boolean>`coalesce(${orgs.state} = 'active', false)` } })
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .leftJoin(orgs, eq(orgs.id, users.orgId))
    .where(eq(personalAccessTokens.tokenHash, tokenHash))
    .limit(1);
  return row;
}
