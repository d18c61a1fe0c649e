// Hot path (x-service-orgid checks): plain SQL, see ../sql.ts.
import type { OrgRow } from '../schema.js';
import { sql, withDates, type SqlRunner } from '../sql.js';

export async function findOrg(db: SqlRunner, id: string): Promise<OrgRow | undefined> {
  const [row] = await db.query<OrgRow>(sql`
    select id, name, state, created_at as "createdAt", changed_at as "changedAt", sequence from orgs where id = ${id}`);
  return withDates(row);
}
