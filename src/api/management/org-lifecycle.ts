// UpdateOrg, DeactivateOrg, ReactivateOrg, RemoveOrg: the org of the call
// (x-service-orgid, else the caller's own), as ZITADEL's management v1.
import type { ServiceImpl } from '@connectrpc/connect';
import type { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { readDetails, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof ManagementService>;

/** The org's version as an object's details (an org is its own resource owner). */
const orgVersion = async (queries: ApiDeps['queries'], call: ReturnType<typeof callOf>) => {
  const org = await queries.getMyOrganization(call);
  return { ...org, orgId: org.id };
};

export function orgLifecycleHandlers({ commands, queries }: ApiDeps): Pick<Impl, 'updateOrg' | 'deactivateOrg' | 'reactivateOrg' | 'removeOrg'> {
  return {
    async updateOrg(req, ctx) {
      const call = callOf(ctx);
      const { written } = await commands.updateOrg(call, { name: req.name });
      // Unchanged: the org's current version.
      return { details: written ? writeDetails(written, false) : readDetails(await orgVersion(queries, call)) };
    },
    async deactivateOrg(_req, ctx) {
      return { details: writeDetails((await commands.deactivateOrg(callOf(ctx), {})).written, false) };
    },
    async reactivateOrg(_req, ctx) {
      return { details: writeDetails((await commands.reactivateOrg(callOf(ctx), {})).written, false) };
    },
    async removeOrg(_req, ctx) {
      return { details: writeDetails((await commands.removeOrg(callOf(ctx), {})).written, false) };
    },
  };
}
