// Who may act where, for commands and queries alike: the org context of a
// call, the permission check, which users a caller can see, and containment.
// The rules are the domain's (domain/identity/permissions.ts);
// this file looks up the facts they need.
// Order per design §4: authenticate → validate → load (404) → authorize (403).
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import {
  containmentExcess,
  grantExcess,
  hasAnyRoleIn,
  hasPermission,
  holdsEverything,
  seesUser,
  type Permission,
  type Scope,
  type Target,
} from '../domain/identity/permissions.js';
import type { Call, Caller } from './caller.js';
import type { Lookups } from './lookups.js';

/**
 * The org a management call acts in: the org named in the body (`named`, e.g.
 * AddHumanUser's organization.orgId), else the one x-service-orgid names, else
 * the caller's own. A foreign org the caller holds no role in — or one that
 * does not exist — is 403 either way, so the answer never reveals which orgs exist.
 */
export async function orgContext(lookups: Pick<Lookups, 'orgExists'>, call: Call, named?: string): Promise<{ caller: Caller; orgId: string }> {
  const { caller } = call;
  const requested = named || call.org;
  if (!requested || requested === caller.orgId) return { caller, orgId: caller.orgId };
  if (!hasAnyRoleIn(caller.memberships, requested) || !(await lookups.orgExists(requested))) {
    throw new KeyholdError('PERMISSION_DENIED', { permission: 'org.access', orgId: requested.slice(0, 64) });
  }
  return { caller, orgId: requested };
}

export function authorize(caller: Caller, permission: Permission, target: Target): void {
  if (!hasPermission(caller.memberships, permission, target)) {
    throw new KeyholdError('PERMISSION_DENIED', { permission });
  }
}

/** The project if it exists in the org, else 404 (another org's project is not revealed). */
export async function projectInOrg(lookups: Pick<Lookups, 'ownerOfProject'>, projectId: string, orgId: string): Promise<{ id: string; orgId: string }> {
  if ((await lookups.ownerOfProject(projectId)) !== orgId) throw new KeyholdError('PROJECT_NOT_FOUND', { projectId });
  return { id: projectId, orgId };
}

/**
 * visibleUser for a grant (AddOrgMember, AddProjectMember, AddOrganization's
 * admins): also asks the read model itself, because ownerOfUser is cached and
 * still knows a user removed since (RemoveUser); a membership for it is 404.
 */
export async function visibleLiveUser(lookups: Pick<Lookups, 'ownerOfUser' | 'userFacts'>, caller: Caller, userId: string): Promise<{ id: string; orgId: string }> {
  const user = await visibleUser(lookups, caller, userId);
  if (!(await lookups.userFacts(userId))) throw new KeyholdError('USER_NOT_FOUND', { userId });
  return user;
}

/**
 * The user if it exists for this caller (domain seesUser: itself, its own org,
 * an org it holds a role in), else 404 USER_NOT_FOUND — the same answer as for
 * an id that exists nowhere, so users of other orgs cannot be told from none.
 */
export async function visibleUser(lookups: Pick<Lookups, 'ownerOfUser'>, caller: Caller, userId: string): Promise<{ id: string; orgId: string }> {
  const orgId = await lookups.ownerOfUser(userId);
  if (orgId === undefined || !seesUser(caller, { id: userId, orgId })) throw new KeyholdError('USER_NOT_FOUND', { userId });
  return { id: userId, orgId };
}

/**
 * The user if it exists for the caller (404 for another org's user, as for no
 * user: visibleUser), then 403 unless the caller is the user or holds
 * `permission` in the user's org.
 */
export async function userForCaller(
  lookups: Pick<Lookups, 'ownerOfUser'>,
  caller: Caller,
  userId: string,
  permission: 'user.read' | 'user.credential.write',
): Promise<{ id: string; orgId: string }> {
  const user = await visibleUser(lookups, caller, userId);
  if (userId !== caller.userId) authorize(caller, permission, { orgId: user.orgId });
  return user;
}

/** userForCaller for a change to the user's credentials: another user must also be contained by the caller. */
export async function userForCredentialWrite(lookups: Pick<Lookups, 'ownerOfUser' | 'membershipsOf'>, caller: Caller, userId: string): Promise<{ id: string; orgId: string }> {
  const user = await userForCaller(lookups, caller, userId, 'user.credential.write');
  await assertContainsUser(lookups, caller, user.id);
  return user;
}

/**
 * Whether `makerId` could still make a credential of `userId` now (a code
 * made earlier is used later): a live, active user of an active org holding
 * user.credential.write over the user with containment, by its memberships
 * as they are now. A maker demoted, deactivated or removed since, or a user
 * promoted past it since, makes its code do nothing.
 */
export async function mayStillWriteCredential(lookups: Pick<Lookups, 'userFacts' | 'membershipsOf' | 'ownerOfUser'>, makerId: string, userId: string): Promise<boolean> {
  const maker = await lookups.userFacts(makerId);
  if (!maker || maker.state !== 'active' || maker.orgActive === false) return false;
  const memberships = (await lookups.membershipsOf(makerId)).map((m) => ({ scopeType: m.scopeType, scopeId: m.scopeId, orgId: m.orgId, roles: m.roles }));
  try {
    await userForCredentialWrite(lookups, { userId: makerId, orgId: maker.orgId, tokenId: 'maker', memberships }, userId);
    return true;
  } catch (e) {
    if (e instanceof KeyholdError) return false;
    throw e;
  }
}

/**
 * Credential containment: 403 PRIVILEGE_ESCALATION unless the caller holds, at
 * every scope where the user holds roles, every permission the user has there.
 * Call it from every command that creates (or removes) a credential of another
 * user: tokens, security keys, and later secrets, keys and passwords. Itself is
 * contained by definition, and so is anyone for an instance-wide '*': neither
 * costs a query (VerifyU2FRegistration by the admin is a hot path).
 */
export async function assertContainsUser(lookups: Pick<Lookups, 'membershipsOf'>, caller: Caller, userId: string): Promise<void> {
  if (userId === caller.userId || holdsEverything(caller.memberships)) return;
  const target = await lookups.membershipsOf(userId);
  if (containmentExcess(caller.memberships, target)) throw new KeyholdError('PRIVILEGE_ESCALATION', { userId });
}

/**
 * Role-grant containment: 403 PRIVILEGE_ESCALATION unless the caller's
 * permissions at `scope` include those of `roles` and of the roles the user
 * holds there now (a grant replaces them).
 */
export async function assertMayGrant(lookups: Pick<Lookups, 'membershipsOf'>, caller: Caller, userId: string, scope: Scope, roles: readonly string[]): Promise<void> {
  if (holdsEverything(caller.memberships)) return;
  const current = (await lookups.membershipsOf(userId)).find((m) => m.scopeType === scope.scopeType && m.scopeId === scope.scopeId);
  if (grantExcess(caller.memberships, scope, roles, current?.roles)) throw new KeyholdError('PRIVILEGE_ESCALATION', { userId });
}
