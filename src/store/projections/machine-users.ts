// Machine users' OAuth side: access token type and client
// credentials (the secret only as its hash). A removed user's row goes.
import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const machineUsersProjection: Projection = {
  'user.machine.added': (e) => sql`
    insert into machine_users (user_id, org_id, access_token_type, changed_at)
    values (${e.aggregateId}, ${e.resourceOwner}, ${e.payload.accessTokenType === 'JWT' ? 'jwt' : 'bearer'},
            coalesce(${e.createdAt}::text::timestamptz, now()))`,
  'user.machine.secret.set': (e) => sql`
    update machine_users set client_id = ${e.payload.clientId}, client_secret_hash = ${e.payload.clientSecretHash},
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now())
    where user_id = ${e.aggregateId}`,
  'user.machine.secret.removed': (e) => sql`
    update machine_users set client_id = null, client_secret_hash = null, changed_at = coalesce(${e.createdAt}::text::timestamptz, now())
    where user_id = ${e.aggregateId}`,
  'user.removed': (e) => sql`delete from machine_users where user_id = ${e.aggregateId}`,
};
