// Events of a project: its creation, its changes, deactivation and removal,
// its members, its roles.
import type { MemberAddedPayload, MemberChangedPayload, MemberRemovedPayload } from './members.js';

export interface ProjectEventPayloads {
  /**
   * The login checks (ZITADEL's flags), absent in older events (false):
   * `projectRoleCheck` — only users with a grant on the project may log
   * in to its apps; `hasProjectCheck` — only users whose org has the project.
   */
  'project.added': { name: string; projectRoleCheck?: boolean; hasProjectCheck?: boolean };
  /** A role of the project (for its apps' users: user grants), not a Keyhold permission role. */
  'project.role.added': { roleKey: string; displayName: string; group: string };
  'project.member.added': MemberAddedPayload;
  /** UpdateProject: the name and the login checks as they are now. */
  'project.changed': { name: string; projectRoleCheck: boolean; hasProjectCheck: boolean };
  /** DeactivateProject: its apps cannot authenticate until ReactivateProject. */
  'project.deactivated': Record<string, never>;
  'project.reactivated': Record<string, never>;
  /** RemoveProject: its roles, members and apps' rows go with it (its apps and grants get their own events). */
  'project.removed': Record<string, never>;
  'project.role.changed': { roleKey: string; displayName: string; group: string };
  /** RemoveProjectRole: the grants holding the role lose it (usergrant.cascade.changed) in the same append. */
  'project.role.removed': { roleKey: string };
  'project.member.changed': MemberChangedPayload;
  'project.member.removed': MemberRemovedPayload;
  /**
   * AddProjectGrant (ZITADEL's project grant): the project is granted to another org,
   * whose admins may then grant these roles of it to their own users. A removed
   * project role leaves every project grant with the role (project.role.removed).
   */
  'project.grant.added': { grantId: string; grantedOrgId: string; roleKeys: string[] };
  /** UpdateProjectGrant: the grant's roles now; the user grants under it lose the dropped ones in the same append. */
  'project.grant.changed': { grantId: string; roleKeys: string[] };
  /** DeactivateProjectGrant: the granted org's users are no longer admitted by it, nor given its roles. */
  'project.grant.deactivated': { grantId: string };
  'project.grant.reactivated': { grantId: string };
  /** RemoveProjectGrant: the user grants under it are removed in the same append (usergrant.cascade.removed). */
  'project.grant.removed': { grantId: string; grantedOrgId: string };
}
