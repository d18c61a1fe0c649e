// UpdateOrgMember / RemoveOrgMember: a member of the call's org gets new roles
// or none. Decided on the org's own events (its members and their roles), so
// containment and the last-owner rule see the state the append checks: two
// removals of the last two owners meet there, and one of them is refused.
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { grantExcess, holdsEverything, type Scope } from '../../domain/identity/permissions.js';
import { requiredId, rolesRule } from '../../domain/identity/text-rules.js';
import { orgDecider, ownersOf, type OrgCommand, type OrgState } from '../../domain/org/decider.js';
import { authorize, orgContext } from '../../access/access.js';
import type { Call, Caller } from '../../access/caller.js';
import type { Lookups, Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

/**
 * The member's current roles, after the checks every change of a member
 * makes: it is a member here (else 404, whoever the user is), and the caller
 * holds every permission of both its current and its new roles (containment,
 * as AddOrgMember: grantExcess), else 403 PRIVILEGE_ESCALATION.
 */
export function containedMember(caller: Caller, members: OrgState['members'], userId: string, scope: Scope, roles: readonly string[]): readonly string[] {
  const held = members.get(userId);
  if (!held) throw new KeyholdError('MEMBER_NOT_FOUND', { userId, scope: scope.scopeType === 'org' ? 'organization' : 'project', scopeId: scope.scopeId });
  if (!holdsEverything(caller.memberships) && grantExcess(caller.memberships, scope, roles, held)) throw new KeyholdError('PRIVILEGE_ESCALATION', { userId });
  return held;
}

/**
 * Owners in the org's events who cannot act as one: their user removed since (RemoveUser),
 * deactivated or locked (DeactivateUser, LockUser), or of a deactivated org (DeactivateOrg). The
 * last-owner rule counts the others only, so an org is never left with owners none of whom can
 * sign in.
 */
export async function goneOwners(lookups: Pick<Lookups, 'userFacts'>, state: OrgState): Promise<string[]> {
  const owners = ownersOf(state);
  const facts = await Promise.all(owners.map((userId) => lookups.userFacts(userId)));
  return owners.filter((_, i) => {
    const user = facts[i];
    return !user || (user.state !== undefined && user.state !== 'active') || user.orgActive === false;
  });
}

async function changeOrgMember(ports: Ports, call: Call, userId: string, roles: readonly string[] | undefined): Promise<{ written?: Written; orgId: string }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const violations = [...requiredId('userId', userId), ...(roles ? rolesRule('roles', roles, 'org') : [])];
  if (violations.length) throw invalidRequest(violations);
  authorize(caller, 'org.member.write', { orgId });
  const scope: Scope = { scopeType: 'org', scopeId: orgId, orgId };
  const events = await runCommand(ports.events, { type: 'org', id: orgId }, orgDecider(orgId), async (state): Promise<OrgCommand> => {
    containedMember(caller, state.members, userId, scope, roles ?? []);
    // A member whose user was removed is gone: its roles cannot be changed, only taken away.
    if (roles && !(await ports.lookups.userFacts(userId))) throw new KeyholdError('USER_NOT_FOUND', { userId });
    const goneUsers = await goneOwners(ports.lookups, state);
    return roles
      ? { kind: 'changeMember', userId, roles, actor: caller.userId, goneUsers }
      : { kind: 'removeMember', userId, actor: caller.userId, goneUsers };
  });
  // The same roles again change nothing: no event.
  return { written: events.length ? written(events, orgId) : undefined, orgId };
}

export const updateOrgMember = (ports: Ports, call: Call, input: { userId: string; roles: readonly string[] }) =>
  changeOrgMember(ports, call, input.userId, input.roles);

export const removeOrgMember = (ports: Ports, call: Call, input: { userId: string }) => changeOrgMember(ports, call, input.userId, undefined);
