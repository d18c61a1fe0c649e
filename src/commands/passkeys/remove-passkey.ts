// RemovePasskey: a user's passkey (or pending registration) goes; its
// credential id is free again. As RemoveU2F: the user themself, or
// user.credential.write in the user's org and containment.
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { passkeyDecider } from '../../domain/passkey/decider.js';
import { userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export async function removePasskey(ports: Ports, { caller }: Call, input: { userId: string; passkeyId: string }): Promise<{ written: Written }> {
  const violations = [...requiredId('userId', input.userId), ...requiredId('passkeyId', input.passkeyId)];
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  const events = await runCommand(ports.events, { type: 'passkey', id: input.passkeyId }, passkeyDecider(input.passkeyId, user.id, () => ports.clock.now()), {
    kind: 'remove',
    actor: caller.userId,
  });
  return { written: written(events, input.passkeyId) };
}
