import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const usersProjection: Projection = {
  'user.human.added': (e) => sql`
    insert into users (id, org_id, kind, username, given_name, family_name, display_name, email, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.resourceOwner}, 'human', ${e.payload.username}, ${e.payload.givenName},
            ${e.payload.familyName}, ${e.payload.displayName}, ${e.payload.email},
            coalesce(${e.createdAt}::text::timestamptz, now()), coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  'user.machine.added': (e) => sql`
    insert into users (id, org_id, kind, username, name, description, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.resourceOwner}, 'machine', ${e.payload.username}, ${e.payload.name},
            ${e.payload.description}, coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  // The token row lives in `personal_access_tokens`; here only the user's version moves on.
  'user.pat.added': (e) => sql`
    update users set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
};
