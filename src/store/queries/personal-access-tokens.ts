import { eq } from 'drizzle-orm';
import type { Db } from '../database.js';
import { personalAccessTokens, users, type PatRow, type UserRow } from '../schema.js';
import { userColumns } from './users.js';

export interface PatWithUser {
  pat: PatRow;
  /** The token's user, with its org (`user.orgId`). */
  user: UserRow;
}

/**
 * The token with this SHA-256 hash and its user, in one round trip (the
 * authentication hot path). Expiry is the caller's to check.
 */
export async function findPatByHash(db: Db, tokenHash: string): Promise<PatWithUser | undefined> {
  const [row] = await db
    .select({ pat: personalAccessTokens, user: userColumns })
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .where(eq(personalAccessTokens.tokenHash, tokenHash))
    .limit(1);
  return row;
}
