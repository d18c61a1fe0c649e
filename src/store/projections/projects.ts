import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const projectsProjection: Projection = {
  'project.added': (e) => sql`
    insert into projects (id, org_id, name, state, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.resourceOwner}, ${e.payload.name}, 'active', coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  // Membership rows live in `memberships`; here only the project's version moves on.
  'project.member.added': (e) => sql`
    update projects set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
};
