// AddIDPLink, ListIDPLinks, RemoveIDPLink (user v2, ZITADEL's shapes): convert, call, convert.
import type { ServiceImpl } from '@connectrpc/connect';
import type { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetailsV2, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof UserService>;

export function idpLinkHandlers({ commands, queries }: ApiDeps): Pick<Impl, 'addIDPLink' | 'listIDPLinks' | 'removeIDPLink'> {
  return {
    async addIDPLink(req, ctx) {
      const { written } = await commands.addIdpLink(callOf(ctx), { userId: req.userId, idpId: req.idpLink?.idpId ?? '', subject: req.idpLink?.userId ?? '' });
      return { details: writeDetails(written, true) };
    },
    async listIDPLinks(req, ctx) {
      const listed = await queries.listIdpLinks(callOf(ctx), { userId: req.userId, page: req.query });
      return { details: listDetailsV2(listed), result: listed.items.map((l) => ({ idpId: l.idpId, userId: l.subject, userName: '' })) };
    },
    async removeIDPLink(req, ctx) {
      const { written } = await commands.removeIdpLink(callOf(ctx), { userId: req.userId, idpId: req.idpId, subject: req.linkedUserId });
      return { details: writeDetails(written, false) };
    },
  };
}
