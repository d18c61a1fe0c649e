// A security key's new name: the user's own, or an administrator's under the
// security keys' rule (user.credential.write and containment). A key that is
// not ready, or another user's, is "not found".
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { requiredId, requiredText } from '../../domain/identity/text-rules.js';
import { u2fDecider } from '../../domain/u2f/decider.js';
import { userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export async function renameU2f(ports: Ports, { caller }: Call, input: { userId: string; u2fId: string; tokenName: string }): Promise<{ written: Written }> {
  const violations = [...requiredId('userId', input.userId), ...requiredId('u2fId', input.u2fId), ...requiredText('tokenName', input.tokenName, 200)];
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  const events = await runCommand(ports.events, { type: 'u2f', id: input.u2fId }, u2fDecider(input.u2fId, user.id, () => ports.clock.now()), {
    kind: 'rename',
    tokenName: input.tokenName.trim(),
    actor: caller.userId,
  });
  return { written: written(events, input.u2fId) };
}
