// The instance row: present once `instance.added` committed, i.e. bootstrapped.
import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const instancesProjection: Projection = {
  'instance.added': (e) => sql`
    insert into instances (id, default_org_id, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.payload.defaultOrgId}, coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  'instance.member.added': (e) => sql`
    update instances set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  // The login's audit trail: no change of the instance, only its version moves on.
  'instance.login.throttled': (e) => sql`update instances set sequence = ${e.sequence} where id = ${e.aggregateId}`,
  // The owners' own rows change with their org's events; here only the instance's version moves on.
  'instance.owners.ended': (e) => sql`update instances set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence} where id = ${e.aggregateId}`,
};
