// RegisterPasskey, VerifyPasskeyRegistration, ListPasskeys, RemovePasskey:
// convert, call, convert (the commands say who may).
import type { JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { AuthFactorState, PasskeyAuthenticator } from '../../../gen/keyhold/user/v2/passkey_pb.js';
import type { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetailsV2, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof UserService>;

const SHOWN_STATE = {
  pending: AuthFactorState.NOT_READY,
  ready: AuthFactorState.READY,
  expired: AuthFactorState.EXPIRED,
} as const;

const ATTACHMENT = {
  [PasskeyAuthenticator.PLATFORM]: 'platform',
  [PasskeyAuthenticator.CROSS_PLATFORM]: 'cross-platform',
} as const;

export function passkeyHandlers({ commands, queries }: ApiDeps): Pick<Impl, 'registerPasskey' | 'verifyPasskeyRegistration' | 'listPasskeys' | 'removePasskey'> {
  return {
    async registerPasskey(req, ctx) {
      const authenticator = Object.hasOwn(ATTACHMENT, req.authenticator) ? ATTACHMENT[req.authenticator as keyof typeof ATTACHMENT] : undefined;
      const { passkeyId, written, creationOptions } = await commands.registerPasskey(callOf(ctx), { userId: req.userId, domain: req.domain, authenticator });
      return {
        passkeyId,
        details: writeDetails(written, false),
        publicKeyCredentialCreationOptions: creationOptions as unknown as JsonObject,
      };
    },

    async verifyPasskeyRegistration(req, ctx) {
      const { written, recoveryCodes } = await commands.verifyPasskeyRegistration(callOf(ctx), {
        userId: req.userId,
        passkeyId: req.passkeyId,
        credential: req.publicKeyCredential,
        passkeyName: req.passkeyName,
      });
      return { details: writeDetails(written, false), recoveryCodes };
    },

    async listPasskeys(req, ctx) {
      const listed = await queries.listPasskeys(callOf(ctx), { userId: req.userId, page: req.query });
      return {
        details: listDetailsV2(listed),
        result: listed.items.map((k) => ({
          id: k.id,
          name: k.name ?? '',
          state: SHOWN_STATE[k.shown],
          rpId: k.rpId,
          credentialId: k.credentialId ?? '',
          creationDate: timestampFromDate(k.createdAt),
        })),
      };
    },

    async removePasskey(req, ctx) {
      const { written } = await commands.removePasskey(callOf(ctx), { userId: req.userId, passkeyId: req.passkeyId });
      return { details: writeDetails(written, false) };
    },
  };
}
