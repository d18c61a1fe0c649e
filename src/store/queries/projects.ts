import { asc, eq } from 'drizzle-orm';
import type { Db } from '../database.js';
import { projects, type ProjectRow } from '../schema.js';

export async function findProject(db: Db, id: string): Promise<ProjectRow | undefined> {
  const [row] = await db.select().from(projects).where(eq(projects.id, id)).limit(1);
  return row;
}

export function listProjects(db: Db, orgId: string): Promise<ProjectRow[]> {
  return db.select().from(projects).where(eq(projects.orgId, orgId)).orderBy(asc(projects.createdAt), asc(projects.id));
}
