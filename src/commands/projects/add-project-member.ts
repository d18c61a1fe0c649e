// AddProjectMember: grant roles on a project (replacing those the user held
// there). Members may come from other orgs, but only users the caller sees,
// and only roles within the caller's own permissions (assertMayGrant).
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { requiredId, rolesRule } from '../../domain/identity/text-rules.js';
import { projectDecider } from '../../domain/project/decider.js';
import { assertMayGrant, authorize, orgContext, projectInOrg, visibleLiveUser } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export async function addProjectMember(
  ports: Ports,
  call: Call,
  input: { projectId: string; userId: string; roles: readonly string[] },
): Promise<{ written: Written }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const violations = [...requiredId('projectId', input.projectId), ...requiredId('userId', input.userId), ...rolesRule('roles', input.roles, 'project')];
  if (violations.length) throw invalidRequest(violations);
  const project = await projectInOrg(ports.lookups, input.projectId, orgId);
  authorize(caller, 'project.member.write', { orgId, projectId: project.id });
  await visibleLiveUser(ports.lookups, caller, input.userId);
  await assertMayGrant(ports.lookups, caller, input.userId, { scopeType: 'project', scopeId: project.id, orgId }, input.roles);
  const events = await runCommand(ports.events, { type: 'project', id: project.id }, projectDecider(project.id), {
    kind: 'addMember',
    userId: input.userId,
    roles: input.roles,
    actor: caller.userId,
  });
  return { written: written(events, project.id) };
}
