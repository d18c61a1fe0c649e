// ListUserGrants: the user grants of the call's org, one page at a time, by
// user id, project id and role key (all must match). Org-wide readers
// (user.grant.read: ORG_OWNER, ORG_USER_MANAGER) see every grant of the org's
// projects, a PROJECT_OWNER those of its projects; a caller with neither is 403.
// Another org's grants are never in the answer (the org context decides).
import { orgContext } from '../access/access.js';
import type { Call } from '../access/caller.js';
import { invalidRequest, KeyholdError } from '../domain/errors/keyhold-error.js';
import { hasPermission } from '../domain/identity/permissions.js';
import { requiredId } from '../domain/identity/text-rules.js';
import { MAX_ANSWER_BYTES, pageOf, pageTooLarge, textFilters, tooManyQueries, type Listed, type SentText } from '../domain/lists.js';
import type { SentPage } from './lists.js';
import type { ReadModel, UserGrantView } from './read-model.js';

/** An id query as sent: where it is in the request (for the 400) and its value. */
export interface SentId {
  field: string;
  value: string;
}

export interface ListUserGrantsInput {
  page?: SentPage;
  queryCount: number;
  userIds: SentId[];
  projectIds: SentId[];
  roleKeys: SentText[];
}

export async function listUserGrants(read: ReadModel, call: Call, input: ListUserGrantsInput): Promise<Listed<UserGrantView>> {
  const { caller, orgId } = await orgContext(read, call);
  const roleKeys = textFilters(input.roleKeys);
  const problems = [
    ...tooManyQueries(input.queryCount),
    ...input.userIds.flatMap((q) => requiredId(q.field, q.value)),
    ...input.projectIds.flatMap((q) => requiredId(q.field, q.value)),
    ...roleKeys.problems,
  ];
  if (problems.length) throw invalidRequest(problems);
  const projectIds = hasPermission(caller.memberships, 'user.grant.read', { orgId })
    ? undefined
    : caller.memberships
        .filter((m) => m.scopeType === 'project' && m.orgId === orgId && hasPermission(caller.memberships, 'user.grant.read', { orgId, projectId: m.scopeId }))
        .map((m) => m.scopeId);
  if (projectIds?.length === 0) throw new KeyholdError('PERMISSION_DENIED', { permission: 'user.grant.read' });
  const page = pageOf(input.page);
  const listed = await read.searchUserGrants(
    { orgId, projectIds, userIds: input.userIds.map((q) => q.value), inProjects: input.projectIds.map((q) => q.value), roleKeys: roleKeys.filters },
    page,
    MAX_ANSWER_BYTES,
  );
  // A grant holds up to 100 role keys of 200 characters: 1,000 of them pass the answer's bound.
  if (listed.leftOut) throw invalidRequest(pageTooLarge({ en: `${page.limit} user grants`, de: `${page.limit} Berechtigungen` }, page.offset, listed.items.length));
  return listed;
}
