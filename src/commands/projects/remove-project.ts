// RemoveProject: the project, its apps and its user grants end in one append
// (each app and grant with its own event; the project's roles and members go
// with the project's row). Its apps' clients are then unknown: no login, no
// token, and the tokens issued before are refused within the client cache's
// bound. An app or grant added to it by a request already past its checks
// cannot authenticate or give a role: both read the project (store/queries).
import { appDecider } from '../../domain/app/decider.js';
import { projectDecider } from '../../domain/project/decider.js';
import { userGrantDecider } from '../../domain/usergrant/decider.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommands, target } from '../run.js';
import { written, type Written } from '../written.js';
import { assertCascadeBounded } from './cascade-bound.js';
import { assertNotConsoleProject } from './console-project.js';
import { projectForCall } from '../../access/project-call.js';

export async function removeProject(ports: Ports, call: Call, input: { projectId: string }): Promise<{ written: Written }> {
  const { caller, project } = await projectForCall(ports.lookups, call, { field: 'id', value: input.projectId }, 'project.write');
  assertNotConsoleProject(project.id);
  const [appIds, grantIds] = await Promise.all([ports.lookups.appIdsOfProject(project.id), ports.lookups.grantIdsOfProject(project.id)]);
  assertCascadeBounded(appIds.length + grantIds.length);
  const actor = caller.userId;
  const events = await runCommands(ports.events, [
    ...appIds.map((id) => target({ type: 'app', id }, appDecider(id), { kind: 'removeWithProject', projectId: project.id, actor })),
    ...grantIds.map((id) => target({ type: 'usergrant', id }, userGrantDecider(id), { kind: 'cascadeRemove', actor })),
    target({ type: 'project', id: project.id }, projectDecider(project.id), { kind: 'remove', actor }),
  ]);
  return { written: written(events, project.id) };
}
