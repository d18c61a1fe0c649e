import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const orgsProjection: Projection = {
  'org.changed': (e) => sql`
    update orgs set name = ${e.payload.name}, changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'org.deactivated': (e) => sql`
    update orgs set state = 'inactive', changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'org.reactivated': (e) => sql`
    update orgs set state = 'active', changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  // Its users, projects (with their apps, roles and grants) are removed by their own events in
  // the same append, before this one; its members and policies have no aggregate of their own.
  'org.removed': (e) => sql`
    with members as (delete from memberships where scope_type = 'org' and scope_id = ${e.aggregateId}),
      login as (delete from login_policies where org_id = ${e.aggregateId}),
      lockout as (delete from lockout_policies where org_id = ${e.aggregateId})
    delete from orgs where id = ${e.aggregateId}`,
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
  // The user's own event changes its state (users.ts); here only the org's version moves on.
  'org.owner.suspended': (e) => sql`
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
