// GetMyUser: the caller's own user, org and roles.
import type { ServiceImpl } from '@connectrpc/connect';
import type { AuthService } from '../../../gen/keyhold/auth/v1/auth_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { userToMessage } from '../users-to-message.js';

export function authHandlers({ queries }: ApiDeps): ServiceImpl<typeof AuthService> {
  return {
    async getMyUser(_req, ctx) {
      const { user, roles } = await queries.myUser(callOf(ctx));
      return { user: userToMessage(user), organizationId: user.orgId, roles };
    },
  };
}
