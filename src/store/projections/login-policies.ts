// Orgs' own login policies: a row once AddCustomLoginPolicy ran,
// changed by UpdateCustomLoginPolicy. No row: the default policy.
import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const loginPoliciesProjection: Projection = {
  'org.login.policy.added': (e) => sql`
    insert into login_policies (org_id, force_mfa, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.payload.forceMfa}, coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  'org.login.policy.changed': (e) => sql`
    update login_policies set force_mfa = ${e.payload.forceMfa}, changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where org_id = ${e.aggregateId}`,
};
