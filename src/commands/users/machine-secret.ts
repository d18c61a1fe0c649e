// GenerateMachineSecret / RemoveMachineSecret: a machine user's
// client credentials for grant_type=client_credentials. The secret is shown
// once and stored as its hash (as an app's); the client id is generated once
// and kept when the secret is regenerated. As AddPersonalAccessToken: the user
// of the call's org (404), user.write (403), a machine (412), containment (403
// PRIVILEGE_ESCALATION: a secret acts as the user, so the caller must hold all it holds).
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { userDecider, type UserCommand, type UserState } from '../../domain/user/decider.js';
import { assertContainsUser, authorize, orgContext } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

/**
 * A machine's client id: a prefix no app's client id has (apps get a bare
 * object id, or the console's fixed id), so the two never meet; the read
 * model's unique index guards it as well.
 */
export const MACHINE_CLIENT_ID_PREFIX = 'machine-';

async function machineUserCommand(ports: Ports, call: Call, userId: string, command: (state: UserState) => UserCommand): Promise<Written> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const violations = requiredId('userId', userId);
  if (violations.length) throw invalidRequest(violations);
  const events = await runCommand(ports.events, { type: 'user', id: userId }, userDecider(userId), async (state): Promise<UserCommand> => {
    if (!state.exists || state.orgId !== orgId) throw new KeyholdError('USER_NOT_FOUND', { userId });
    authorize(caller, 'user.write', { orgId });
    if (state.kind !== 'machine') throw new KeyholdError('MACHINE_SECRET_ONLY_FOR_MACHINE_USERS', { userId });
    await assertContainsUser(ports.lookups, caller, userId);
    return command(state);
  });
  return written(events, userId);
}

export async function generateMachineSecret(ports: Ports, call: Call, input: { userId: string }): Promise<{ clientId: string; clientSecret: string; written: Written }> {
  const secret = ports.secrets.clientSecret();
  let clientId = '';
  const result = await machineUserCommand(ports, call, input.userId, (state) => {
    clientId = state.machineClientId ?? `${MACHINE_CLIENT_ID_PREFIX}${ports.ids.newId()}`;
    return { kind: 'setMachineSecret', clientId, clientSecretHash: secret.hash, actor: call.caller.userId };
  });
  return { clientId, clientSecret: secret.secret, written: result };
}

export async function removeMachineSecret(ports: Ports, call: Call, input: { userId: string }): Promise<{ written: Written }> {
  return { written: await machineUserCommand(ports, call, input.userId, () => ({ kind: 'removeMachineSecret', actor: call.caller.userId })) };
}
