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
}
