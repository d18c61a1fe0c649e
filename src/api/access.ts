// Who may act where: the org context of a call and the permission check.
// Order per design §4: authenticate → validate → load (404) → authorize (403).
import type { HandlerContext } from '@connectrpc/connect';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import { hasAnyRoleIn, hasPermission, type Permission, type Target } from '../domain/identity/permissions.js';
import { findOrg } from '../store/queries/index.js';
import { callerOf, type Caller, type Deps } from './context.js';

export const ORG_HEADER = 'x-service-orgid';

/**
 * The org a management call acts in: x-service-orgid when given, else the
 * caller's own org. A foreign org the caller holds no role in — or one that does
 * not exist — is 403 either way, so the answer never reveals which orgs exist.
 */
export async function orgContext(
  deps: Deps,
  ctx: HandlerContext,
  /** An org named in the request body (e.g. AddHumanUser's organization.orgId); wins over the header. */
  named?: string,
): Promise<{ caller: Caller; orgId: string }> {
  const caller = callerOf(ctx);
  const requested = named || ctx.requestHeader.get(ORG_HEADER)?.trim();
  if (!requested || requested === caller.orgId) return { caller, orgId: caller.orgId };
  if (!hasAnyRoleIn(caller.memberships, requested) || !(await findOrg(deps.database.sql, requested))) {
    throw new KeyholdError('PERMISSION_DENIED', { permission: 'org.access', orgId: requested.slice(0, 64) });
  }
  return { caller, orgId: requested };
}

export function authorize(caller: Caller, permission: Permission, target: Target): void {
  if (!hasPermission(caller.memberships, permission, target)) {
    throw new KeyholdError('PERMISSION_DENIED', { permission });
  }
}
