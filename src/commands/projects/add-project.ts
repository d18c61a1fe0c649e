// AddProject: a new project in the call's org, with ZITADEL's login checks
// (projectRoleCheck, hasProjectCheck).
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { checkDisplayName } from '../../domain/identity/identifiers.js';
import { requiredText } from '../../domain/identity/text-rules.js';
import { projectDecider } from '../../domain/project/decider.js';
import { authorize, orgContext } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export async function addProject(ports: Ports, call: Call, input: { name: string; projectRoleCheck?: boolean; hasProjectCheck?: boolean }): Promise<{ projectId: string; written: Written }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const violations = requiredText('name', input.name, 200);
  if (violations.length) throw invalidRequest(violations);
  authorize(caller, 'project.write', { orgId });
  const projectId = ports.ids.newId();
  const events = await runCommand(
    ports.events,
    { type: 'project', id: projectId },
    projectDecider(projectId),
    {
      kind: 'add',
      orgId,
      name: checkDisplayName(input.name, 200).value,
      projectRoleCheck: input.projectRoleCheck ?? false,
      hasProjectCheck: input.hasProjectCheck ?? false,
      actor: caller.userId,
    },
    { creates: true },
  );
  return { projectId, written: written(events, projectId) };
}
