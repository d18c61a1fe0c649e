import { eq } from 'drizzle-orm';
import type { Db } from '../database.js';
import { orgs, type OrgRow } from '../schema.js';

export async function findOrg(db: Db, id: string): Promise<OrgRow | undefined> {
  const [row] = await db.select().from(orgs).where(eq(orgs.id, id)).limit(1);
  return row;
}
