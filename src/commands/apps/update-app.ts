// UpdateApp: a new name for the app, by the rule of AddOIDCApp; a name another
// app of the project holds (by its key) is 409 APP_NAME_TAKEN, from the index.
import { appDecider } from '../../domain/app/decider.js';
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { validateAppName } from '../../domain/oidc/index.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { isApiGuardian } from './app-api-access.js';
import { projectForAppCall } from '../../access/app-in-project.js';

export async function updateApp(ports: Ports, call: Call, input: { projectId: string; appId: string; name: string }): Promise<{ written: Written }> {
  const checked = validateAppName(input.name);
  const { caller, project } = await projectForAppCall(ports.lookups, call, input, 'project.app.write', checked.ok ? [] : checked.violations);
  if (!checked.ok) throw invalidRequest(checked.violations);
  const events = await runCommand(
    ports.events,
    { type: 'app', id: input.appId },
    appDecider(input.appId),
    { kind: 'rename', projectId: project.id, name: checked.name, actor: caller.userId, apiGuardian: isApiGuardian(caller, project) },
    { conflictMetadata: { projectId: project.id } },
  );
  return { written: written(events, input.appId) };
}
