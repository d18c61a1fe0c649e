// ListUserSessions, RemoveUserSession, RemoveOtherUserSessions (user v2,
// Keyhold's own: ZITADEL's session service manages objects of its own, not
// OpenID Connect login sessions): convert, call, convert.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetailsV2, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof UserService>;

export function sessionHandlers({ commands, queries }: ApiDeps): Pick<Impl, 'listUserSessions' | 'removeUserSession' | 'removeOtherUserSessions'> {
  return {
    async listUserSessions(req, ctx) {
      const listed = await queries.listUserSessions(callOf(ctx), { userId: req.userId, page: req.query });
      return {
        details: listDetailsV2(listed),
        result: listed.items.map((s) => ({
          sessionId: s.id,
          device: s.device,
          address: s.address,
          creationDate: timestampFromDate(s.createdAt),
          lastUsedDate: timestampFromDate(s.lastUsedAt),
          clientIds: s.clientIds,
        })),
      };
    },
    async removeUserSession(req, ctx) {
      const { written } = await commands.endSession(callOf(ctx), { userId: req.userId, sessionId: req.sessionId });
      return { details: writeDetails(written, false) };
    },
    async removeOtherUserSessions(req, ctx) {
      const call = callOf(ctx);
      const { written } =
        req.keepSessionId !== undefined
          ? await commands.endOtherSessions(call, { userId: req.userId, currentSessionId: req.keepSessionId })
          : await commands.endAllSessions(call, { userId: req.userId });
      return { details: writeDetails(written, false) };
    },
  };
}
