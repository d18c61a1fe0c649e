// Orgs' own lockout policies: a row once AddCustomLockoutPolicy ran, changed
// by UpdateCustomLockoutPolicy. No row: the default (no lock).
import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const lockoutPoliciesProjection: Projection = {
  'org.lockout.policy.added': (e) => sql`
    insert into lockout_policies (org_id, max_password_attempts, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.payload.maxAttempts}, coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  'org.lockout.policy.changed': (e) => sql`
    update lockout_policies set max_password_attempts = ${e.payload.maxAttempts},
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where org_id = ${e.aggregateId}`,
};
