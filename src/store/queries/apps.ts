import { asc, eq } from 'drizzle-orm';
import type { Db } from '../database.js';
import { apps, type AppRow } from '../schema.js';

export async function findApp(db: Db, id: string): Promise<AppRow | undefined> {
  const [row] = await db.select().from(apps).where(eq(apps.id, id)).limit(1);
  return row;
}

export async function findAppByClientId(db: Db, clientId: string): Promise<AppRow | undefined> {
  const [row] = await db.select().from(apps).where(eq(apps.clientId, clientId)).limit(1);
  return row;
}

export function listApps(db: Db, projectId: string): Promise<AppRow[]> {
  return db.select().from(apps).where(eq(apps.projectId, projectId)).orderBy(asc(apps.createdAt), asc(apps.id));
}
