// The caller about itself: GetMyUser (its user, org and roles) and
// RemoveMySessions (every session and grant of its own ends).
import type { ServiceImpl } from '@connectrpc/connect';
import type { AuthService } from '../../../gen/keyhold/auth/v1/auth_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { writeDetails } from '../details.js';
import { userToMessage } from '../users-to-message.js';

export function authHandlers({ commands, queries }: ApiDeps): ServiceImpl<typeof AuthService> {
  return {
    async getMyUser(_req, ctx) {
      const { user, roles } = await queries.myUser(callOf(ctx));
      return { user: userToMessage(user), organizationId: user.orgId, roles };
    },
    removeMySessions: async (_req, ctx) => ({ details: writeDetails((await commands.endMySessions(callOf(ctx), {})).written, false) }),
  };
}
