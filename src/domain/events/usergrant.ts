// Events of a user grant (ZITADEL's usergrant): roles of a project given to a
// user, owned by the project's org. The roles are the project's own
// (project.role.added), shown to apps in the roles claim while the grant is
// active; a deactivated grant keeps its roles but gives none, a removed one is gone.
export interface UserGrantEventPayloads {
  'usergrant.added': { userId: string; projectId: string; roleKeys: string[] };
  /** UpdateUserGrant: the grant's roles are now these (replaced, not merged). */
  'usergrant.changed': { roleKeys: string[] };
  'usergrant.deactivated': Record<string, never>;
  'usergrant.reactivated': Record<string, never>;
  'usergrant.removed': { userId: string; projectId: string };
}
