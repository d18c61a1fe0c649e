// A user's recovery codes (for a lost key): only how many are unused.
import { sql, type SqlRunner } from '../sql.js';

/** How many recovery codes of the user's current set are unused (0: none, or no set). */
export async function unusedRecoveryCodes(db: SqlRunner, userId: string): Promise<number> {
  const [row] = await db.query<{ unused: number }>(sql`select unused from user_recovery_codes where user_id = ${userId}`);
  return row ? Number(row.unused) : 0;
}
