// Read-model unique indexes and the conflict each one means for a client.
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import type { Reason } from '../domain/errors/reasons.js';
import { UniqueViolation } from '../store/errors.js';

const CONFLICT_BY_CONSTRAINT: Record<string, Reason> = {
  apps_project_name_key: 'APP_NAME_TAKEN',
  users_org_username_key: 'USERNAME_TAKEN',
  users_pkey: 'USER_ID_TAKEN',
  u2f_tokens_credential_id_key: 'CREDENTIAL_ALREADY_REGISTERED',
};

/** Runs a write; a known unique violation becomes its 409, with `metadata`. */
export async function mapConflicts<T>(write: Promise<T>, metadata: Record<string, string> = {}): Promise<T> {
  try {
    return await write;
  } catch (e) {
    if (e instanceof UniqueViolation) {
      const reason = CONFLICT_BY_CONSTRAINT[e.constraint];
      if (reason) throw new KeyholdError(reason, metadata);
    }
    throw e;
  }
}
