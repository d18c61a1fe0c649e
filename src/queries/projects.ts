// GetProjectByID (ListProjects: ./lists.ts).
import { authorize, orgContext, projectInOrg } from '../access/access.js';
import type { Call } from '../access/caller.js';
import { invalidRequest, KeyholdError } from '../domain/errors/keyhold-error.js';
import { requiredId } from '../domain/identity/text-rules.js';
import type { ProjectView, ReadModel } from './read-model.js';

export async function getProject(read: ReadModel, call: Call, input: { projectId: string }): Promise<ProjectView> {
  const { caller, orgId } = await orgContext(read, call);
  const violations = requiredId('id', input.projectId);
  if (violations.length) throw invalidRequest(violations);
  await projectInOrg(read, input.projectId, orgId);
  authorize(caller, 'project.read', { orgId, projectId: input.projectId });
  const project = await read.project(input.projectId);
  if (!project) throw new KeyholdError('PROJECT_NOT_FOUND', { projectId: input.projectId });
  return project;
}
