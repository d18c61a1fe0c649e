// The steps every call on an existing project's apps shares (commands and
// queries): org context, ids (400), the project in that org (404), the permission (403).
import { invalidRequest } from '../domain/errors/keyhold-error.js';
import { requiredId } from '../domain/identity/text-rules.js';
import { authorize, orgContext, projectInOrg } from './access.js';
import type { FieldViolation } from '../domain/errors/keyhold-error.js';
import type { Call, Caller } from './caller.js';
import type { Lookups } from './lookups.js';

export async function projectForAppCall(
  lookups: Pick<Lookups, 'orgExists' | 'ownerOfProject'>,
  call: Call,
  ids: { projectId: string; appId?: string },
  permission: 'project.app.read' | 'project.app.write' | 'app.api.access.write',
  /** The request's other field problems, reported with the ids' in one 400. */
  more: readonly FieldViolation[] = [],
): Promise<{ caller: Caller; project: { id: string; orgId: string } }> {
  const { caller, orgId } = await orgContext(lookups, call);
  const violations = [...requiredId('projectId', ids.projectId), ...(ids.appId !== undefined ? requiredId('appId', ids.appId) : []), ...more];
  if (violations.length) throw invalidRequest(violations);
  const project = await projectInOrg(lookups, ids.projectId, orgId);
  authorize(caller, permission, { orgId, projectId: project.id });
  return { caller, project };
}
