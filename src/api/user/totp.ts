// RegisterTOTP, VerifyTOTPRegistration, RemoveTOTP: a user's authenticator app
// (the commands: src/commands/totp/totp.ts).
import type { ServiceImpl } from '@connectrpc/connect';
import type { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof UserService>;

export function totpHandlers({ commands }: ApiDeps): Pick<Impl, 'registerTOTP' | 'verifyTOTPRegistration' | 'removeTOTP'> {
  return {
    async registerTOTP(req, ctx) {
      const { written, uri, secret } = await commands.registerTotp(callOf(ctx), { userId: req.userId });
      return { details: writeDetails(written, false), uri, secret };
    },
    async verifyTOTPRegistration(req, ctx) {
      const { written, recoveryCodes } = await commands.verifyTotpRegistration(callOf(ctx), { userId: req.userId, code: req.code });
      return { details: writeDetails(written, false), recoveryCodes };
    },
    async removeTOTP(req, ctx) {
      const { written } = await commands.removeTotp(callOf(ctx), { userId: req.userId });
      return { details: writeDetails(written, false) };
    },
  };
}
