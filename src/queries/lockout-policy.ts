// GetLockoutPolicy: the lockout policy of the org the call acts in — its own,
// or the default (maxPasswordAttempts 0: no lock) with the org's version.
import { authorize, orgContext } from '../access/access.js';
import type { Call } from '../access/caller.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import { DEFAULT_LOCKOUT_POLICY } from '../domain/org/decider.js';
import type { ReadModel, Versioned } from './read-model.js';

export interface LockoutPolicyAnswer {
  maxPasswordAttempts: number;
  isDefault: boolean;
  version: Versioned;
}

export async function getLockoutPolicy(read: ReadModel, call: Call): Promise<LockoutPolicyAnswer> {
  const { caller, orgId } = await orgContext(read, call);
  authorize(caller, 'org.policy.read', { orgId });
  const own = await read.lockoutPolicyOf(orgId);
  if (own) return { maxPasswordAttempts: own.maxPasswordAttempts, isDefault: false, version: own };
  const org = await read.org(orgId);
  if (!org) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
  return { maxPasswordAttempts: DEFAULT_LOCKOUT_POLICY.maxPasswordAttempts, isDefault: true, version: { ...org, orgId } };
}
