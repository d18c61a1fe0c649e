// GetLoginPolicy: the login policy of the org the call acts in —
// its own, or the default (forceMfa off) with the org's version.
import { authorize, orgContext } from '../access/access.js';
import type { Call } from '../access/caller.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import { allowedFirstFactors, DEFAULT_LOGIN_POLICY, type LoginPolicy } from '../domain/org/decider.js';
import type { ReadModel, Versioned } from './read-model.js';

export interface LoginPolicyAnswer {
  forceMfa: boolean;
  passwordlessAllowed: boolean;
  allowUsernamePassword: boolean;
  allowRegister: boolean;
  registerDomains: readonly string[];
  registerVerification: boolean;
  isDefault: boolean;
  version: Versioned;
}

export async function getLoginPolicy(read: ReadModel, call: Call): Promise<LoginPolicyAnswer> {
  const { caller, orgId } = await orgContext(read, call);
  authorize(caller, 'org.policy.read', { orgId });
  const own = await read.loginPolicyOf(orgId);
  if (own) return { ...policyOfRow(own), isDefault: false, version: own };
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
  /** Self-registration, when the org allows it: its address domains (empty: any), and whether the address is verified before the first login. */
  registration?: { domains: readonly string[]; verification: boolean };
}

export async function loginFactorsOf(read: Pick<ReadModel, 'loginPolicyOf'>, orgId: string): Promise<LoginFactors> {
  const own = await read.loginPolicyOf(orgId);
  const policy = own ? policyOfRow(own) : DEFAULT_LOGIN_POLICY;
  return {
    firstFactors: allowedFirstFactors(policy),
    passkeyAllowed: policy.passwordlessAllowed,
    passwordAllowed: policy.allowUsernamePassword,
    forceMfa: policy.forceMfa,
    registration: policy.allowRegister ? { domains: policy.registerDomains, verification: policy.registerVerification } : undefined,
  };
}

/** A stored policy row as the domain's policy. */
function policyOfRow(row: NonNullable<Awaited<ReturnType<ReadModel['loginPolicyOf']>>>): LoginPolicy {
  return {
    forceMfa: row.forceMfa,
    passwordlessAllowed: row.passwordlessAllowed,
    allowUsernamePassword: row.allowUsernamePassword,
    allowRegister: row.allowRegister,
    registerDomains: row.registerDomains.split(' ').filter(Boolean),
    registerVerification: row.registerVerification,
  };
}
