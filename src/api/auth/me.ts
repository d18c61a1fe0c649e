// GetMyUser: the caller's own user, org and roles.
import type { ServiceImpl } from '@connectrpc/connect';
import type { AuthService } from '../../../gen/keyhold/auth/v1/auth_pb.js';
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import { findUser } from '../../store/queries/index.js';
import { callerOf, type Deps } from '../context.js';
import { userToMessage } from '../users-to-message.js';

export function authHandlers(deps: Deps): ServiceImpl<typeof AuthService> {
  return {
    async getMyUser(_req, ctx) {
      const caller = callerOf(ctx);
      const user = await findUser(deps.database.sql, caller.userId);
      if (!user) throw new KeyholdError('UNAUTHENTICATED');
      const roles = caller.memberships.flatMap((m) =>
        m.roles.map((r) => (m.scopeType === 'instance' ? r : `${r}@${m.scopeType}:${m.scopeId}`)),
      );
      return { user: userToMessage(user), organizationId: user.orgId, roles };
    },
  };
}
