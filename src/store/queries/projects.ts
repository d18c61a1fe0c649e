import { asc, eq } from 'drizzle-orm';
import type { Db } from '../database.js';
import { projects, type ProjectRow } from '../schema.js';
import { sql, withDates, type SqlRunner } from '../sql.js';

/** Hot path (every AddOIDCApp): plain SQL, see ../sql.ts. */
export async function findProject(db: SqlRunner, id: string): Promise<ProjectRow | undefined> {
  const [row] = await db.query<ProjectRow>(sql`
    select id, org_id as "orgId", name, state, created_at as "createdAt", changed_at as "changedAt", sequence
    from projects where id = ${id}`);
  return withDates(row);
}

export function listProjects(db: Db, orgId: string): Promise<ProjectRow[]> {
  return db.select().from(projects).where(eq(projects.orgId, orgId)).orderBy(asc(projects.createdAt), asc(projects.id));
}
