// The management RPCs of credentials: a machine user's client secret
// (GenerateMachineSecret, RemoveMachineSecret) and a private_key_jwt app's keys
// (AddAppKey, ListAppKeys, RemoveAppKey).
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { KeyType, type ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetails, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof ManagementService>;

export function credentialHandlers({ commands, queries }: ApiDeps): Pick<Impl, 'generateMachineSecret' | 'removeMachineSecret' | 'addAppKey' | 'listAppKeys' | 'removeAppKey'> {
  return {
    async generateMachineSecret(req, ctx) {
      const { clientId, clientSecret, written } = await commands.generateMachineSecret(callOf(ctx), { userId: req.userId });
      return { clientId, clientSecret, details: writeDetails(written, false) };
    },

    async removeMachineSecret(req, ctx) {
      const { written } = await commands.removeMachineSecret(callOf(ctx), { userId: req.userId });
      return { details: writeDetails(written, false) };
    },

    async addAppKey(req, ctx) {
      const { keyId, keyFile, written } = await commands.addAppKey(callOf(ctx), {
        projectId: req.projectId,
        appId: req.appId,
        type: req.type === KeyType.JSON ? 'KEY_TYPE_JSON' : 'KEY_TYPE_UNSPECIFIED',
        expiresAt: req.expirationDate ? timestampDate(req.expirationDate) : null,
      });
      // bytes: the JSON key file; JSON (REST, Connect) shows it base64, as ZITADEL's keyDetails.
      return { id: keyId, keyDetails: new TextEncoder().encode(JSON.stringify(keyFile)), details: writeDetails(written, true) };
    },

    async listAppKeys(req, ctx) {
      const listed = await queries.listAppKeys(callOf(ctx), { projectId: req.projectId, appId: req.appId, page: req.query });
      return {
        details: listDetails(listed),
        result: listed.items.map((k) => ({
          id: k.id,
          // A key is never changed: its creation is its last change.
          details: { creationDate: timestampFromDate(k.createdAt), changeDate: timestampFromDate(k.createdAt), resourceOwner: k.orgId },
          type: k.type === 'KEY_TYPE_JSON' ? KeyType.JSON : KeyType.UNSPECIFIED,
          expirationDate: timestampFromDate(k.expiresAt),
        })),
      };
    },

    async removeAppKey(req, ctx) {
      const { written } = await commands.removeAppKey(callOf(ctx), { projectId: req.projectId, appId: req.appId, keyId: req.keyId });
      return { details: writeDetails(written, false) };
    },
  };
}
