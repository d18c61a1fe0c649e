// RemovePersonalAccessToken: the token stops authenticating — at once in this
// process (queries/callers.ts drops its cache on the event), within the cache's
// TTL (1 s) in every other process sharing the database. Like adding one: the
// user of the call's org (404), user.write (403), containment (removing the
// token of someone who holds more is refused, as minting one would be).
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { userDecider, type UserCommand } from '../../domain/user/decider.js';
import { assertContainsUser, authorize, orgContext } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export async function removePersonalAccessToken(ports: Ports, call: Call, input: { userId: string; tokenId: string }): Promise<{ written: Written }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const violations = [...requiredId('userId', input.userId), ...requiredId('tokenId', input.tokenId)];
  if (violations.length) throw invalidRequest(violations);
  const { userId, tokenId } = input;
  const events = await runCommand(ports.events, { type: 'user', id: userId }, userDecider(userId), async (state): Promise<UserCommand> => {
    if (!state.exists || state.orgId !== orgId) throw new KeyholdError('USER_NOT_FOUND', { userId });
    authorize(caller, 'user.write', { orgId });
    if (userId !== caller.userId) await assertContainsUser(ports.lookups, caller, userId);
    return { kind: 'removePat', tokenId, actor: caller.userId };
  });
  return { written: written(events, userId) };
}
