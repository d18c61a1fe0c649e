// RegenerateOIDCClientSecret: a new secret for a BASIC/POST app, shown once.
import { appDecider } from '../../domain/app/decider.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { isApiGuardian } from './app-api-access.js';
import { projectForAppCall } from '../../access/app-in-project.js';

export async function regenerateOidcClientSecret(
  ports: Ports,
  call: Call,
  input: { projectId: string; appId: string },
): Promise<{ clientSecret: string; written: Written }> {
  const { caller, project } = await projectForAppCall(ports.lookups, call, input, 'project.app.write');
  const secret = ports.secrets.clientSecret();
  const events = await runCommand(ports.events, { type: 'app', id: input.appId }, appDecider(input.appId), {
    kind: 'regenerateSecret',
    projectId: project.id,
    clientSecretHash: secret.hash,
    actor: caller.userId,
    apiGuardian: isApiGuardian(caller, project),
  });
  return { clientSecret: secret.secret, written: written(events, input.appId) };
}
