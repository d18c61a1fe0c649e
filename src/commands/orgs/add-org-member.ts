// AddOrgMember: grant roles in the call's org (replacing those the user held
// there). Members may come from other orgs, but only users the caller sees.
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { requiredId, rolesRule } from '../../domain/identity/text-rules.js';
import { orgDecider, type OrgCommand } from '../../domain/org/decider.js';
import { assertMayGrant, authorize, orgContext, visibleLiveUser } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { goneOwners } from './org-members.js';

export async function addOrgMember(ports: Ports, call: Call, input: { userId: string; roles: readonly string[] }): Promise<{ written: Written }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const violations = [...requiredId('userId', input.userId), ...rolesRule('roles', input.roles, 'org')];
  if (violations.length) throw invalidRequest(violations);
  // The target is the org (its context is loaded already): authorize before
  // looking the user up, so a caller without the permission cannot probe user ids.
  authorize(caller, 'org.member.write', { orgId });
  await visibleLiveUser(ports.lookups, caller, input.userId);
  await assertMayGrant(ports.lookups, caller, input.userId, { scopeType: 'org', scopeId: orgId, orgId }, input.roles);
  // A grant to an owner replaces its roles: the decider keeps the last owner, and needs to know which owners are gone.
  const events = await runCommand(ports.events, { type: 'org', id: orgId }, orgDecider(orgId), async (state): Promise<OrgCommand> => ({
    kind: 'addMember',
    userId: input.userId,
    roles: input.roles,
    actor: caller.userId,
    goneUsers: await goneOwners(ports.lookups, state),
  }));
  return { written: written(events, orgId) };
}
