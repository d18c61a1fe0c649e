// AddMachineUser: a service account in the call's org.
import { invalidRequest, violation } from '../../domain/errors/keyhold-error.js';
import { checkDisplayName, checkUsername } from '../../domain/identity/identifiers.js';
import { optionalText, requiredText, usernameRule } from '../../domain/identity/text-rules.js';
import { userDecider } from '../../domain/user/decider.js';
import { authorize, orgContext } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export async function addMachineUser(
  ports: Ports,
  call: Call,
  input: { userName: string; name: string; description: string; accessTokenType?: string },
): Promise<{ userId: string; written: Written }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const violations = [...usernameRule('userName', input.userName, 200), ...requiredText('name', input.name, 200), ...optionalText('description', input.description, 500)];
  if (input.accessTokenType !== undefined && input.accessTokenType !== 'BEARER' && input.accessTokenType !== 'JWT') {
    violations.push(violation('accessTokenType', { en: 'must be ACCESS_TOKEN_TYPE_BEARER or ACCESS_TOKEN_TYPE_JWT', de: 'muss ACCESS_TOKEN_TYPE_BEARER oder ACCESS_TOKEN_TYPE_JWT sein' }));
  }
  if (violations.length) throw invalidRequest(violations);
  authorize(caller, 'user.write', { orgId });
  const userId = ports.ids.newId();
  const events = await runCommand(
    ports.events,
    { type: 'user', id: userId },
    userDecider(userId),
    {
      kind: 'addMachine',
      orgId,
      username: checkUsername(input.userName, 200).value,
      name: checkDisplayName(input.name, 200).value,
      description: input.description,
      actor: caller.userId,
      // BEARER is the default: the event then carries none, as older events.
      ...(input.accessTokenType === 'JWT' ? { accessTokenType: 'JWT' as const } : {}),
    },
    { creates: true },
  );
  return { userId, written: written(events, userId) };
}
