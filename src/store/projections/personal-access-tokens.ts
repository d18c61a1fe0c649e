import { personalAccessTokens } from '../schema.js';
import type { Projection } from './projection.js';

export const personalAccessTokensProjection: Projection = {
  'user.pat.added': (tx, e) =>
    tx.insert(personalAccessTokens).values({
      id: e.payload.tokenId,
      userId: e.aggregateId,
      orgId: e.resourceOwner,
      tokenHash: e.payload.tokenHash,
      expiresAt: e.payload.expiresAt === null ? null : new Date(e.payload.expiresAt),
      createdAt: e.createdAt,
    }),
};
