import { and, arrayContains, asc, eq } from 'drizzle-orm';
import type { Db } from '../database.js';
import { apps, projectRoles, projects, userGrants, type ProjectRow } from '../schema.js';
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

/** The ids of the project's user grants; with `roleKey`, only those holding that role. */
export async function grantIdsOfProject(db: Db, projectId: string, roleKey?: string): Promise<string[]> {
  const where = roleKey === undefined ? eq(userGrants.projectId, projectId) : and(eq(userGrants.projectId, projectId), arrayContains(userGrants.roleKeys, [roleKey]));
  return (await db.select({ id: userGrants.id }).from(userGrants).where(where)).map((r) => r.id);
}

/** The ids of the project's apps. */
/** The ids of the org's projects (RemoveOrg). */
export async function projectIdsOfOrg(db: Db, orgId: string): Promise<string[]> {
  return (await db.select({ id: projects.id }).from(projects).where(eq(projects.orgId, orgId))).map((r) => r.id);
}

export async function appIdsOfProject(db: Db, projectId: string): Promise<string[]> {
  return (await db.select({ id: apps.id }).from(apps).where(eq(apps.projectId, projectId))).map((r) => r.id);
}

/**
 * The roles a user holds on a project through its active grants, with the
 * granting org and its name (the roles claim). Only roles the project still
 * has: a grant written while its role was being removed names a key that no
 * longer counts. A grant given under a project grant counts while that
 * project grant is active (DeactivateProjectGrant, RemoveProjectGrant).
 */
export async function projectRolesOfUser(db: SqlRunner, userId: string, projectId: string): Promise<{ roleKey: string; orgId: string; orgName: string }[]> {
  return db.query<{ roleKey: string; orgId: string; orgName: string }>(sql`
    select k.role_key as "roleKey", g.org_id as "orgId", o.name as "orgName"
    from user_grants g
    cross join lateral unnest(g.role_keys) as k(role_key)
    join project_roles r on r.project_id = g.project_id and r.role_key = k.role_key
    join orgs o on o.id = g.org_id
    where g.user_id = ${userId} and g.project_id = ${projectId} and g.state = 'active'
      and (g.project_grant_id is null
           or exists (select 1 from project_grants pg where pg.id = g.project_grant_id and pg.state = 'active' and k.role_key = any(pg.role_keys)))
    order by k.role_key, g.org_id`);
}
