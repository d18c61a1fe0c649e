// AddMachineUser, AddPersonalAccessToken, ListPersonalAccessTokens,
// RemovePersonalAccessToken, AddOrgMember, GetMyOrganization.
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { AccessTokenType, type ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { OrgState } from '../../../gen/keyhold/management/v1/orgs_lifecycle_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { orgMessage } from '../org/organizations.js';
import { listDetails, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof ManagementService>;

export function managementUserHandlers({
  commands,
  queries,
}: ApiDeps): Pick<Impl, 'addMachineUser' | 'addPersonalAccessToken' | 'listPersonalAccessTokens' | 'removePersonalAccessToken' | 'addOrgMember' | 'getMyOrganization'> {
  return {
    async addMachineUser(req, ctx) {
      const { userId, written } = await commands.addMachineUser(callOf(ctx), {
        userName: req.userName,
        name: req.name,
        description: req.description,
        // An enum number the schema does not name is passed on as such: the command refuses it (400).
        accessTokenType: req.accessTokenType === AccessTokenType.JWT ? 'JWT' : req.accessTokenType === AccessTokenType.BEARER ? 'BEARER' : String(req.accessTokenType),
      });
      return { userId, details: writeDetails(written, true) };
    },

    async addPersonalAccessToken(req, ctx) {
      const expiresAt = req.expirationDate ? timestampDate(req.expirationDate) : null;
      const { tokenId, token, written } = await commands.addPersonalAccessToken(callOf(ctx), { userId: req.userId, expiresAt });
      return { tokenId, token, details: writeDetails(written, true) };
    },

    async listPersonalAccessTokens(req, ctx) {
      const listed = await queries.listPats(callOf(ctx), { userId: req.userId, page: req.query });
      return {
        details: listDetails(listed),
        result: listed.items.map((t) => ({
          id: t.id,
          // A token is never changed: its creation is its last change.
          details: { creationDate: timestampFromDate(t.createdAt), changeDate: timestampFromDate(t.createdAt), resourceOwner: t.orgId },
          expirationDate: t.expiresAt ? timestampFromDate(t.expiresAt) : undefined,
        })),
      };
    },

    async removePersonalAccessToken(req, ctx) {
      const { written } = await commands.removePersonalAccessToken(callOf(ctx), { userId: req.userId, tokenId: req.tokenId });
      return { details: writeDetails(written, false) };
    },

    async getMyOrganization(_req, ctx) {
      const org = await queries.getMyOrganization(callOf(ctx));
      const { id, details, name } = orgMessage(org);
      return { id, details, name, state: org.state === 'inactive' ? OrgState.INACTIVE : OrgState.ACTIVE };
    },

    async addOrgMember(req, ctx) {
      const { written } = await commands.addOrgMember(callOf(ctx), { userId: req.userId, roles: req.roles });
      return { details: writeDetails(written, false) };
    },
  };
}
