// What the signed-in caller is, for the controls only some callers may use
// (the server decides anyway; this only spares a person a button that cannot
// work, or admin screens that would only show refusals): asked once per token
// with GetMyUser. What a role allows is the server's own table
// (src/domain/identity/permissions.ts, pure and bundled here), so the console
// and the server cannot disagree about which button a role gets.
import type { User } from '../../gen/keyhold/user/v2/user_pb.js';
import { hasPermission, type Membership, type Permission } from '../../src/domain/identity/permissions.js';
import { auth, orgContext, session } from './api.js';

interface Me {
  username: string;
  /** The name a person reads: the display name (or given and family name), a machine's name. */
  name: string;
  /** The caller's own organization. */
  orgId: string;
  /** `IAM_OWNER`, `ORG_OWNER@org:<id>`, `PROJECT_OWNER@project:<id>`, … */
  roles: readonly string[];
  memberships: Membership[];
}

function nameOf(user: User | undefined): string {
  if (user?.type.case === 'human') {
    const p = user.type.value.profile;
    return p?.displayName || [p?.givenName, p?.familyName].filter(Boolean).join(' ') || user.username;
  }
  if (user?.type.case === 'machine') return user.type.value.name || user.username;
  return user?.username ?? '';
}

/** `ROLE`, `ROLE@org:<id>`, `ROLE@project:<id>` as the memberships the permission table reads. */
function membershipsOf(roles: readonly string[]): Membership[] {
  return roles.map((r) => {
    const m = /^([^@]+)@(org|project):(.+)$/.exec(r);
    if (!m) return { scopeType: 'instance', scopeId: 'default', orgId: '', roles: [r] };
    const [, role, scopeType, scopeId] = m;
    return { scopeType: scopeType as 'org' | 'project', scopeId: scopeId!, orgId: scopeType === 'org' ? scopeId! : '', roles: [role!] };
  });
}

let asked: { token: string | null; me: Promise<Me | undefined> } | undefined;

/** The caller's names, org and roles; undefined when GetMyUser failed (the pages then say why). */
export function me(): Promise<Me | undefined> {
  const token = session.token;
  if (asked?.token !== token) {
    asked = {
      token,
      me: auth.getMyUser({}).then(
        (res) => ({
          username: res.user?.username || res.user?.userId || '',
          name: nameOf(res.user),
          orgId: res.organizationId,
          roles: res.roles,
          memberships: membershipsOf(res.roles),
        }),
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

/**
 * Whether the caller holds `permission` in the organization the console acts
 * in (the one chosen on #/orgs, else its own), and for `projectId` when given.
 * Unknown (GetMyUser failed): true, and the server's refusal says why.
 */
export async function can(permission: Permission, projectId?: string): Promise<boolean> {
  const who = await me();
  if (!who) return true;
  const orgId = orgContext.current?.id ?? who.orgId;
  return hasPermission(who.memberships, permission, { orgId, projectId });
}

/** Whether the caller holds `permission` in the acting organization or in any project it is a member of. */
export async function canSomewhere(permission: Permission): Promise<boolean> {
  const who = await me();
  if (!who) return true;
  if (await can(permission)) return true;
  return who.memberships.some((m) => m.scopeType === 'project' && hasPermission(who.memberships, permission, { projectId: m.scopeId }));
}

/** Several permissions at once: `{ 'user.write': true, … }`. */
export async function permissions<P extends Permission>(list: readonly P[], projectId?: string): Promise<Record<P, boolean>> {
  const answers = await Promise.all(list.map((p) => can(p, projectId)));
  return Object.fromEntries(list.map((p, i) => [p, answers[i]])) as Record<P, boolean>;
}
