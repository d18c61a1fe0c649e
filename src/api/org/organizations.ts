// AddOrganization: a new org, optionally with admins (ORG_OWNER unless roles are given);
// GetOrganization, ListOrganizations.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { OrganizationState, type OrganizationService } from '../../../gen/keyhold/org/v2/org_pb.js';
import type { OrgView } from '../../queries/read-model.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetailsV2, sentTexts, writeDetails } from '../details.js';

export function orgMessage(o: OrgView) {
  return {
    id: o.id,
    details: {
      sequence: BigInt(o.sequence),
      creationDate: timestampFromDate(o.createdAt),
      changeDate: timestampFromDate(o.changedAt),
      resourceOwner: o.id,
    },
    state: o.state === 'inactive' ? OrganizationState.INACTIVE : OrganizationState.ACTIVE,
    name: o.name,
  };
}

export function organizationHandlers({ commands, queries }: ApiDeps): ServiceImpl<typeof OrganizationService> {
  return {
    async addOrganization(req, ctx) {
      const admins = req.admins.map((a) => ({ userId: a.userId, roles: a.roles }));
      const { orgId, written } = await commands.addOrganization(callOf(ctx), { name: req.name, admins });
      return { organizationId: orgId, details: writeDetails(written, true) };
    },

    async getOrganization(req, ctx) {
      return { organization: orgMessage(await queries.getOrganization(callOf(ctx), { orgId: req.organizationId })) };
    },

    async listOrganizations(req, ctx) {
      const listed = await queries.listOrganizations(callOf(ctx), {
        page: req.query,
        queryCount: req.queries.length,
        names: sentTexts(req.queries, (q) =>
          q.query.case === 'nameQuery' ? { oneof: 'nameQuery', field: 'name', value: q.query.value.name, method: q.query.value.method } : undefined,
        ),
        ids: req.queries.flatMap((q) => (q.query.case === 'idQuery' ? [q.query.value.id] : [])),
      });
      return { details: listDetailsV2(listed), result: listed.items.map(orgMessage) };
    },
  };
}
