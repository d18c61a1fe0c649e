// An org's own lockout policy, read at every wrong password of its users.
import { sql, withDates, type SqlRunner } from '../sql.js';

export interface LockoutPolicyRow {
  orgId: string;
  maxPasswordAttempts: number;
  createdAt: Date;
  changedAt: Date;
  sequence: number;
}

export async function findLockoutPolicy(db: SqlRunner, orgId: string): Promise<LockoutPolicyRow | undefined> {
  const [row] = await db.query<LockoutPolicyRow>(sql`
    select org_id as "orgId", max_password_attempts as "maxPasswordAttempts", created_at as "createdAt", changed_at as "changedAt", sequence
    from lockout_policies where org_id = ${orgId}`);
  return withDates(row);
}
