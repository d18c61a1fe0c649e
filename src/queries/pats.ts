// ListPersonalAccessTokens: a user's tokens (ids, dates, expiry — never the
// token or its hash), one page at a time. As AddPersonalAccessToken: the user
// of the call's org (404), then user.read there (403).
import { authorize, orgContext } from '../access/access.js';
import type { Call } from '../access/caller.js';
import { invalidRequest, KeyholdError } from '../domain/errors/keyhold-error.js';
import { requiredId } from '../domain/identity/text-rules.js';
import { pageOf, type Listed } from '../domain/lists.js';
import type { SentPage } from './lists.js';
import type { PatListed, ReadModel } from './read-model.js';

export async function listPats(read: ReadModel, call: Call, input: { userId: string; page?: SentPage }): Promise<Listed<PatListed>> {
  const { caller, orgId } = await orgContext(read, call);
  const violations = requiredId('userId', input.userId);
  if (violations.length) throw invalidRequest(violations);
  if ((await read.ownerOfUser(input.userId)) !== orgId) throw new KeyholdError('USER_NOT_FOUND', { userId: input.userId });
  authorize(caller, 'user.read', { orgId });
  return read.patsOf(input.userId, pageOf(input.page));
}
