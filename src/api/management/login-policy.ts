// GetLoginPolicy, AddCustomLoginPolicy, UpdateCustomLoginPolicy:
// convert, call, convert.
import type { ServiceImpl } from '@connectrpc/connect';
import { PasswordlessType, type ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { readDetails, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof ManagementService>;

/** The request's fields; an enum value the proto does not know is passed on as is, for the command to refuse by name. */
function policyInput(req: {
  forceMfa: boolean;
  passwordlessType?: PasswordlessType;
  allowUsernamePassword?: boolean;
  allowRegister?: boolean;
  allowedDomains: string[];
  registerVerificationRequired?: boolean;
}) {
  const passwordlessAllowed =
    req.passwordlessType === undefined
      ? undefined
      : req.passwordlessType === PasswordlessType.ALLOWED
        ? true
        : req.passwordlessType === PasswordlessType.NOT_ALLOWED
          ? false
          : req.passwordlessType;
  return {
    forceMfa: req.forceMfa,
    passwordlessAllowed,
    allowUsernamePassword: req.allowUsernamePassword,
    allowRegister: req.allowRegister,
    allowedDomains: req.allowedDomains,
    registerVerificationRequired: req.registerVerificationRequired,
  };
}

export function loginPolicyHandlers({ commands, queries }: ApiDeps): Pick<Impl, 'getLoginPolicy' | 'addCustomLoginPolicy' | 'updateCustomLoginPolicy'> {
  return {
    async getLoginPolicy(_req, ctx) {
      const policy = await queries.getLoginPolicy(callOf(ctx));
      return {
        policy: {
          details: readDetails(policy.version),
          forceMfa: policy.forceMfa,
          isDefault: policy.isDefault,
          allowUsernamePassword: policy.allowUsernamePassword,
          passwordlessType: policy.passwordlessAllowed ? PasswordlessType.ALLOWED : PasswordlessType.NOT_ALLOWED,
          allowRegister: policy.allowRegister,
          allowedDomains: [...policy.registerDomains],
          registerVerificationRequired: policy.registerVerification,
        },
        isDefault: policy.isDefault,
      };
    },
    async addCustomLoginPolicy(req, ctx) {
      const { written } = await commands.addCustomLoginPolicy(callOf(ctx), policyInput(req));
      return { details: writeDetails(written!, false) };
    },
    async updateCustomLoginPolicy(req, ctx) {
      const call = callOf(ctx);
      const { written } = await commands.updateCustomLoginPolicy(call, policyInput(req));
      // Unchanged: the policy's current version.
      return { details: written ? writeDetails(written, false) : readDetails((await queries.getLoginPolicy(call)).version) };
    },
  };
}
