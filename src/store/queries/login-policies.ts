// An org's own login policy, read at every login of its users.
import { sql, withDates, type SqlRunner } from '../sql.js';

export interface LoginPolicyRow {
  orgId: string;
  forceMfa: boolean;
  passwordlessAllowed: boolean;
  allowUsernamePassword: boolean;
  allowRegister: boolean;
  /** Space-separated (domain/org registerDomains). */
  registerDomains: string;
  registerVerification: boolean;
  createdAt: Date;
  changedAt: Date;
  sequence: number;
}

export async function findLoginPolicy(db: SqlRunner, orgId: string): Promise<LoginPolicyRow | undefined> {
  const [row] = await db.query<LoginPolicyRow>(sql`
    select org_id as "orgId", force_mfa as "forceMfa", passwordless_allowed as "passwordlessAllowed",
      allow_username_password as "allowUsernamePassword", allow_register as "allowRegister", register_domains as "registerDomains",
      register_verification as "registerVerification", created_at as "createdAt", changed_at as "changedAt", sequence
    from login_policies where org_id = ${orgId}`);
  return withDates(row);
}
