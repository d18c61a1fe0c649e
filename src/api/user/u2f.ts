// RegisterU2F, VerifyU2FRegistration, ListU2FTokens, RemoveU2F (design §7);
// for a lost key: GenerateRecoveryCodes, RemoveAllU2F, and the recovery
// codes a first key brings (VerifyU2FRegistration) and how many are left (ListU2FTokens).
import type { JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { U2FState, type UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetailsV2, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof UserService>;

const SHOWN_STATE = { pending: U2FState.U2F_STATE_PENDING, ready: U2FState.U2F_STATE_READY, expired: U2FState.U2F_STATE_EXPIRED } as const;

export function u2fHandlers({ commands, queries }: ApiDeps): Pick<Impl, 'registerU2F' | 'verifyU2FRegistration' | 'listU2FTokens' | 'removeU2F' | 'generateRecoveryCodes' | 'removeAllU2F'> {
  return {
    async registerU2F(req, ctx) {
      const { u2fId, written, creationOptions } = await commands.registerU2f(callOf(ctx), { userId: req.userId, domain: req.domain });
      return {
        u2fId,
        details: writeDetails(written, false),
        publicKeyCredentialCreationOptions: creationOptions as unknown as JsonObject,
      };
    },

    async verifyU2FRegistration(req, ctx) {
      const { written, recoveryCodes } = await commands.verifyU2fRegistration(callOf(ctx), {
        userId: req.userId,
        u2fId: req.u2fId,
        credential: req.publicKeyCredential,
        tokenName: req.tokenName,
      });
      return { details: writeDetails(written, false), recoveryCodes };
    },

    async listU2FTokens(req, ctx) {
      const listed = await queries.listU2fTokens(callOf(ctx), { userId: req.userId, page: req.query });
      const unusedRecoveryCodes = await queries.unusedRecoveryCodes(callOf(ctx), { userId: req.userId });
      return {
        details: listDetailsV2(listed),
        unusedRecoveryCodes,
        result: listed.items.map((t) => ({
          id: t.id,
          name: t.name ?? '',
          state: SHOWN_STATE[t.shown],
          rpId: t.rpId,
          format: t.format ?? '',
          aaguid: t.aaguid ?? '',
          credentialId: t.credentialId ?? '',
          transports: t.transports ?? [],
          creationDate: timestampFromDate(t.createdAt),
          expirationDate: t.state === 'pending' ? timestampFromDate(t.expiresAt) : undefined,
        })),
      };
    },

    async removeU2F(req, ctx) {
      const { written } = await commands.removeU2f(callOf(ctx), { userId: req.userId, u2fId: req.u2fId });
      return { details: writeDetails(written, false) };
    },

    async generateRecoveryCodes(req, ctx) {
      const { codes, written } = await commands.generateRecoveryCodes(callOf(ctx), { userId: req.userId });
      return { details: writeDetails(written, false), recoveryCodes: codes };
    },

    async removeAllU2F(req, ctx) {
      const { written, removed } = await commands.removeAllU2f(callOf(ctx), { userId: req.userId });
      return { details: writeDetails(written, false), removed };
    },
  };
}
