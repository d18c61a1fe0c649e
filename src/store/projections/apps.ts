// Apps of projects. A removed app's row is deleted so its name (and client id)
// can be used again. The name's key comes from the event's name (as users.ts).
import { displayNameKey } from '../../domain/identity/identifiers.js';
import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const appsProjection: Projection = {
  'app.added': (e) => sql`
    insert into apps (id, project_id, org_id, name, name_key, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.payload.projectId}, ${e.resourceOwner}, ${e.payload.name}, ${displayNameKey(e.payload.name)},
            coalesce(${e.createdAt}::text::timestamptz, now()), coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  'app.oidc.config.added': (e) => sql`
    update apps set client_id = ${e.payload.clientId}, client_secret_hash = ${e.payload.clientSecretHash},
      config = ${JSON.stringify(e.payload.config)}::text::jsonb,
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'app.oidc.secret.changed': (e) => sql`
    update apps set client_secret_hash = ${e.payload.clientSecretHash},
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'app.changed': (e) => sql`
    update apps set name = ${e.payload.name}, name_key = ${displayNameKey(e.payload.name)},
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  // The secret's hash goes when the new method needs none ('dropped').
  'app.oidc.config.changed': (e) => sql`
    update apps set config = ${JSON.stringify(e.payload.config)}::text::jsonb,
      client_secret_hash = case when ${e.payload.clientCredential}::text = 'dropped' then null else client_secret_hash end,
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'app.deactivated': (e) => sql`
    update apps set state = 'inactive', changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'app.reactivated': (e) => sql`
    update apps set state = 'active', changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'app.api.access.changed': (e) => sql`
    update apps set api_access = ${e.payload.allowed}, changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'app.removed': (e) => sql`delete from apps where id = ${e.aggregateId}`,
};
