import { asc, eq } from 'drizzle-orm';
import type { Db } from '../database.js';
import { apps, type AppRow } from '../schema.js';
import { sql, withDates, type SqlRunner } from '../sql.js';

export async function findApp(db: Db, id: string): Promise<AppRow | undefined> {
  const [row] = await db.select().from(apps).where(eq(apps.id, id)).limit(1);
  return row;
}

/** The app with its project's login checks (queries/login-access.ts mayUseProject reads them from here). */
export type ClientAppRow = AppRow & { projectRoleCheck: boolean; hasProjectCheck: boolean };

/**
 * Hot path (every token, introspection and revocation request authenticates its client): plain SQL, see ../sql.ts.
 * The state is the one authentication obeys: 'inactive' also while the app's project or org is deactivated
 * (DeactivateProject, DeactivateOrg) or gone (an app added while its project was being removed).
 */
export async function findAppByClientId(db: SqlRunner, clientId: string): Promise<ClientAppRow | undefined> {
  const [row] = await db.query<ClientAppRow>(sql`
    select a.id, a.project_id as "projectId", a.org_id as "orgId", a.name, a.name_key as "nameKey", a.client_id as "clientId",
      a.client_secret_hash as "clientSecretHash", a.config,
      case when p.state = 'active' and o.state = 'active' then a.state else 'inactive' end as state,
      a.api_access as "apiAccess", coalesce(p.project_role_check, false) as "projectRoleCheck", coalesce(p.has_project_check, false) as "hasProjectCheck",
      a.created_at as "createdAt", a.changed_at as "changedAt", a.sequence
    from apps a left join projects p on p.id = a.project_id left join orgs o on o.id = a.org_id where a.client_id = ${clientId}`);
  return withDates(row);
}

export function listApps(db: Db, projectId: string): Promise<AppRow[]> {
  return db.select().from(apps).where(eq(apps.projectId, projectId)).orderBy(asc(apps.createdAt), asc(apps.id));
}
