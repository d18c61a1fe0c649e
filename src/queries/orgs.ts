// GetOrganization (v2) and GetMyOrganization (management); ListOrganizations: ./lists.ts.
import { orgContext } from '../access/access.js';
import type { Call } from '../access/caller.js';
import { invalidRequest, KeyholdError } from '../domain/errors/keyhold-error.js';
import { hasPermission } from '../domain/identity/permissions.js';
import { requiredId } from '../domain/identity/text-rules.js';
import type { OrgView, ReadModel } from './read-model.js';

/** An org the caller holds org.read in; any other is 404, as one that does not exist. */
export async function getOrganization(read: ReadModel, { caller }: Call, input: { orgId: string }): Promise<OrgView> {
  const violations = requiredId('organizationId', input.orgId);
  if (violations.length) throw invalidRequest(violations);
  const org = hasPermission(caller.memberships, 'org.read', { orgId: input.orgId }) ? await read.org(input.orgId) : undefined;
  if (!org) throw new KeyholdError('ORG_NOT_FOUND', { orgId: input.orgId });
  return org;
}

/** The org the call acts in: every caller may read the org it acts in. */
export async function getMyOrganization(read: ReadModel, call: Call): Promise<OrgView> {
  const { orgId } = await orgContext(read, call);
  const org = await read.org(orgId);
  if (!org) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
  return org;
}
