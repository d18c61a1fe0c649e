// UpdateProject (PUT /management/v1/projects/{id}): the name and the two login
// checks, all replaced (ZITADEL's shape). The same values again write nothing.
// The console's project keeps both checks off (./console-project.ts).
import { violation } from '../../domain/errors/keyhold-error.js';
import { checkDisplayName } from '../../domain/identity/identifiers.js';
import { requiredText } from '../../domain/identity/text-rules.js';
import { projectDecider } from '../../domain/project/decider.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { assertNotConsoleProject } from './console-project.js';
import { projectForCall } from '../../access/project-call.js';

export interface UpdateProjectInput {
  projectId: string;
  name: string;
  /** ZITADEL's project-wide role assertion: Keyhold asserts roles per app, so only false (absent) is taken. */
  projectRoleAssertion?: boolean;
  projectRoleCheck: boolean;
  hasProjectCheck: boolean;
}

export async function updateProject(ports: Ports, call: Call, input: UpdateProjectInput): Promise<{ written?: Written }> {
  const more = requiredText('name', input.name, 200);
  if (input.projectRoleAssertion) {
    more.push(
      violation('projectRoleAssertion', {
        en: "is not supported: roles are asserted per app (its OIDC configuration's accessTokenRoleAssertion and idTokenRoleAssertion)",
        de: 'wird nicht unterstützt: Rollen werden je Anwendung zugesichert (accessTokenRoleAssertion und idTokenRoleAssertion ihrer OIDC-Konfiguration)',
      }),
    );
  }
  const { caller, project } = await projectForCall(ports.lookups, call, { field: 'id', value: input.projectId }, 'project.write', more);
  if (input.projectRoleCheck || input.hasProjectCheck) assertNotConsoleProject(project.id);
  const events = await runCommand(ports.events, { type: 'project', id: project.id }, projectDecider(project.id), {
    kind: 'update',
    name: checkDisplayName(input.name, 200).value,
    projectRoleCheck: input.projectRoleCheck,
    hasProjectCheck: input.hasProjectCheck,
    actor: caller.userId,
  });
  return { written: events.length ? written(events, project.id) : undefined };
}
