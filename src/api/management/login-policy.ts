// GetLoginPolicy, AddCustomLoginPolicy, UpdateCustomLoginPolicy:
// convert, call, convert.
import type { ServiceImpl } from '@connectrpc/connect';
import type { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { readDetails, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof ManagementService>;

export function loginPolicyHandlers({ commands, queries }: ApiDeps): Pick<Impl, 'getLoginPolicy' | 'addCustomLoginPolicy' | 'updateCustomLoginPolicy'> {
  return {
    async getLoginPolicy(_req, ctx) {
      const policy = await queries.getLoginPolicy(callOf(ctx));
      return { policy: { details: readDetails(policy.version), forceMfa: policy.forceMfa, isDefault: policy.isDefault }, isDefault: policy.isDefault };
    },
    async addCustomLoginPolicy(req, ctx) {
      const { written } = await commands.addCustomLoginPolicy(callOf(ctx), { forceMfa: req.forceMfa });
      return { details: writeDetails(written!, false) };
    },
    async updateCustomLoginPolicy(req, ctx) {
      const call = callOf(ctx);
      const { written } = await commands.updateCustomLoginPolicy(call, { forceMfa: req.forceMfa });
      // Unchanged: the policy's current version.
      return { details: written ? writeDetails(written, false) : readDetails((await queries.getLoginPolicy(call)).version) };
    },
  };
}
