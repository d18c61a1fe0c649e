// UpdateProjectRole (PUT /management/v1/projects/{projectId}/roles/{roleKey}):
// the role's display name and group; its key stays (grants name it). The same
// values again write nothing.
import { checkDisplayName } from '../../domain/identity/identifiers.js';
import { optionalName, requiredText, roleKeyRule } from '../../domain/identity/text-rules.js';
import { projectDecider } from '../../domain/project/decider.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { projectForCall } from '../../access/project-call.js';

export interface UpdateProjectRoleInput {
  projectId: string;
  roleKey: string;
  displayName: string;
  group: string;
}

export async function updateProjectRole(ports: Ports, call: Call, input: UpdateProjectRoleInput): Promise<{ written?: Written }> {
  const more = [...roleKeyRule('roleKey', input.roleKey), ...requiredText('displayName', input.displayName, 200), ...optionalName('group', input.group, 200)];
  const { caller, project } = await projectForCall(ports.lookups, call, { field: 'projectId', value: input.projectId }, 'project.role.write', more);
  const name = (text: string) => (text.trim() ? checkDisplayName(text, 200).value : '');
  const events = await runCommand(ports.events, { type: 'project', id: project.id }, projectDecider(project.id), {
    kind: 'changeRole',
    roleKey: input.roleKey,
    displayName: name(input.displayName),
    group: name(input.group),
    actor: caller.userId,
  });
  return { written: events.length ? written(events, project.id) : undefined };
}
