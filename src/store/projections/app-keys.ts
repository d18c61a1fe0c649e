// Public keys of private_key_jwt apps. A removed key's row goes,
// and so do a removed app's.
import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const appKeysProjection: Projection = {
  'app.key.added': (e) => sql`
    insert into app_keys (id, app_id, project_id, org_id, type, public_key, expires_at, created_at)
    select ${e.payload.keyId}, ${e.aggregateId}, a.project_id, ${e.resourceOwner}, ${e.payload.type},
           ${JSON.stringify(e.payload.publicKey)}::text::jsonb, ${e.payload.expiresAt}::text::timestamptz,
           coalesce(${e.createdAt}::text::timestamptz, now())
    from apps a where a.id = ${e.aggregateId}`,
  'app.key.removed': (e) => sql`delete from app_keys where id = ${e.payload.keyId} and app_id = ${e.aggregateId}`,
  'app.removed': (e) => sql`delete from app_keys where app_id = ${e.aggregateId}`,
};
