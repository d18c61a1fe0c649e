// RemoveApp: the app's row goes from the read model (its name and client id
// can be used again); its events stay.
import { appDecider } from '../../domain/app/decider.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { projectForAppCall } from '../../access/app-in-project.js';

export async function removeApp(ports: Ports, call: Call, input: { projectId: string; appId: string }): Promise<{ written: Written }> {
  const { caller, project } = await projectForAppCall(ports.lookups, call, input, 'project.app.write');
  const events = await runCommand(ports.events, { type: 'app', id: input.appId }, appDecider(input.appId), {
    kind: 'remove',
    projectId: project.id,
    actor: caller.userId,
  });
  return { written: written(events, input.appId) };
}
