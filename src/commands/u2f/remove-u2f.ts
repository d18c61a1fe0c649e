// RemoveU2F: a user's security key (or pending registration) goes; its
// credential id is free again. Another user's key passes containment.
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { u2fDecider } from '../../domain/u2f/decider.js';
import { userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export async function removeU2f(ports: Ports, { caller }: Call, input: { userId: string; u2fId: string }): Promise<{ written: Written }> {
  const violations = [...requiredId('userId', input.userId), ...requiredId('u2fId', input.u2fId)];
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  const events = await runCommand(ports.events, { type: 'u2f', id: input.u2fId }, u2fDecider(input.u2fId, user.id, () => ports.clock.now()), {
    kind: 'remove',
    actor: caller.userId,
  });
  return { written: written(events, input.u2fId) };
}
