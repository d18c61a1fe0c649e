// AddProjectRole (POST /management/v1/projects/{projectId}/roles): a role of
// a project of the call's org, for its apps' users (user grants give it; apps
// see it in the roles claim). A key the project has already: 409 ROLE_KEY_TAKEN.
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { checkDisplayName } from '../../domain/identity/identifiers.js';
import { optionalName, requiredId, requiredText, roleKeyRule } from '../../domain/identity/text-rules.js';
import { projectDecider } from '../../domain/project/decider.js';
import { authorize, orgContext, projectInOrg } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export interface AddProjectRoleInput {
  projectId: string;
  roleKey: string;
  displayName: string;
  group: string;
}

export async function addProjectRole(ports: Ports, call: Call, input: AddProjectRoleInput): Promise<{ written: Written }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const violations = [
    ...requiredId('projectId', input.projectId),
    ...roleKeyRule('roleKey', input.roleKey),
    ...requiredText('displayName', input.displayName, 200),
    ...optionalName('group', input.group, 200),
  ];
  if (violations.length) throw invalidRequest(violations);
  const project = await projectInOrg(ports.lookups, input.projectId, orgId);
  authorize(caller, 'project.role.write', { orgId, projectId: project.id });
  const name = (text: string) => (text.trim() ? checkDisplayName(text, 200).value : '');
  const events = await runCommand(ports.events, { type: 'project', id: project.id }, projectDecider(project.id), {
    kind: 'addRole',
    roleKey: input.roleKey,
    displayName: name(input.displayName),
    group: name(input.group),
    actor: caller.userId,
  });
  return { written: written(events, project.id) };
}
