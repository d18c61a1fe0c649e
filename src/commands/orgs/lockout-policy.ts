// AddCustomLockoutPolicy / UpdateCustomLockoutPolicy: the lockout policy of
// the org the call acts in (x-service-orgid, else the caller's own), under
// org.policy.write, as the login policy. Load the org's events, decide (org
// decider), append.
import { invalidRequest, violation } from '../../domain/errors/keyhold-error.js';
import { orgDecider, type LockoutPolicy } from '../../domain/org/decider.js';
import { authorize, orgContext } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export interface LockoutPolicyInput {
  maxPasswordAttempts: unknown;
}

/** Beyond this a threshold protects nothing (the throttle's delays have long reached their cap). */
export const MAX_PASSWORD_ATTEMPTS_LIMIT = 1000;

function policyOf(input: LockoutPolicyInput): LockoutPolicy {
  const n = input.maxPasswordAttempts;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_PASSWORD_ATTEMPTS_LIMIT) {
    throw invalidRequest([
      violation('maxPasswordAttempts', {
        en: `must be a whole number from 0 (no lock) to ${MAX_PASSWORD_ATTEMPTS_LIMIT}`,
        de: `muss eine ganze Zahl von 0 (keine Sperre) bis ${MAX_PASSWORD_ATTEMPTS_LIMIT} sein`,
      }),
    ]);
  }
  return { maxPasswordAttempts: n };
}

async function writePolicy(ports: Ports, call: Call, kind: 'addLockoutPolicy' | 'changeLockoutPolicy', input: LockoutPolicyInput): Promise<{ written?: Written; orgId: string }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const policy = policyOf(input);
  authorize(caller, 'org.policy.write', { orgId });
  const events = await runCommand(ports.events, { type: 'org', id: orgId }, orgDecider(orgId), { kind, policy, actor: caller.userId });
  // The same values again change nothing: no event, and the API answers the org's current version.
  return { written: events.length ? written(events, orgId) : undefined, orgId };
}

export const addCustomLockoutPolicy = (ports: Ports, call: Call, input: LockoutPolicyInput) => writePolicy(ports, call, 'addLockoutPolicy', input);
export const updateCustomLockoutPolicy = (ports: Ports, call: Call, input: LockoutPolicyInput) => writePolicy(ports, call, 'changeLockoutPolicy', input);
