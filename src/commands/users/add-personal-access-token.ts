// AddPersonalAccessToken: a token for a machine user of the call's org, shown
// once. Another user's token passes containment (the caller holds all the
// user holds). Decided on the user's events: they say whether it exists here
// and whether it is a machine, so no read-model lookup is needed.
import { invalidRequest, KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { assertTokenHolder, userDecider, type UserCommand } from '../../domain/user/decider.js';
import { assertContainsUser, authorize, orgContext } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export async function addPersonalAccessToken(
  ports: Ports,
  call: Call,
  input: { userId: string; expiresAt: Date | null },
): Promise<{ tokenId: string; token: string; written: Written }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const violations = requiredId('userId', input.userId);
  const { expiresAt, userId } = input;
  if (expiresAt && !(expiresAt.getTime() > ports.clock.now())) {
    violations.push(violation('expirationDate', { en: 'must be in the future', de: 'muss in der Zukunft liegen' }));
  }
  if (violations.length) throw invalidRequest(violations);
  const token = ports.secrets.personalAccessToken();
  const tokenId = ports.ids.newId();
  const events = await runCommand(ports.events, { type: 'user', id: userId }, userDecider(userId), async (state): Promise<UserCommand> => {
    if (!state.exists || state.orgId !== orgId) throw new KeyholdError('USER_NOT_FOUND', { userId });
    authorize(caller, 'user.write', { orgId });
    // After the 403, so a caller without user.write does not learn the kind; before containment.
    assertTokenHolder(state, userId);
    await assertContainsUser(ports.lookups, caller, userId);
    return { kind: 'addPat', tokenId, tokenHash: token.hash, expiresAt: expiresAt?.toISOString() ?? null, actor: caller.userId };
  });
  return { tokenId, token: token.token, written: written(events, userId) };
}
