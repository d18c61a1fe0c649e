// The payload every "member added" event shares (instance, org, project):
// the user and the roles it holds at that scope from now on (a grant replaces
// the roles it held there before).
export interface MemberAddedPayload {
  userId: string;
  roles: string[];
}

/** A member's roles replaced (UpdateOrgMember, UpdateProjectMember): the roles it holds from now on. */
export interface MemberChangedPayload {
  userId: string;
  roles: string[];
}

/** A member taken out of the scope (RemoveOrgMember, RemoveProjectMember): it holds no roles there any more. */
export interface MemberRemovedPayload {
  userId: string;
}
