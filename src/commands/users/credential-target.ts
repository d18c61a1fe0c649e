// The first step of every write that hands someone a way to set a user's
// credential (an invitation, a reset link): the id is well formed, the caller
// may write that user's credentials (access.ts, under containment), only then
// the composition's own precondition (mail configured: a caller who may not ask
// learns nothing about it), and the user exists and is a person.
import { userForCredentialWrite } from '../../access/access.js';
import type { Caller } from '../../access/caller.js';
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import type { Reason } from '../../domain/errors/reasons.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import type { Ports, UserFacts } from '../ports.js';

export async function humanCredentialTarget(
  ports: Ports,
  caller: Caller,
  userId: string,
  notHuman: Reason,
  ready?: () => void,
): Promise<UserFacts> {
  const violations = requiredId('userId', userId);
  if (violations.length) throw invalidRequest(violations);
  await userForCredentialWrite(ports.lookups, caller, userId);
  ready?.();
  const user = await ports.lookups.userFacts(userId);
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId });
  if (user.kind !== 'human') throw new KeyholdError(notHuman, { userId: user.id });
  return user;
}
