// AddCustomLoginPolicy / UpdateCustomLoginPolicy: the login policy
// of the org the call acts in (x-service-orgid, else the caller's own), under
// org.policy.write. Load the org's events, decide (org decider), append.
// Add may leave the first factors out (their defaults); Update must name both.
import { invalidRequest, violation } from '../../domain/errors/keyhold-error.js';
import { registerDomainsRule } from '../../domain/identity/registration.js';
import { orgDecider, type LoginPolicyChange } from '../../domain/org/decider.js';
import { authorize, orgContext } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export interface LoginPolicyInput {
  forceMfa: unknown;
  /** ZITADEL's passwordlessType as allowed (true) or not; absent: the default (add only; update requires it). */
  passwordlessAllowed?: unknown;
  /** Absent: the default (add only; update requires it). */
  allowUsernamePassword?: unknown;
  /** Self-registration; absent: off. */
  allowRegister?: unknown;
  /** Its address domains; empty: any. */
  allowedDomains?: readonly string[];
  /** Verification before the first login; absent: required. */
  registerVerificationRequired?: unknown;
}

const REQUIRED = { en: 'is required', de: 'ist erforderlich' };

/**
 * An update names both first factors: a ZITADEL-shaped client never sends
 * PASSWORDLESS_TYPE_NOT_ALLOWED (0) or false (proto3 omits defaults), so an
 * absent field cannot mean "as it is" — "switch passkeys off" would be
 * answered 200 with nothing changed.
 */
function missingFirstFactors(input: LoginPolicyInput) {
  return [
    ...(input.passwordlessAllowed === undefined ? [violation('passwordlessType', REQUIRED)] : []),
    ...(input.allowUsernamePassword === undefined ? [violation('allowUsernamePassword', REQUIRED)] : []),
  ];
}

const BOOLEAN = { en: 'must be true or false', de: 'muss true oder false sein' };

function policyOf(input: LoginPolicyInput, requireFirstFactors: boolean): LoginPolicyChange {
  const violations = [
    ...(requireFirstFactors ? missingFirstFactors(input) : []),
    ...(typeof input.forceMfa !== 'boolean' ? [violation('forceMfa', BOOLEAN)] : []),
    ...(input.passwordlessAllowed !== undefined && typeof input.passwordlessAllowed !== 'boolean'
      ? [violation('passwordlessType', { en: 'must be PASSWORDLESS_TYPE_ALLOWED or PASSWORDLESS_TYPE_NOT_ALLOWED', de: 'muss PASSWORDLESS_TYPE_ALLOWED oder PASSWORDLESS_TYPE_NOT_ALLOWED sein' })]
      : []),
    ...(input.allowUsernamePassword !== undefined && typeof input.allowUsernamePassword !== 'boolean' ? [violation('allowUsernamePassword', BOOLEAN)] : []),
    ...(input.allowRegister !== undefined && typeof input.allowRegister !== 'boolean' ? [violation('allowRegister', BOOLEAN)] : []),
    ...(input.registerVerificationRequired !== undefined && typeof input.registerVerificationRequired !== 'boolean' ? [violation('registerVerificationRequired', BOOLEAN)] : []),
  ];
  const domains = registerDomainsRule('allowedDomains', input.allowedDomains ?? []);
  violations.push(...domains.violations);
  if (violations.length) throw invalidRequest(violations);
  return {
    forceMfa: input.forceMfa as boolean,
    // Left out: the safe defaults (no registration, any domain, verification required) — an update replaces them.
    allowRegister: (input.allowRegister as boolean | undefined) ?? false,
    registerDomains: domains.domains,
    registerVerification: (input.registerVerificationRequired as boolean | undefined) ?? true,
    ...(input.passwordlessAllowed !== undefined ? { passwordlessAllowed: input.passwordlessAllowed as boolean } : {}),
    ...(input.allowUsernamePassword !== undefined ? { allowUsernamePassword: input.allowUsernamePassword as boolean } : {}),
  };
}

async function writePolicy(ports: Ports, call: Call, kind: 'addLoginPolicy' | 'changeLoginPolicy', input: LoginPolicyInput): Promise<{ written?: Written; orgId: string }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const policy = policyOf(input, kind === 'changeLoginPolicy');
  authorize(caller, 'org.policy.write', { orgId });
  const events = await runCommand(ports.events, { type: 'org', id: orgId }, orgDecider(orgId), { kind, policy, actor: caller.userId });
  // The same values again change nothing: no event, and the API answers the org's current version.
  return { written: events.length ? written(events, orgId) : undefined, orgId };
}

export const addCustomLoginPolicy = (ports: Ports, call: Call, input: LoginPolicyInput) => writePolicy(ports, call, 'addLoginPolicy', input);
export const updateCustomLoginPolicy = (ports: Ports, call: Call, input: LoginPolicyInput) => writePolicy(ports, call, 'changeLoginPolicy', input);
