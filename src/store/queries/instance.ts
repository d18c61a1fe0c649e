import { eq } from 'drizzle-orm';
import type { Db } from '../database.js';
import { INSTANCE_ID } from '../../domain/events/index.js';
import { instances, type InstanceRow } from '../schema.js';

export async function findInstance(db: Db): Promise<InstanceRow | undefined> {
  const [row] = await db.select().from(instances).where(eq(instances.id, INSTANCE_ID)).limit(1);
  return row;
}

/** True once an `instance.added` committed (it can only commit once: sequence 1 is unique). */
export async function isBootstrapped(db: Db): Promise<boolean> {
  return (await findInstance(db)) !== undefined;
}
