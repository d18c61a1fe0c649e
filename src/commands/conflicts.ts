// The read models' unique indexes (src/store/schema.ts), by name, and the
// conflict each one means for a client. Uniqueness across aggregates (an app
// name in a project, a username in the instance, a credential id) is guarded by the
// read model in the append's transaction, not by a decider: no aggregate holds
// every name. The runner (./run.ts) turns a refusal into its 409.
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import type { Reason } from '../domain/errors/reasons.js';
import type { ReferenceViolation, UniqueViolation } from './ports.js';

const CONFLICT_BY_CONSTRAINT: Readonly<Record<string, Reason>> = {
  apps_project_name_key: 'APP_NAME_TAKEN',
  users_org_username_key: 'USERNAME_TAKEN',
  users_login_name_key: 'USERNAME_TAKEN',
  users_pkey: 'USER_ID_TAKEN',
  user_grants_user_project_key: 'USER_GRANT_EXISTS',
  // Decided on the project's events first (domain/project/decider.ts); the index is the read model's own guard.
  project_grants_project_org_key: 'PROJECT_GRANT_EXISTS',
  u2f_tokens_credential_id_key: 'CREDENTIAL_ALREADY_REGISTERED',
  // A credential id of any kind, security key or passkey, held by one token only.
  webauthn_credentials_pkey: 'CREDENTIAL_ALREADY_REGISTERED',
};

/** The 409 of a known unique violation (with `metadata`); any other stays what it is (a server fault). */
export function conflictError(violation: UniqueViolation, metadata: Record<string, string> = {}): Error {
  const reason = Object.hasOwn(CONFLICT_BY_CONSTRAINT, violation.constraint) ? CONFLICT_BY_CONSTRAINT[violation.constraint] : undefined;
  return reason ? new KeyholdError(reason, metadata) : violation;
}

/** The new row's org, by the reference that names it (migration 0026). */
const ORG_REFERENCES = new Set(['projects_org_fk', 'users_org_fk']);

/**
 * A new project or user whose org was removed while it was decided: that org
 * is not found, as it would be a moment later. A removal that met rows created
 * meanwhile stays what it is, for RemoveOrg to decide again.
 */
export function referenceError(violation: ReferenceViolation): Error {
  return !violation.removing && ORG_REFERENCES.has(violation.constraint) ? new KeyholdError('ORG_NOT_FOUND', { orgId: violation.key }) : violation;
}
