// Building blocks for tests that act as someone: orgs, machine users with roles
// and tokens, made through the public API with the admin token (no store access).
import { ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { OrganizationService } from '../../gen/keyhold/org/v2/org_pb.js';
import type { TestKeyhold } from './keyhold.js';

/** The header naming the org a management call acts in (the wire contract; src/api/context.ts reads it). */
export const ORG_HEADER = 'x-service-orgid';

export function inOrg(orgId: string): Record<string, string> {
  return { [ORG_HEADER]: orgId };
}

/** REST headers for a caller: its bearer token, plus optional extra headers. */
export function bearer(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${token}`, ...extra };
}

export async function addOrg(kh: TestKeyhold, name: string): Promise<string> {
  const res = await kh.client(OrganizationService).addOrganization({ name });
  return res.organizationId;
}

export interface MachineCaller {
  userId: string;
  token: string;
}

/**
 * A machine user in `orgId` (the admin's own org when undefined) with a PAT;
 * `orgRoles` are granted with AddOrgMember in that org (none: a user with no role at all).
 */
export async function machineCaller(
  kh: TestKeyhold,
  orgId: string | undefined,
  userName: string,
  orgRoles: string[] = [],
): Promise<MachineCaller> {
  const mgmt = kh.client(ManagementService, 'grpc', kh.adminToken, orgId === undefined ? undefined : inOrg(orgId));
  const { userId } = await mgmt.addMachineUser({ userName, name: userName });
  if (orgRoles.length) await mgmt.addOrgMember({ userId, roles: orgRoles });
  const { token } = await mgmt.addPersonalAccessToken({ userId });
  return { userId, token };
}
