import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const personalAccessTokensProjection: Projection = {
  'user.pat.added': (e) => sql`
    insert into personal_access_tokens (id, user_id, org_id, token_hash, expires_at, created_at)
    values (${e.payload.tokenId}, ${e.aggregateId}, ${e.resourceOwner}, ${e.payload.tokenHash},
            ${e.payload.expiresAt}::text::timestamptz, coalesce(${e.createdAt}::text::timestamptz, now()))`,
};
