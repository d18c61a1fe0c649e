// Users' authenticator apps (user.totp.*): one row per user with a TOTP,
// pending or ready (the login asks whether it is ready: one primary-key read).
// A new registration replaces the row; the secret of the TOTP it replaces,
// of one removed, and every one of a removed user, are deleted in the same
// statement — inside the append's transaction — so no secret outlives the
// TOTP that used it. By id, never "every other secret of the user": a
// registration running concurrently has stored its secret before its event.
import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const userTotpProjection: Projection = {
  'user.totp.added': (e) => sql`
    with gone as (
      delete from totp_secrets where totp_id in (select totp_id from user_totp where user_id = ${e.aggregateId} and totp_id <> ${e.payload.totpId})
    )
    insert into user_totp (user_id, totp_id, org_id, state, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.payload.totpId}, ${e.resourceOwner}, 'pending', coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})
    on conflict (user_id) do update set totp_id = excluded.totp_id, state = 'pending', created_at = excluded.created_at,
      changed_at = excluded.changed_at, sequence = excluded.sequence`,
  'user.totp.verified': (e) => sql`
    update user_totp set state = 'ready', changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where user_id = ${e.aggregateId} and totp_id = ${e.payload.totpId}`,
  'user.totp.removed': (e) => sql`
    with gone as (delete from totp_secrets where totp_id = ${e.payload.totpId})
    delete from user_totp where user_id = ${e.aggregateId}`,
  'user.removed': (e) => sql`
    with gone as (delete from totp_secrets where user_id = ${e.aggregateId})
    delete from user_totp where user_id = ${e.aggregateId}`,
};
