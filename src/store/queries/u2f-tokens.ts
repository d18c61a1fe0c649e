import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../database.js';
import { u2fTokens, type U2fRow } from '../schema.js';

export async function findU2f(db: Db, id: string): Promise<U2fRow | undefined> {
  const [row] = await db.select().from(u2fTokens).where(eq(u2fTokens.id, id)).limit(1);
  return row;
}

/** All of the user's tokens, pending and ready, oldest first. */
export function listU2fOfUser(db: Db, userId: string): Promise<U2fRow[]> {
  return db
    .select()
    .from(u2fTokens)
    .where(eq(u2fTokens.userId, userId))
    .orderBy(asc(u2fTokens.createdAt), asc(u2fTokens.id));
}

/** Credential ids (base64url) of the user's ready tokens for one RP ID — WebAuthn's excludeCredentials. */
export async function verifiedCredentialIdsOfUser(db: Db, userId: string, rpId: string): Promise<string[]> {
  const rows = await db
    .select({ credentialId: u2fTokens.credentialId })
    .from(u2fTokens)
    .where(and(eq(u2fTokens.userId, userId), eq(u2fTokens.rpId, rpId), eq(u2fTokens.state, 'ready')))
    .orderBy(asc(u2fTokens.createdAt));
  return rows.flatMap((r) => (r.credentialId === null ? [] : [r.credentialId]));
}
