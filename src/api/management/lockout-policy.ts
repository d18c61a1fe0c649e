// GetLockoutPolicy, AddCustomLockoutPolicy, UpdateCustomLockoutPolicy:
// convert, call, convert.
import type { ServiceImpl } from '@connectrpc/connect';
import type { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { readDetails, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof ManagementService>;

export function lockoutPolicyHandlers({ commands, queries }: ApiDeps): Pick<Impl, 'getLockoutPolicy' | 'addCustomLockoutPolicy' | 'updateCustomLockoutPolicy'> {
  return {
    async getLockoutPolicy(_req, ctx) {
      const policy = await queries.getLockoutPolicy(callOf(ctx));
      return {
        policy: { details: readDetails(policy.version), maxPasswordAttempts: policy.maxPasswordAttempts, isDefault: policy.isDefault },
        isDefault: policy.isDefault,
      };
    },
    async addCustomLockoutPolicy(req, ctx) {
      const { written } = await commands.addCustomLockoutPolicy(callOf(ctx), { maxPasswordAttempts: req.maxPasswordAttempts });
      return { details: writeDetails(written!, false) };
    },
    async updateCustomLockoutPolicy(req, ctx) {
      const call = callOf(ctx);
      const { written } = await commands.updateCustomLockoutPolicy(call, { maxPasswordAttempts: req.maxPasswordAttempts });
      // Unchanged: the policy's current version.
      return { details: written ? writeDetails(written, false) : readDetails((await queries.getLockoutPolicy(call)).version) };
    },
  };
}
