// What the signed-in caller is, for the few controls only some callers may
// use (the server decides anyway; this only spares a person a button that
// cannot work, or admin screens that would only show refusals): asked once per
// token with GetMyUser.
import { auth, session } from './api.js';

interface Me {
  username: string;
  /** `IAM_OWNER`, `ORG_OWNER@org:<id>`, `PROJECT_OWNER@project:<id>`, … */
  roles: readonly string[];
}

let asked: { token: string | null; me: Promise<Me | undefined> } | undefined;

/** The caller's username and roles; undefined when GetMyUser failed (the pages then say why). */
export function me(): Promise<Me | undefined> {
  const token = session.token;
  if (asked?.token !== token) {
    asked = {
      token,
      me: auth.getMyUser({}).then(
        (res) => ({ username: res.user?.username || res.user?.userId || '', roles: res.roles }),
        () => undefined,
      ),
    };
  }
  return asked.me;
}

/** Whether the caller holds IAM_OWNER (the instance-wide role: "IAM_OWNER", not "…@org:…"). */
export async function isInstanceOwner(): Promise<boolean> {
  return (await me())?.roles.includes('IAM_OWNER') ?? false;
}

/** Whether the caller holds no role anywhere: nothing in the console would work for it. */
export async function hasNoRoles(): Promise<boolean> {
  const who = await me();
  return who !== undefined && who.roles.length === 0;
}
