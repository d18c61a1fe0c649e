import { asc, eq } from 'drizzle-orm';
import type { Db } from '../database.js';
import { apps, type AppRow } from '../schema.js';
import { sql, withDates, type SqlRunner } from '../sql.js';

export async function findApp(db: Db, id: string): Promise<AppRow | undefined> {
  const [row] = await db.select().from(apps).where(eq(apps.id, id)).limit(1);
  return row;
}

/** Hot path (every token, introspection and revocation request authenticates its client): plain SQL, see ../sql.ts. */
export async function findAppByClientId(db: SqlRunner, clientId: string): Promise<AppRow | undefined> {
  const [row] = await db.query<AppRow>(sql`
    select id, project_id as "projectId", org_id as "orgId", name, name_key as "nameKey", client_id as "clientId",
      client_secret_hash as "clientSecretHash", config, state, api_access as "apiAccess", created_at as "createdAt", changed_at as "changedAt", sequence
    from apps where client_id = ${clientId}`);
  return withDates(row);
}

export function listApps(db: Db, projectId: string): Promise<AppRow[]> {
  return db.select().from(apps).where(eq(apps.projectId, projectId)).orderBy(asc(apps.createdAt), asc(apps.id));
}
