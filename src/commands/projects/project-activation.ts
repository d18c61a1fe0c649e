// DeactivateProject / ReactivateProject: a deactivated project keeps its apps,
// roles and grants, but none of its apps authenticates (the client lookup
// reads an app's state with its project's: store/queries/apps.ts) — no login,
// no token, and the tokens issued before are refused wherever the client is
// read (introspection, userinfo, Keyhold's API), within the client cache's bound.
import { projectDecider } from '../../domain/project/decider.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { assertNotConsoleProject } from './console-project.js';
import { projectForCall } from '../../access/project-call.js';

async function setActive(ports: Ports, call: Call, input: { projectId: string }, kind: 'deactivate' | 'reactivate'): Promise<{ written: Written }> {
  const { caller, project } = await projectForCall(ports.lookups, call, { field: 'id', value: input.projectId }, 'project.write');
  if (kind === 'deactivate') assertNotConsoleProject(project.id);
  const events = await runCommand(ports.events, { type: 'project', id: project.id }, projectDecider(project.id), { kind, actor: caller.userId });
  return { written: written(events, project.id) };
}

export const deactivateProject = (ports: Ports, call: Call, input: { projectId: string }) => setActive(ports, call, input, 'deactivate');
export const reactivateProject = (ports: Ports, call: Call, input: { projectId: string }) => setActive(ports, call, input, 'reactivate');
