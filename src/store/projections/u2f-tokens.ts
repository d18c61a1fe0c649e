// U2F / WebAuthn tokens: pending after registration starts, ready once verified.
// A removed token's row is deleted, which frees its credential id.
import { eq } from 'drizzle-orm';
import { u2fTokens } from '../schema.js';
import type { Projection } from './projection.js';

export const u2fTokensProjection: Projection = {
  'u2f.registration.started': (tx, e) =>
    tx.insert(u2fTokens).values({
      id: e.aggregateId,
      userId: e.payload.userId,
      orgId: e.resourceOwner,
      state: 'pending',
      rpId: e.payload.rpId,
      challenge: e.payload.challenge,
      expiresAt: new Date(e.payload.expiresAt),
      createdAt: e.createdAt,
      changedAt: e.createdAt,
      sequence: e.sequence,
    }),
  'u2f.verified': (tx, e) =>
    tx
      .update(u2fTokens)
      .set({
        state: 'ready',
        name: e.payload.tokenName,
        credentialId: e.payload.credentialId,
        publicKey: e.payload.publicKey,
        algorithm: e.payload.algorithm,
        format: e.payload.format,
        aaguid: e.payload.aaguid,
        signCount: e.payload.signCount,
        transports: e.payload.transports,
        backupEligible: e.payload.backupEligible,
        backedUp: e.payload.backedUp,
        userVerified: e.payload.userVerified,
        rpId: e.payload.rpId,
        changedAt: e.createdAt,
        sequence: e.sequence,
      })
      .where(eq(u2fTokens.id, e.aggregateId)),
  'u2f.removed': (tx, e) => tx.delete(u2fTokens).where(eq(u2fTokens.id, e.aggregateId)),
};
