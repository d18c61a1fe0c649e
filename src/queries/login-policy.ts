// GetLoginPolicy: the login policy of the org the call acts in —
// its own, or the default (forceMfa off) with the org's version.
import { authorize, orgContext } from '../commands/access.js';
import type { Call } from '../commands/caller.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import { DEFAULT_LOGIN_POLICY } from '../domain/org/decider.js';
import type { ReadModel, Versioned } from './read-model.js';

export interface LoginPolicyAnswer {
  forceMfa: boolean;
  isDefault: boolean;
  version: Versioned;
}

export async function getLoginPolicy(read: ReadModel, call: Call): Promise<LoginPolicyAnswer> {
  const { caller, orgId } = await orgContext(read, call);
  authorize(caller, 'org.policy.read', { orgId });
  const own = await read.loginPolicyOf(orgId);
  if (own) return { forceMfa: own.forceMfa, isDefault: false, version: own };
  const org = await read.org(orgId);
  if (!org) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
  return { forceMfa: DEFAULT_LOGIN_POLICY.forceMfa, isDefault: true, version: { ...org, orgId } };
}
