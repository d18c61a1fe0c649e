// UpdateProjectMember / RemoveProjectMember: a member of a project of the
// call's org gets new roles or none. Containment as AddProjectMember's, decided
// on the project's own events (its members and their roles).
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import type { Scope } from '../../domain/identity/permissions.js';
import { requiredId, rolesRule } from '../../domain/identity/text-rules.js';
import { projectDecider, type ProjectCommand } from '../../domain/project/decider.js';
import { authorize, orgContext, projectInOrg } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { containedMember } from '../orgs/org-members.js';

async function changeProjectMember(
  ports: Ports,
  call: Call,
  input: { projectId: string; userId: string },
  roles: readonly string[] | undefined,
): Promise<{ written?: Written; projectId: string; orgId: string }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const violations = [...requiredId('projectId', input.projectId), ...requiredId('userId', input.userId), ...(roles ? rolesRule('roles', roles, 'project') : [])];
  if (violations.length) throw invalidRequest(violations);
  const project = await projectInOrg(ports.lookups, input.projectId, orgId);
  authorize(caller, 'project.member.write', { orgId, projectId: project.id });
  const scope: Scope = { scopeType: 'project', scopeId: project.id, orgId };
  const { userId } = input;
  const events = await runCommand(ports.events, { type: 'project', id: project.id }, projectDecider(project.id), async (state): Promise<ProjectCommand> => {
    containedMember(caller, state.members, userId, scope, roles ?? []);
    if (roles && !(await ports.lookups.userFacts(userId))) throw new KeyholdError('USER_NOT_FOUND', { userId });
    return roles ? { kind: 'changeMember', userId, roles, actor: caller.userId } : { kind: 'removeMember', userId, actor: caller.userId };
  });
  return { written: events.length ? written(events, project.id) : undefined, projectId: project.id, orgId };
}

export const updateProjectMember = (ports: Ports, call: Call, input: { projectId: string; userId: string; roles: readonly string[] }) =>
  changeProjectMember(ports, call, input, input.roles);

export const removeProjectMember = (ports: Ports, call: Call, input: { projectId: string; userId: string }) => changeProjectMember(ports, call, input, undefined);
