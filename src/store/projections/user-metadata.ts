import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const userMetadataProjection: Projection = {
  // A key set again keeps its creation date; its value, change date and version move on.
  'user.metadata.set': (e) => sql`
    insert into user_metadata (user_id, key, org_id, value, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.payload.key}, ${e.resourceOwner}, ${e.payload.value},
            coalesce(${e.createdAt}::text::timestamptz, now()), coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})
    on conflict (user_id, key) do update set value = excluded.value, changed_at = excluded.changed_at, sequence = excluded.sequence`,
  'user.metadata.removed': (e) => sql`delete from user_metadata where user_id = ${e.aggregateId} and key = ${e.payload.key}`,
  'user.removed': (e) => sql`delete from user_metadata where user_id = ${e.aggregateId}`,
};
