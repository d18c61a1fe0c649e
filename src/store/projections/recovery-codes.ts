// Users' recovery codes (for a lost key): one row per user with a set,
// counting the unused codes (ListU2FTokens shows the count). A new set resets
// the count, a used code lowers it; removing the set or the user drops the row.
import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const recoveryCodesProjection: Projection = {
  'user.recovery.codes.generated': (e) => sql`
    insert into user_recovery_codes (user_id, org_id, unused, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.resourceOwner}, ${e.payload.codeHashes.length}, coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})
    on conflict (user_id) do update set unused = excluded.unused, changed_at = excluded.changed_at, sequence = excluded.sequence`,
  'user.recovery.code.used': (e) => sql`
    update user_recovery_codes set unused = greatest(unused - 1, 0), changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where user_id = ${e.aggregateId}`,
  'user.recovery.codes.removed': (e) => sql`delete from user_recovery_codes where user_id = ${e.aggregateId}`,
  'user.removed': (e) => sql`delete from user_recovery_codes where user_id = ${e.aggregateId}`,
};
