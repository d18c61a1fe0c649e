// A passkey's new name, under the rule of RemovePasskey: the user themself,
// or user.credential.write in the user's org and containment. A passkey that
// is not ready, or another user's, is "not found".
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { requiredId, requiredText } from '../../domain/identity/text-rules.js';
import { passkeyDecider } from '../../domain/passkey/decider.js';
import { userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export async function renamePasskey(ports: Ports, { caller }: Call, input: { userId: string; passkeyId: string; passkeyName: string }): Promise<{ written: Written }> {
  const violations = [...requiredId('userId', input.userId), ...requiredId('passkeyId', input.passkeyId), ...requiredText('passkeyName', input.passkeyName, 200)];
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  const events = await runCommand(ports.events, { type: 'passkey', id: input.passkeyId }, passkeyDecider(input.passkeyId, user.id, () => ports.clock.now()), {
    kind: 'rename',
    passkeyName: input.passkeyName.trim(),
    actor: caller.userId,
  });
  return { written: written(events, input.passkeyId) };
}
