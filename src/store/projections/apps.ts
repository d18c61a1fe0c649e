// Apps of projects. A removed app's row is deleted so its name (and client id)
// can be used again.
import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const appsProjection: Projection = {
  'app.added': (e) => sql`
    insert into apps (id, project_id, org_id, name, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.payload.projectId}, ${e.resourceOwner}, ${e.payload.name},
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
  'app.removed': (e) => sql`delete from apps where id = ${e.aggregateId}`,
};
