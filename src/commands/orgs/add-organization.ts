// AddOrganization: a new org, optionally with admins (ORG_OWNER unless roles
// are given). Admins are role grants like AddOrgMember's: users the caller
// sees, roles within its own permissions.
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { checkDisplayName } from '../../domain/identity/identifiers.js';
import { requiredId, requiredText, rolesRule } from '../../domain/identity/text-rules.js';
import { adminRoles, orgDecider, type OrgAdmin } from '../../domain/org/decider.js';
import { assertMayGrant, authorize, visibleLiveUser } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export async function addOrganization(
  ports: Ports,
  { caller }: Call,
  input: { name: string; admins: readonly OrgAdmin[] },
): Promise<{ orgId: string; written: Written }> {
  const violations = requiredText('name', input.name, 200);
  input.admins.forEach((a, i) => {
    violations.push(...requiredId(`admins[${i}].userId`, a.userId));
    if (a.roles.length) violations.push(...rolesRule(`admins[${i}].roles`, a.roles, 'org'));
  });
  if (violations.length) throw invalidRequest(violations);
  authorize(caller, 'org.create', {});
  const orgId = ports.ids.newId();
  for (const a of input.admins) {
    await visibleLiveUser(ports.lookups, caller, a.userId);
    await assertMayGrant(ports.lookups, caller, a.userId, { scopeType: 'org', scopeId: orgId, orgId }, adminRoles(a.roles));
  }
  const events = await runCommand(
    ports.events,
    { type: 'org', id: orgId },
    orgDecider(orgId),
    { kind: 'add', name: checkDisplayName(input.name, 200).value, admins: input.admins, actor: caller.userId },
    { creates: true },
  );
  return { orgId, written: written(events, orgId) };
}
