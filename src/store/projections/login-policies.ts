// Orgs' own login policies: a row once AddCustomLoginPolicy ran,
// changed by UpdateCustomLoginPolicy. No row: the default policy.
import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const loginPoliciesProjection: Projection = {
  'org.login.policy.added': (e) => sql`
    insert into login_policies (org_id, force_mfa, passwordless_allowed, allow_username_password, allow_register, register_domains, register_verification, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.payload.forceMfa}, ${e.payload.passwordlessAllowed ?? true}, ${e.payload.allowUsernamePw ?? true},
            ${e.payload.allowRegister ?? false}, ${(e.payload.registerDomains ?? []).join(' ')}, ${e.payload.registerVerification ?? true}, coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  'org.login.policy.changed': (e) => sql`
    update login_policies set force_mfa = ${e.payload.forceMfa}, passwordless_allowed = ${e.payload.passwordlessAllowed ?? true},
      allow_username_password = ${e.payload.allowUsernamePw ?? true}, allow_register = ${e.payload.allowRegister ?? false},
      register_domains = ${(e.payload.registerDomains ?? []).join(' ')}, register_verification = ${e.payload.registerVerification ?? true}, changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where org_id = ${e.aggregateId}`,
};
