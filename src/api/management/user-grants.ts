// ListUserGrants, UpdateUserGrant, DeactivateUserGrant, ReactivateUserGrant, RemoveUserGrant
// (AddUserGrant: ./projects.ts).
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { UserGrantState, type UserGrantQuery, type UserGrantSchema } from '../../../gen/keyhold/management/v1/user_grants_pb.js';
import type { UserGrantView } from '../../queries/read-model.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetails, readDetails, sentTexts, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof ManagementService>;

function userGrantToMessage(g: UserGrantView): MessageInitShape<typeof UserGrantSchema> {
  return {
    id: g.id,
    details: readDetails(g),
    roleKeys: g.roleKeys,
    state: g.state === 'active' ? UserGrantState.ACTIVE : UserGrantState.INACTIVE,
    userId: g.userId,
    orgId: g.orgId,
    projectId: g.projectId,
    projectGrantId: g.projectGrantId ?? '',
  };
}

/** The id queries of one kind, each with its path for a 400 (`queries[1].userIdQuery.userId`). */
function sentIds(queries: readonly UserGrantQuery[], kind: 'userIdQuery' | 'projectIdQuery') {
  return queries.flatMap((q, i) => {
    if (q.query.case === 'userIdQuery' && kind === 'userIdQuery') return [{ field: `queries[${i}].userIdQuery.userId`, value: q.query.value.userId }];
    if (q.query.case === 'projectIdQuery' && kind === 'projectIdQuery') return [{ field: `queries[${i}].projectIdQuery.projectId`, value: q.query.value.projectId }];
    return [];
  });
}

export function userGrantHandlers({
  commands,
  queries,
}: ApiDeps): Pick<Impl, 'listUserGrants' | 'updateUserGrant' | 'deactivateUserGrant' | 'reactivateUserGrant' | 'removeUserGrant'> {
  return {
    async listUserGrants(req, ctx) {
      const listed = await queries.listUserGrants(callOf(ctx), {
        page: req.query,
        queryCount: req.queries.length,
        userIds: sentIds(req.queries, 'userIdQuery'),
        projectIds: sentIds(req.queries, 'projectIdQuery'),
        roleKeys: sentTexts(req.queries, (q) =>
          q.query.case === 'roleKeyQuery' ? { oneof: 'roleKeyQuery', field: 'roleKey', value: q.query.value.roleKey, method: q.query.value.method } : undefined,
        ),
      });
      return { details: listDetails(listed), result: listed.items.map(userGrantToMessage) };
    },

    async updateUserGrant(req, ctx) {
      const { written } = await commands.updateUserGrant(callOf(ctx), { userId: req.userId, grantId: req.grantId, roleKeys: req.roleKeys });
      return { details: writeDetails(written, false) };
    },

    async deactivateUserGrant(req, ctx) {
      const { written } = await commands.deactivateUserGrant(callOf(ctx), { userId: req.userId, grantId: req.grantId });
      return { details: writeDetails(written, false) };
    },

    async reactivateUserGrant(req, ctx) {
      const { written } = await commands.reactivateUserGrant(callOf(ctx), { userId: req.userId, grantId: req.grantId });
      return { details: writeDetails(written, false) };
    },

    async removeUserGrant(req, ctx) {
      const { written } = await commands.removeUserGrant(callOf(ctx), { userId: req.userId, grantId: req.grantId });
      return { details: writeDetails(written, false) };
    },
  };
}
