// GetLoginPolicy: the login policy of the org the call acts in —
// its own, or the default (forceMfa off) with the org's version.
import { authorize, orgContext } from '../access/access.js';
import type { Call } from '../access/caller.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import { allowedFirstFactors, DEFAULT_LOGIN_POLICY } from '../domain/org/decider.js';
import type { ReadModel, Versioned } from './read-model.js';

export interface LoginPolicyAnswer {
  forceMfa: boolean;
  passwordlessAllowed: boolean;
  allowUsernamePassword: boolean;
  isDefault: boolean;
  version: Versioned;
}

export async function getLoginPolicy(read: ReadModel, call: Call): Promise<LoginPolicyAnswer> {
  const { caller, orgId } = await orgContext(read, call);
  authorize(caller, 'org.policy.read', { orgId });
  const own = await read.loginPolicyOf(orgId);
  if (own) return { forceMfa: own.forceMfa, passwordlessAllowed: own.passwordlessAllowed, allowUsernamePassword: own.allowUsernamePassword, isDefault: false, version: own };
  const org = await read.org(orgId);
  if (!org) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
  return { ...DEFAULT_LOGIN_POLICY, isDefault: true, version: { ...org, orgId } };
}

/**
 * The login's question, before anyone is authenticated (not caller-authorized):
 * which first factors the org's users may sign in with, and whether a second
 * factor is required. A passkey is user-verified and hardware-bound: it
 * satisfies forceMfa on its own (docs/decisions.md).
 */
export interface LoginFactors {
  /** In the order the login offers them; never empty (a policy allowing neither is refused when written). */
  firstFactors: Array<'passkey' | 'password'>;
  passkeyAllowed: boolean;
  passwordAllowed: boolean;
  forceMfa: boolean;
}

export async function loginFactorsOf(read: Pick<ReadModel, 'loginPolicyOf'>, orgId: string): Promise<LoginFactors> {
  const own = await read.loginPolicyOf(orgId);
  const policy = own ? { forceMfa: own.forceMfa, passwordlessAllowed: own.passwordlessAllowed, allowUsernamePassword: own.allowUsernamePassword } : DEFAULT_LOGIN_POLICY;
  return {
    firstFactors: allowedFirstFactors(policy),
    passkeyAllowed: policy.passwordlessAllowed,
    passwordAllowed: policy.allowUsernamePassword,
    forceMfa: policy.forceMfa,
  };
}
