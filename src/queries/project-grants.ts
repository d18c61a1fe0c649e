// ListProjectGrants, GetProjectGrantByID (the project's org: project.grant.read,
// a project of another org is 404), ListGrantedProjects (the projects granted to
// the call's org: any reader of the org's projects, project.read).
import { orgContext, authorize } from '../access/access.js';
import type { Call } from '../access/caller.js';
import { projectForCall } from '../access/project-call.js';
import { invalidRequest, KeyholdError } from '../domain/errors/keyhold-error.js';
import { requiredId } from '../domain/identity/text-rules.js';
import { pageOf, textFilters, tooManyQueries, type Listed, type SentText } from '../domain/lists.js';
import type { SentPage } from './lists.js';
import type { ProjectGrantView, ReadModel } from './read-model.js';

export interface ProjectGrantListInput {
  page?: SentPage;
  queryCount: number;
  projectNames: SentText[];
  roleKeys: SentText[];
}

export async function listProjectGrants(read: ReadModel, call: Call, input: ProjectGrantListInput & { projectId: string }): Promise<Listed<ProjectGrantView>> {
  const projectNames = textFilters(input.projectNames);
  const roleKeys = textFilters(input.roleKeys);
  const { project } = await projectForCall(read, call, { field: 'projectId', value: input.projectId }, 'project.grant.read', [
    ...tooManyQueries(input.queryCount),
    ...projectNames.problems,
    ...roleKeys.problems,
  ]);
  return read.searchProjectGrants({ projectId: project.id, projectNames: projectNames.filters, roleKeys: roleKeys.filters }, pageOf(input.page));
}

export async function getProjectGrant(read: ReadModel, call: Call, input: { projectId: string; grantId: string }): Promise<ProjectGrantView> {
  const { project } = await projectForCall(read, call, { field: 'projectId', value: input.projectId }, 'project.grant.read', requiredId('grantId', input.grantId));
  const { items } = await read.searchProjectGrants({ projectId: project.id, grantId: input.grantId, projectNames: [], roleKeys: [] }, { offset: 0, limit: 1, asc: true });
  const grant = items[0];
  if (!grant) throw new KeyholdError('PROJECT_GRANT_NOT_FOUND', { grantId: input.grantId });
  return grant;
}

export async function listGrantedProjects(read: ReadModel, call: Call, input: ProjectGrantListInput): Promise<Listed<ProjectGrantView>> {
  const { caller, orgId } = await orgContext(read, call);
  const projectNames = textFilters(input.projectNames);
  const roleKeys = textFilters(input.roleKeys);
  const problems = [...tooManyQueries(input.queryCount), ...projectNames.problems, ...roleKeys.problems];
  if (problems.length) throw invalidRequest(problems);
  authorize(caller, 'project.read', { orgId });
  return read.searchProjectGrants({ grantedOrgId: orgId, projectNames: projectNames.filters, roleKeys: roleKeys.filters }, pageOf(input.page));
}
