// The steps every change of an existing project shares: org context, the id
// (400), the project in that org (404), the permission (403).
import { invalidRequest, type FieldViolation } from '../domain/errors/keyhold-error.js';
import type { Permission } from '../domain/identity/permissions.js';
import { requiredId } from '../domain/identity/text-rules.js';
import { authorize, orgContext, projectInOrg } from './access.js';
import type { Call, Caller } from './caller.js';
import type { Lookups } from './lookups.js';

export async function projectForCall(
  lookups: Pick<Lookups, 'orgExists' | 'ownerOfProject'>,
  call: Call,
  /** The request's field naming the project (`id` or `projectId`, as the RPC calls it) and its value. */
  id: { field: string; value: string },
  permission: Permission,
  /** The request's other field problems, reported with the id's in one 400. */
  more: readonly FieldViolation[] = [],
): Promise<{ caller: Caller; project: { id: string; orgId: string } }> {
  const { caller, orgId } = await orgContext(lookups, call);
  const violations = [...requiredId(id.field, id.value), ...more];
  if (violations.length) throw invalidRequest(violations);
  const project = await projectInOrg(lookups, id.value, orgId);
  authorize(caller, permission, { orgId, projectId: project.id });
  return { caller, project };
}
