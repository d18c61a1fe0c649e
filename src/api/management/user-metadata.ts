// SetUserMetadata, BulkSetUserMetadata, ListUserMetadata, GetUserMetadata,
// RemoveUserMetadata, BulkRemoveUserMetadata.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import type { MetadataSchema } from '../../../gen/keyhold/management/v1/user_metadata_pb.js';
import type { UserMetadataView } from '../../queries/read-model.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetails, readDetails, sentTexts, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof ManagementService>;

const metadataMessage = (m: UserMetadataView): MessageInitShape<typeof MetadataSchema> => ({
  details: readDetails(m),
  key: m.key,
  value: Buffer.from(m.value, 'base64'),
});

export function userMetadataHandlers({
  commands,
  queries,
}: ApiDeps): Pick<Impl, 'setUserMetadata' | 'bulkSetUserMetadata' | 'listUserMetadata' | 'getUserMetadata' | 'removeUserMetadata' | 'bulkRemoveUserMetadata'> {
  return {
    async setUserMetadata(req, ctx) {
      const { written } = await commands.setUserMetadata(callOf(ctx), { userId: req.id, entries: [{ key: req.key, value: req.value }], bulk: false });
      return { details: writeDetails(written, false) };
    },

    async bulkSetUserMetadata(req, ctx) {
      const entries = req.metadata.map((m) => ({ key: m.key, value: m.value }));
      const { written } = await commands.setUserMetadata(callOf(ctx), { userId: req.id, entries, bulk: true });
      return { details: writeDetails(written, false) };
    },

    async listUserMetadata(req, ctx) {
      const listed = await queries.listUserMetadata(callOf(ctx), {
        userId: req.id,
        page: req.query,
        queryCount: req.queries.length,
        keys: sentTexts(req.queries, (q) =>
          q.query.case === 'keyQuery' ? { oneof: 'keyQuery', field: 'key', value: q.query.value.key, method: q.query.value.method } : undefined,
        ),
      });
      return { details: listDetails(listed), result: listed.items.map(metadataMessage) };
    },

    async getUserMetadata(req, ctx) {
      return { metadata: metadataMessage(await queries.getUserMetadata(callOf(ctx), { userId: req.id, key: req.key })) };
    },

    async removeUserMetadata(req, ctx) {
      const { written } = await commands.removeUserMetadata(callOf(ctx), { userId: req.id, keys: [req.key], bulk: false });
      return { details: writeDetails(written, false) };
    },

    async bulkRemoveUserMetadata(req, ctx) {
      const { written } = await commands.removeUserMetadata(callOf(ctx), { userId: req.id, keys: req.keys, bulk: true });
      return { details: writeDetails(written, false) };
    },
  };
}
