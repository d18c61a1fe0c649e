// ListOrgMembers / ListProjectMembers: the members of the call's org, or of a
// project of it, one page at a time. Authorized like the writes beside them:
// the org context (403 for an org the caller holds no role in), the project
// in that org (404 otherwise, as for none), then the read permission (403).
import { authorize, orgContext, projectInOrg } from '../access/access.js';
import type { Call } from '../access/caller.js';
import { invalidRequest } from '../domain/errors/keyhold-error.js';
import { requiredId } from '../domain/identity/text-rules.js';
import { pageOf, tooManyQueries, type Listed } from '../domain/lists.js';
import type { SentPage } from './lists.js';
import type { MemberListed, ReadModel } from './read-model.js';

/** A user id query as sent: where it is in the request (for the 400) and its value. */
export interface SentUserId {
  field: string;
  value: string;
}

export interface MemberListInput {
  page?: SentPage;
  userIds: SentUserId[];
  queryCount: number;
}

function checkQueries(input: MemberListInput, more: ReturnType<typeof requiredId> = []): string[] {
  const violations = [...more, ...tooManyQueries(input.queryCount), ...input.userIds.flatMap((q) => requiredId(q.field, q.value))];
  if (violations.length) throw invalidRequest(violations);
  return [...new Set(input.userIds.map((q) => q.value))];
}

export async function listOrgMembers(read: ReadModel, call: Call, input: MemberListInput): Promise<Listed<MemberListed>> {
  const { caller, orgId } = await orgContext(read, call);
  const userIds = checkQueries(input);
  authorize(caller, 'org.member.read', { orgId });
  return read.membersOf('org', orgId, userIds, pageOf(input.page));
}

export async function listProjectMembers(read: ReadModel, call: Call, input: MemberListInput & { projectId: string }): Promise<Listed<MemberListed>> {
  const { caller, orgId } = await orgContext(read, call);
  const userIds = checkQueries(input, requiredId('projectId', input.projectId));
  const project = await projectInOrg(read, input.projectId, orgId);
  authorize(caller, 'project.member.read', { orgId, projectId: project.id });
  return read.membersOf('project', project.id, userIds, pageOf(input.page));
}
