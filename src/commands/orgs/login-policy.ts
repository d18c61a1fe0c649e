// AddCustomLoginPolicy / UpdateCustomLoginPolicy: the login policy
// of the org the call acts in (x-service-orgid, else the caller's own), under
// org.policy.write. Load the org's events, decide (org decider), append.
import { invalidRequest, violation } from '../../domain/errors/keyhold-error.js';
import { orgDecider, type LoginPolicy } from '../../domain/org/decider.js';
import { authorize, orgContext } from '../access.js';
import type { Call } from '../caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export interface LoginPolicyInput {
  forceMfa: unknown;
}

function policyOf(input: LoginPolicyInput): LoginPolicy {
  if (typeof input.forceMfa !== 'boolean') throw invalidRequest([violation('forceMfa', { en: 'must be true or false', de: 'muss true oder false sein' })]);
  return { forceMfa: input.forceMfa };
}

async function writePolicy(ports: Ports, call: Call, kind: 'addLoginPolicy' | 'changeLoginPolicy', input: LoginPolicyInput): Promise<{ written?: Written; orgId: string }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const policy = policyOf(input);
  authorize(caller, 'org.policy.write', { orgId });
  const events = await runCommand(ports.events, { type: 'org', id: orgId }, orgDecider(orgId), { kind, policy, actor: caller.userId });
  // The same values again change nothing: no event, and the API answers the org's current version.
  return { written: events.length ? written(events, orgId) : undefined, orgId };
}

export const addCustomLoginPolicy = (ports: Ports, call: Call, input: LoginPolicyInput) => writePolicy(ports, call, 'addLoginPolicy', input);
export const updateCustomLoginPolicy = (ports: Ports, call: Call, input: LoginPolicyInput) => writePolicy(ports, call, 'changeLoginPolicy', input);
