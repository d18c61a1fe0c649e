// Identity providers (idp.*) and the links of external identities (idplink.*).
// A removed provider takes its sealed secret and its links' rows with it in
// the same statement (its events stay: the audit trail); a removed user its
// links.
import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const identityProvidersProjection: Projection = {
  'idp.added': (e) => sql`
    insert into identity_providers (idp_id, org_id, kind, name, settings, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.payload.orgId ?? null}, ${e.payload.settings.kind}, ${e.payload.settings.name}, ${JSON.stringify(e.payload.settings)}::text::jsonb,
            coalesce(${e.createdAt}::text::timestamptz, now()), coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})
    on conflict (idp_id) do nothing`,
  'idp.changed': (e) => sql`
    update identity_providers set name = ${e.payload.settings.name}, settings = ${JSON.stringify(e.payload.settings)}::text::jsonb,
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where idp_id = ${e.aggregateId}`,
  'idp.removed': (e) => sql`
    with secret as (delete from idp_secrets where idp_id = ${e.aggregateId}),
         links as (delete from idp_links where idp_id = ${e.aggregateId})
    delete from identity_providers where idp_id = ${e.aggregateId}`,
};

export const idpLinksProjection: Projection = {
  'idplink.added': (e) => sql`
    insert into idp_links (link_id, idp_id, subject, user_id, org_id, created_at)
    values (${e.aggregateId}, ${e.payload.idpId}, ${e.payload.subject}, ${e.payload.userId}, ${e.resourceOwner}, coalesce(${e.createdAt}::text::timestamptz, now()))
    on conflict (link_id) do update set user_id = excluded.user_id, org_id = excluded.org_id, created_at = excluded.created_at`,
  'idplink.removed': (e) => sql`delete from idp_links where link_id = ${e.aggregateId}`,
  'user.removed': (e) => sql`delete from idp_links where user_id = ${e.aggregateId}`,
};
