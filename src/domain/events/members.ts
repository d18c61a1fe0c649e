// The payload every "member added" event shares (instance, org, project):
// the user and the roles it holds at that scope from now on (a grant replaces
// the roles it held there before).
export interface MemberAddedPayload {
  userId: string;
  roles: string[];
}
