import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const personalAccessTokensProjection: Projection = {
  'user.pat.added': (e) => sql`
    insert into personal_access_tokens (id, user_id, org_id, token_hash, expires_at, created_at)
    values (${e.payload.tokenId}, ${e.aggregateId}, ${e.resourceOwner}, ${e.payload.tokenHash},
            ${e.payload.expiresAt}::text::timestamptz, coalesce(${e.createdAt}::text::timestamptz, now()))`,
  'user.removed': (e) => sql`delete from personal_access_tokens where user_id = ${e.aggregateId}`,
  'user.pat.removed': (e) => sql`delete from personal_access_tokens where id = ${e.payload.tokenId}`,
};
