// Events of a project: its creation, its members, its roles.
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
  'project.member.changed': MemberChangedPayload;
  'project.member.removed': MemberRemovedPayload;
}
