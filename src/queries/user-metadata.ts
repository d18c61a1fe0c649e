// ListUserMetadata and GetUserMetadata: as the writes, the user of the call's
// org (404 for one elsewhere), then user.read there (403). A user holds at
// most 64 entries of at most ~2.3 KB each, so a page always fits in one answer.
import { authorize, orgContext } from '../access/access.js';
import type { Call } from '../access/caller.js';
import { invalidRequest, KeyholdError } from '../domain/errors/keyhold-error.js';
import { requiredId } from '../domain/identity/text-rules.js';
import { pageOf, textFilters, tooManyQueries, type Listed, type SentText } from '../domain/lists.js';
import { metadataKey } from '../domain/user/metadata.js';
import type { SentPage } from './lists.js';
import type { ReadModel, UserMetadataView } from './read-model.js';

async function userOfCall(read: ReadModel, call: Call, userId: string, more: ReturnType<typeof requiredId> = []): Promise<void> {
  const { caller, orgId } = await orgContext(read, call);
  const violations = [...requiredId('id', userId), ...more];
  if (violations.length) throw invalidRequest(violations);
  // The user's row, not its (cached, lasting) owner: a removed user is not found either.
  if ((await read.user(userId))?.orgId !== orgId) throw new KeyholdError('USER_NOT_FOUND', { userId });
  authorize(caller, 'user.read', { orgId });
}

export async function listUserMetadata(
  read: ReadModel,
  call: Call,
  input: { userId: string; page?: SentPage; keys: SentText[]; queryCount: number },
): Promise<Listed<UserMetadataView>> {
  const { filters, problems } = textFilters(input.keys);
  await userOfCall(read, call, input.userId, [...tooManyQueries(input.queryCount), ...problems]);
  return read.searchUserMetadata(input.userId, filters, pageOf(input.page));
}

export async function getUserMetadata(read: ReadModel, call: Call, input: { userId: string; key: string }): Promise<UserMetadataView> {
  const key = metadataKey('key', input.key);
  await userOfCall(read, call, input.userId, key.violations);
  const entry = await read.userMetadataEntry(input.userId, key.key);
  if (!entry) throw new KeyholdError('USER_METADATA_NOT_FOUND', { userId: input.userId });
  return entry;
}
