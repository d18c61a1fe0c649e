// The lists: ListApps, ListProjects, ListProjectRoles, ListUsers, ListOrganizations.
// Each validates its filters (400), authorizes like its Get (403/404), and asks
// the read model for one page of what the caller may read.
import { projectForAppCall } from '../access/app-in-project.js';
import { orgContext } from '../access/access.js';
import type { Call, Caller } from '../access/caller.js';
import { invalidRequest, type FieldViolation } from '../domain/errors/keyhold-error.js';
import { hasPermission, type Permission } from '../domain/identity/permissions.js';
import { requiredId } from '../domain/identity/text-rules.js';
import { MAX_ANSWER_BYTES, pageOf, pageTooLarge, textFilters, tooManyQueries, type Listed, type SentText } from '../domain/lists.js';
import { projectForCall } from '../access/project-call.js';
import type { AppView, OrgView, ProjectRoleView, ProjectView, ReadModel, UserView } from './read-model.js';

/** A ListQuery as the API hands it over. */
export interface SentPage {
  offset: bigint;
  limit: number;
  asc: boolean;
}

function check(problems: FieldViolation[]): void {
  if (problems.length) throw invalidRequest(problems);
}

/** Orgs where the caller holds `permission` (undefined: every org, it holds it instance-wide). */
function orgsWith(caller: Caller, permission: Permission): string[] | undefined {
  if (hasPermission(caller.memberships, permission, {})) return undefined;
  const orgIds = caller.memberships.filter((m) => m.scopeType === 'org').map((m) => m.scopeId);
  return [...new Set(orgIds)].filter((orgId) => hasPermission(caller.memberships, permission, { orgId }));
}

export async function listApps(
  read: ReadModel,
  call: Call,
  input: { projectId: string; page?: SentPage; names: SentText[]; queryCount: number },
): Promise<Listed<AppView>> {
  const { filters, problems } = textFilters(input.names);
  const { project } = await projectForAppCall(read, call, input, 'project.app.read', [...tooManyQueries(input.queryCount), ...problems]);
  const page = pageOf(input.page);
  const listed = await read.searchApps(project.id, filters, page, MAX_ANSWER_BYTES);
  if (listed.leftOut) throw invalidRequest(pageTooLarge({ en: `${page.limit} apps`, de: `${page.limit} Apps` }, page.offset, listed.items.length));
  return listed;
}

export async function listProjects(
  read: ReadModel,
  call: Call,
  input: { page?: SentPage; names: SentText[]; queryCount: number },
): Promise<Listed<ProjectView>> {
  const { caller, orgId } = await orgContext(read, call);
  const { filters, problems } = textFilters(input.names);
  check([...tooManyQueries(input.queryCount), ...problems]);
  // Org-wide readers see every project; project owners the projects they own.
  const projectIds = hasPermission(caller.memberships, 'project.read', { orgId })
    ? undefined
    : caller.memberships
        .filter((m) => m.scopeType === 'project' && m.orgId === orgId && hasPermission(caller.memberships, 'project.read', { orgId, projectId: m.scopeId }))
        .map((m) => m.scopeId);
  return read.searchProjects(orgId, projectIds, filters, pageOf(input.page));
}

/** ListProjectRoles: the project's roles, by key and display name (all filters must match). */
export async function listProjectRoles(
  read: ReadModel,
  call: Call,
  input: { projectId: string; page?: SentPage; keys: SentText[]; displayNames: SentText[]; queryCount: number },
): Promise<Listed<ProjectRoleView>> {
  const keys = textFilters(input.keys);
  const displayNames = textFilters(input.displayNames);
  const { project } = await projectForCall(read, call, { field: 'projectId', value: input.projectId }, 'project.read', [
    ...tooManyQueries(input.queryCount),
    ...keys.problems,
    ...displayNames.problems,
  ]);
  return read.searchProjectRoles(project.id, { keys: keys.filters, displayNames: displayNames.filters }, pageOf(input.page));
}

export interface ListUsersInput {
  page?: SentPage;
  queryCount: number;
  usernames: SentText[];
  displayNames: SentText[];
  emails: SentText[];
  kinds: ('human' | 'machine' | 'unspecified')[];
  states: ('active' | 'unspecified' | string)[];
  orgIds: string[];
}

/** ListUsers (v2, no org context): the users of every org where the caller holds user.read, and itself. */
export async function listUsers(read: ReadModel, { caller }: Call, input: ListUsersInput): Promise<Listed<UserView>> {
  const usernames = textFilters(input.usernames);
  const displayNames = textFilters(input.displayNames);
  const emails = textFilters(input.emails);
  check([
    ...tooManyQueries(input.queryCount),
    ...usernames.problems,
    ...displayNames.problems,
    ...emails.problems,
    ...input.orgIds.flatMap((o, i) => requiredId(`queries[${i}].organizationIdQuery.organizationId`, o)),
  ]);
  return read.searchUsers(
    {
      orgIds: orgsWith(caller, 'user.read'),
      userIds: [caller.userId],
      usernames: usernames.filters,
      displayNames: displayNames.filters,
      emails: emails.filters,
      // TYPE_UNSPECIFIED and STATE_UNSPECIFIED filter nothing.
      kinds: input.kinds.filter((k): k is 'human' | 'machine' => k !== 'unspecified'),
      states: input.states.filter((s) => s !== 'unspecified'),
      inOrgs: input.orgIds,
    },
    pageOf(input.page),
  );
}

/** ListOrganizations (v2): every org for the instance owner, else those where the caller holds org.read. */
export async function listOrganizations(
  read: ReadModel,
  { caller }: Call,
  input: { page?: SentPage; names: SentText[]; ids: string[]; queryCount: number },
): Promise<Listed<OrgView>> {
  const { filters, problems } = textFilters(input.names);
  check([...tooManyQueries(input.queryCount), ...problems]);
  return read.searchOrgs(orgsWith(caller, 'org.read'), filters, input.ids, pageOf(input.page));
}
