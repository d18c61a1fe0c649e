import { asc, eq } from 'drizzle-orm';
import type { PasskeyFacts } from '../../commands/ports.js';
import type { Db } from '../database.js';
import { passkeys } from '../schema.js';
import { sql, type SqlRunner } from '../sql.js';

/** All of the user's passkeys, pending and ready, oldest first. */
export async function listPasskeysOfUser(db: Db, userId: string): Promise<PasskeyFacts[]> {
  const rows = await db
    .select({ id: passkeys.id, userId: passkeys.userId, orgId: passkeys.orgId, state: passkeys.state, rpId: passkeys.rpId, credentialId: passkeys.credentialId, expiresAt: passkeys.expiresAt })
    .from(passkeys)
    .where(eq(passkeys.userId, userId))
    .orderBy(asc(passkeys.createdAt), asc(passkeys.id));
  return rows;
}

/**
 * Which token of which user holds this verified credential id (base64url), a
 * security key's or a passkey's: the discoverable login's lookup, by primary key.
 */
export async function findWebauthnCredential(db: SqlRunner, credentialId: string): Promise<{ kind: 'u2f' | 'passkey'; tokenId: string; userId: string } | undefined> {
  const [row] = await db.query<{ kind: 'u2f' | 'passkey'; tokenId: string; userId: string }>(sql`
    select kind, token_id as "tokenId", user_id as "userId" from webauthn_credentials where credential_id = ${credentialId}`);
  return row;
}
