// Who may log in to a project's apps, and with which roles: the
// reads the OpenID Provider needs at login and for the roles claim. Not
// caller-authorized (the login asks before anyone is authenticated).
import type { GrantedRole, ReadModel } from './read-model.js';

export type LoginAccess =
  | { allowed: true; roles: GrantedRole[] }
  /**
   * `hasProjectCheck`: the project is set to admit only users whose org has it
   * (owns it, or holds an active project grant for it), and the user's org does
   * not. `projectRoleCheck`: the project admits only users with a grant on it,
   * and the user has none.
   */
  | { allowed: false; failed: 'hasProjectCheck' | 'projectRoleCheck' }
  /** The user's org is deactivated (DeactivateOrg): its users are refused as a deactivated user is. */
  | { allowed: false; failed: 'orgInactive' }
  | { allowed: false; failed: 'unknown' };

/** A project's login checks and its org: what the decision needs of the project. */
interface ProjectChecks {
  orgId: string;
  projectRoleCheck: boolean;
  hasProjectCheck: boolean;
}

/** The decision in ZITADEL's order (hasProjectCheck first), on facts already read (`granted`: the user's org holds an active project grant). */
function decide(project: ProjectChecks, userOrg: string, granted: boolean, roles: GrantedRole[]): LoginAccess {
  if (project.hasProjectCheck && project.orgId !== userOrg && !granted) return { allowed: false, failed: 'hasProjectCheck' };
  if (project.projectRoleCheck && roles.length === 0) return { allowed: false, failed: 'projectRoleCheck' };
  return { allowed: true, roles };
}

/** The project's flags and the user's roles on it, decided in ZITADEL's order (hasProjectCheck first). */
export async function loginAccess(
  read: Pick<ReadModel, 'project' | 'user' | 'projectRolesOfUser' | 'isProjectGrantedTo'>,
  userId: string,
  projectId: string,
): Promise<LoginAccess> {
  const [project, user, roles] = await Promise.all([read.project(projectId), read.user(userId), read.projectRolesOfUser(userId, projectId)]);
  if (!project || !user) return { allowed: false, failed: 'unknown' };
  if (user.orgActive === false) return { allowed: false, failed: 'orgInactive' };
  return decide(project, user.orgId, await grantedTo(read, project, user.orgId), roles);
}

/** Whether the project grant question must be asked at all, and its answer: only a hasProjectCheck on another org's project asks. */
function grantedTo(read: Pick<ReadModel, 'isProjectGrantedTo'>, project: ProjectChecks & { id: string }, userOrg: string): Promise<boolean> | boolean {
  return project.hasProjectCheck && project.orgId !== userOrg ? read.isProjectGrantedTo(project.id, userOrg) : false;
}

/**
 * Whether the user may go on using a token of the app with this client id (a
 * code, a refresh, userinfo, introspection): the app usable (its project and
 * org active) and its project's login checks, read on every call. The project's
 * facts come with the app's client lookup (cached: queries/client-cache.ts), so
 * a project with neither check costs no read beyond it; with a check, the
 * user's org (kept once read) and roles are read as at login.
 */
export async function mayUseProject(
  read: Pick<ReadModel, 'appByClientId' | 'ownerOfUser' | 'projectRolesOfUser' | 'isProjectGrantedTo'>,
  userId: string,
  clientId: string,
): Promise<boolean> {
  const app = await read.appByClientId(clientId);
  if (!app || app.state !== 'active') return false;
  if (!app.hasProjectCheck && !app.projectRoleCheck) return true;
  const [userOrg, roles] = await Promise.all([read.ownerOfUser(userId), app.projectRoleCheck ? read.projectRolesOfUser(userId, app.projectId) : Promise.resolve([])]);
  if (userOrg === undefined) return false;
  // An app's org is its project's. A project grant is read on every call, as the roles are: removing or deactivating it takes effect at the next one.
  const project = { id: app.projectId, orgId: app.orgId, projectRoleCheck: app.projectRoleCheck, hasProjectCheck: app.hasProjectCheck };
  return decide(project, userOrg, await grantedTo(read, project, userOrg), roles).allowed;
}

/** The roles as ZITADEL's claim `urn:keyhold:iam:org:project:roles` shapes them: `{roleKey: {orgId: orgName}}`. */
export function rolesClaim(roles: readonly GrantedRole[]): Record<string, Record<string, string>> {
  const claim: Record<string, Record<string, string>> = {};
  for (const { roleKey, orgId, orgName } of roles) (claim[roleKey] ??= {})[orgId] = orgName;
  return claim;
}

export const ROLES_CLAIM = 'urn:keyhold:iam:org:project:roles';
