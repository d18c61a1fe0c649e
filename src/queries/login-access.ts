// Who may log in to a project's apps, and with which roles: the
// reads the OpenID Provider needs at login and for the roles claim. Not
// caller-authorized (the login asks before anyone is authenticated).
import type { GrantedRole, ReadModel } from './read-model.js';

export type LoginAccess =
  | { allowed: true; roles: GrantedRole[] }
  /**
   * `hasProjectCheck`: the project is set to admit only users whose org has it,
   * and the user's org does not (Keyhold has no project grants to other orgs:
   * only the project's own org has it). `projectRoleCheck`: the project admits
   * only users with a grant on it, and the user has none.
   */
  | { allowed: false; failed: 'hasProjectCheck' | 'projectRoleCheck' }
  | { allowed: false; failed: 'unknown' };

/** The project's flags and the user's roles on it, decided in ZITADEL's order (hasProjectCheck first). */
export async function loginAccess(read: Pick<ReadModel, 'project' | 'ownerOfUser' | 'projectRolesOfUser'>, userId: string, projectId: string): Promise<LoginAccess> {
  const [project, userOrg, roles] = await Promise.all([read.project(projectId), read.ownerOfUser(userId), read.projectRolesOfUser(userId, projectId)]);
  if (!project || userOrg === undefined) return { allowed: false, failed: 'unknown' };
  if (project.hasProjectCheck && project.orgId !== userOrg) return { allowed: false, failed: 'hasProjectCheck' };
  if (project.projectRoleCheck && roles.length === 0) return { allowed: false, failed: 'projectRoleCheck' };
  return { allowed: true, roles };
}

/**
 * Whether the user may log in to the project, or go on using a token of one of
 * its apps (a code, a refresh, userinfo, introspection): the project's login
 * checks, read on every call. A project with neither check costs one read.
 */
export async function mayUseProject(read: Pick<ReadModel, 'project' | 'ownerOfUser' | 'projectRolesOfUser'>, userId: string, projectId: string): Promise<boolean> {
  const project = await read.project(projectId);
  if (!project) return false;
  if (!project.hasProjectCheck && !project.projectRoleCheck) return true;
  return (await loginAccess(read, userId, projectId)).allowed;
}

/** The roles as ZITADEL's claim `urn:keyhold:iam:org:project:roles` shapes them: `{roleKey: {orgId: orgName}}`. */
export function rolesClaim(roles: readonly GrantedRole[]): Record<string, Record<string, string>> {
  const claim: Record<string, Record<string, string>> = {};
  for (const { roleKey, orgId, orgName } of roles) (claim[roleKey] ??= {})[orgId] = orgName;
  return claim;
}

export const ROLES_CLAIM = 'urn:keyhold:iam:org:project:roles';
