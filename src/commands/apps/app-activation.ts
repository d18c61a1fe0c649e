// DeactivateApp / ReactivateApp: an inactive app keeps its configuration and
// secret but cannot authenticate (queries/client-auth.ts; the OpenID Provider's
// client lookup reads the same state).
import { appDecider } from '../../domain/app/decider.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { projectForAppCall } from '../../access/app-in-project.js';

async function setActive(ports: Ports, call: Call, input: { projectId: string; appId: string }, kind: 'deactivate' | 'reactivate') {
  const { caller, project } = await projectForAppCall(ports.lookups, call, input, 'project.app.write');
  const events = await runCommand(ports.events, { type: 'app', id: input.appId }, appDecider(input.appId), {
    kind,
    projectId: project.id,
    actor: caller.userId,
  });
  return { written: written(events, input.appId) };
}

export const deactivateApp = (ports: Ports, call: Call, input: { projectId: string; appId: string }): Promise<{ written: Written }> =>
  setActive(ports, call, input, 'deactivate');

export const reactivateApp = (ports: Ports, call: Call, input: { projectId: string; appId: string }): Promise<{ written: Written }> =>
  setActive(ports, call, input, 'reactivate');
