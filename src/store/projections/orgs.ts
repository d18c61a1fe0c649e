import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const orgsProjection: Projection = {
  'org.added': (e) => sql`
    insert into orgs (id, name, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.payload.name}, coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  // Membership rows live in `memberships`; here only the org's version moves on.
  'org.member.added': (e) => sql`
    update orgs set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'org.member.changed': (e) => sql`
    update orgs set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'org.member.removed': (e) => sql`
    update orgs set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'org.login.policy.added': (e) => sql`
    update orgs set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'org.login.policy.changed': (e) => sql`
    update orgs set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'org.lockout.policy.added': (e) => sql`
    update orgs set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'org.lockout.policy.changed': (e) => sql`
    update orgs set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
};
