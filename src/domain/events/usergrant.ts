// Events of a user grant (ZITADEL's usergrant): roles of a project given to a
// user, owned by the project's org. The roles are the project's own
// (project.role.added), shown to apps in the roles claim while the grant is
// active; a deactivated grant keeps its roles but gives none, a removed one is gone.
export interface UserGrantEventPayloads {
  /**
   * `projectGrantId`: given by the org the project is granted to (AddProjectGrant), with roles
   * that grant holds; the grant's owner is then that org. Absent: the project's org gave it.
   */
  'usergrant.added': { userId: string; projectId: string; roleKeys: string[]; projectGrantId?: string };
  /** The project's role `removedRoleKey` was removed (RemoveProjectRole), or the project grant the grant is under no longer holds it (UpdateProjectGrant): the grant's roles now. */
  'usergrant.cascade.changed': { removedRoleKey: string; roleKeys: string[] };
  /** The grant's project was removed (RemoveProject), or the project grant it is under (RemoveProjectGrant). */
  'usergrant.cascade.removed': Record<string, never>;
  /** UpdateUserGrant: the grant's roles are now these (replaced, not merged). */
  'usergrant.changed': { roleKeys: string[] };
  'usergrant.deactivated': Record<string, never>;
  'usergrant.reactivated': Record<string, never>;
  'usergrant.removed': { userId: string; projectId: string };
}
