// What the signed-in caller is, for the few controls only some callers may
// use (the server decides anyway; this only spares a person a button that
// cannot work): asked once per token with GetMyUser.
import { auth, session } from './api.js';

let asked: { token: string | null; instanceOwner: Promise<boolean> } | undefined;

/** Whether the caller holds IAM_OWNER (the instance-wide role: "IAM_OWNER", not "…@org:…"). */
export function isInstanceOwner(): Promise<boolean> {
  const token = session.token;
  if (asked?.token !== token) {
    asked = {
      token,
      instanceOwner: auth.getMyUser({}).then(
        (me) => me.roles.includes('IAM_OWNER'),
        () => false,
      ),
    };
  }
  return asked.instanceOwner;
}
