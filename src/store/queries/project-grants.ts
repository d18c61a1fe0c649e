// Project grants (project.grant.*): the one a command or the login asks about,
// and the lists (ListProjectGrants by project, ListGrantedProjects by granted org).
import { and, asc, count, desc, eq, max, sql as dsql, type SQL } from 'drizzle-orm';
import { alias, type PgColumn } from 'drizzle-orm/pg-core';
import type { Listed, Page, TextFilter } from '../../domain/lists.js';
import type { Db } from '../database.js';
import { events, orgs, projectGrants, projects } from '../schema.js';
import { sql, type SqlRunner } from '../sql.js';
import { textCondition } from './search.js';

export interface ProjectGrantFacts {
  id: string;
  projectId: string;
  grantedOrgId: string;
  roleKeys: string[];
  state: 'active' | 'inactive';
}

/** The project's grant to `grantedOrgId`, or undefined (AddUserGrant under it). */
export async function findProjectGrantFor(db: SqlRunner, projectId: string, grantedOrgId: string): Promise<ProjectGrantFacts | undefined> {
  const [row] = await db.query<ProjectGrantFacts>(sql`
    select id, project_id as "projectId", granted_org_id as "grantedOrgId", role_keys as "roleKeys", state
    from project_grants where project_id = ${projectId} and granted_org_id = ${grantedOrgId}`);
  return row;
}

/** Whether the project is granted to the org by an active grant (the login's hasProjectCheck). */
export async function isProjectGrantedTo(db: SqlRunner, projectId: string, orgId: string): Promise<boolean> {
  const rows = await db.query(sql`select 1 from project_grants where project_id = ${projectId} and granted_org_id = ${orgId} and state = 'active'`);
  return rows.length > 0;
}

/** What ListProjectGrants, ListGrantedProjects and GetProjectGrantByID search by (all must match). */
export interface ProjectGrantSearch {
  projectId?: string;
  grantedOrgId?: string;
  grantId?: string;
  projectNames: readonly TextFilter[];
  roleKeys: readonly TextFilter[];
}

const owner = alias(orgs, 'owner');
const granted = alias(orgs, 'granted');

export async function searchProjectGrants<T>(db: Db, s: ProjectGrantSearch, page: Page): Promise<Listed<T>> {
  const g = projectGrants;
  const roleKey = dsql.raw('k.role_key') as unknown as PgColumn;
  const conditions: (SQL | undefined)[] = [
    s.projectId === undefined ? undefined : eq(g.projectId, s.projectId),
    s.grantedOrgId === undefined ? undefined : eq(g.grantedOrgId, s.grantedOrgId),
    s.grantId === undefined ? undefined : eq(g.id, s.grantId),
    ...s.projectNames.map((f) => textCondition(projects.name, f)),
    ...s.roleKeys.map((f) => dsql`exists (select 1 from unnest(${g.roleKeys}) as k(role_key) where ${textCondition(roleKey, f)})`),
  ];
  const where = and(...conditions.filter((c): c is SQL => c !== undefined));
  const order = page.asc ? [asc(g.createdAt), asc(g.id)] : [desc(g.createdAt), desc(g.id)];
  const columns = {
    id: g.id,
    projectId: g.projectId,
    projectName: projects.name,
    orgId: g.orgId,
    ownerName: owner.name,
    grantedOrgId: g.grantedOrgId,
    grantedOrgName: granted.name,
    roleKeys: g.roleKeys,
    state: g.state,
    createdAt: g.createdAt,
    changedAt: g.changedAt,
    sequence: g.sequence,
  };
  const [items, [counted], [position]] = await Promise.all([
    db
      .select(columns)
      .from(g)
      .innerJoin(projects, eq(projects.id, g.projectId))
      .innerJoin(owner, eq(owner.id, g.orgId))
      .innerJoin(granted, eq(granted.id, g.grantedOrgId))
      .where(where)
      .orderBy(...order)
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(g).innerJoin(projects, eq(projects.id, g.projectId)).innerJoin(granted, eq(granted.id, g.grantedOrgId)).where(where),
    db.select({ p: max(events.position) }).from(events),
  ]);
  return { items: items as T[], total: Number(counted?.n ?? 0), processedSequence: BigInt(position?.p ?? 0), at: new Date() };
}
