import { asc, eq } from 'drizzle-orm';
import type { Db } from '../database.js';
import { projectRoles, projects, type ProjectRow } from '../schema.js';
import { sql, withDates, type SqlRunner } from '../sql.js';

/** Hot path (every AddOIDCApp): plain SQL, see ../sql.ts. */
export async function findProject(db: SqlRunner, id: string): Promise<ProjectRow | undefined> {
  const [row] = await db.query<ProjectRow>(sql`
    select id, org_id as "orgId", name, state, project_role_check as "projectRoleCheck", has_project_check as "hasProjectCheck",
      created_at as "createdAt", changed_at as "changedAt", sequence
    from projects where id = ${id}`);
  return withDates(row);
}

export function listProjects(db: Db, orgId: string): Promise<ProjectRow[]> {
  return db.select().from(projects).where(eq(projects.orgId, orgId)).orderBy(asc(projects.createdAt), asc(projects.id));
}

/** Which of `roleKeys` the project has. */
export async function existingRoleKeys(db: Db, projectId: string, roleKeys: readonly string[]): Promise<string[]> {
  if (roleKeys.length === 0) return [];
  const rows = await db.select({ roleKey: projectRoles.roleKey }).from(projectRoles).where(eq(projectRoles.projectId, projectId));
  const wanted = new Set(roleKeys);
  return rows.map((r) => r.roleKey).filter((k) => wanted.has(k));
}

/** The roles a user holds on a project through its active grants, with the granting org and its name (the roles claim). */
export async function projectRolesOfUser(db: SqlRunner, userId: string, projectId: string): Promise<{ roleKey: string; orgId: string; orgName: string }[]> {
  return db.query<{ roleKey: string; orgId: string; orgName: string }>(sql`
    select k.role_key as "roleKey", g.org_id as "orgId", o.name as "orgName"
    from user_grants g
    cross join lateral unnest(g.role_keys) as k(role_key)
    join orgs o on o.id = g.org_id
    where g.user_id = ${userId} and g.project_id = ${projectId} and g.state = 'active'
    order by k.role_key, g.org_id`);
}
