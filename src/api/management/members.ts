// ListOrgMembers, UpdateOrgMember, RemoveOrgMember; ListProjectMembers,
// UpdateProjectMember, RemoveProjectMember.
import type { ServiceImpl } from '@connectrpc/connect';
import type { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { MemberUserType, type MemberQuery } from '../../../gen/keyhold/management/v1/members_pb.js';
import type { Written } from '../../commands/written.js';
import type { MemberListed } from '../../queries/read-model.js';
import type { SentUserId } from '../../queries/members.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetails, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof ManagementService>;

function memberMessage(m: MemberListed) {
  return {
    userId: m.userId,
    // A membership has no dates or version of its own in the read model: the scope's org only.
    details: { resourceOwner: m.orgId },
    roles: m.roles,
    preferredLoginName: m.username,
    email: m.email,
    firstName: m.givenName,
    lastName: m.familyName,
    displayName: m.displayName,
    userType: m.kind === 'human' ? MemberUserType.HUMAN : MemberUserType.MACHINE,
  };
}

function userIdQueries(queries: readonly MemberQuery[]): SentUserId[] {
  return queries.flatMap((q, i) => (q.query.case === 'userIdQuery' ? [{ field: `queries[${i}].userIdQuery.userId`, value: q.query.value.userId }] : []));
}

/** Unchanged (the same roles again): no event, so no new version; the details name the org only. */
const detailsOf = (result: { written?: Written; orgId: string }) => (result.written ? writeDetails(result.written, false) : { resourceOwner: result.orgId });

export function memberHandlers({
  commands,
  queries,
}: ApiDeps): Pick<Impl, 'listOrgMembers' | 'updateOrgMember' | 'removeOrgMember' | 'listProjectMembers' | 'updateProjectMember' | 'removeProjectMember'> {
  return {
    async listOrgMembers(req, ctx) {
      const listed = await queries.listOrgMembers(callOf(ctx), { page: req.query, userIds: userIdQueries(req.queries), queryCount: req.queries.length });
      return { details: listDetails(listed), result: listed.items.map(memberMessage) };
    },
    async updateOrgMember(req, ctx) {
      return { details: detailsOf(await commands.updateOrgMember(callOf(ctx), { userId: req.userId, roles: req.roles })) };
    },
    async removeOrgMember(req, ctx) {
      return { details: detailsOf(await commands.removeOrgMember(callOf(ctx), { userId: req.userId })) };
    },
    async listProjectMembers(req, ctx) {
      const listed = await queries.listProjectMembers(callOf(ctx), {
        projectId: req.projectId,
        page: req.query,
        userIds: userIdQueries(req.queries),
        queryCount: req.queries.length,
      });
      return { details: listDetails(listed), result: listed.items.map(memberMessage) };
    },
    async updateProjectMember(req, ctx) {
      return { details: detailsOf(await commands.updateProjectMember(callOf(ctx), { projectId: req.projectId, userId: req.userId, roles: req.roles })) };
    },
    async removeProjectMember(req, ctx) {
      return { details: detailsOf(await commands.removeProjectMember(callOf(ctx), { projectId: req.projectId, userId: req.userId })) };
    },
  };
}
