// Where an identity provider lives, and who may read or write there: the
// instance's providers under iam.idp.* (admin API), an organization's own under
// org.idp.* in the org the call acts in (management API). One rule for the
// commands that write providers and the queries that list them.
import { authorize, orgContext } from './access.js';
import type { Call } from './caller.js';
import type { Lookups } from './lookups.js';

/** The instance (admin API) or the org the call acts in (management API). */
export type IdpScope = { scope: 'instance' } | { scope: 'org'; orgId?: string };

/** The org the providers belong to (undefined: the instance's), the caller authorized for `access` there. */
export async function idpScopeOf(lookups: Pick<Lookups, 'orgExists'>, call: Call, where: IdpScope, access: 'read' | 'write'): Promise<{ actor: string; orgId?: string }> {
  if (where.scope === 'instance') {
    authorize(call.caller, access === 'write' ? 'iam.idp.write' : 'iam.idp.read', {});
    return { actor: call.caller.userId };
  }
  const { caller, orgId } = await orgContext(lookups, call, where.orgId);
  authorize(caller, access === 'write' ? 'org.idp.write' : 'org.idp.read', { orgId });
  return { actor: caller.userId, orgId };
}
