// Roles and what they allow, as one table. A permission check names a
// permission and the object it is about; a role grants it only inside the
// scope the role was given in (instance, one org, or one project).
//
// The same table answers containment: a caller may create a
// credential for, or grant a role to, another principal only when that gives
// the principal no permission the caller lacks — compared as concrete
// permission sets at each scope, never by role names.

export type ScopeType = 'instance' | 'org' | 'project';

export interface Membership {
  scopeType: ScopeType;
  /** 'default' for the instance, else the org or project id. */
  scopeId: string;
  /** The org the scope belongs to (for projects: the project's org). */
  orgId: string;
  roles: readonly string[];
}

export const ROLES = {
  IAM_OWNER: { scope: 'instance', grants: ['*'] },
  ORG_OWNER: { scope: 'org', grants: ['org.*', 'project.*', 'user.*'] },
  ORG_USER_MANAGER: { scope: 'org', grants: ['user.*'] },
  /** ZITADEL's read-only org role: sees what the org holds, changes nothing (not its audit log: that is the owners'). */
  ORG_OWNER_VIEWER: { scope: 'org', grants: ['org.read', 'org.member.read', 'org.policy.read', 'project.read', 'project.member.read', 'project.app.read', 'project.grant.read', 'user.read', 'user.grant.read'] },
  PROJECT_OWNER: { scope: 'project', grants: ['project.read', 'project.app.*', 'project.member.read', 'project.member.write', 'project.role.write', 'project.grant.read', 'user.grant.read', 'user.grant.write'] },
} as const satisfies Record<string, { scope: ScopeType; grants: readonly string[] }>;

export type Role = keyof typeof ROLES;

export function isRole(value: string): value is Role {
  return Object.hasOwn(ROLES, value);
}

/**
 * Every permission, with the scopes below the instance where a role can hold it.
 * (An instance-wide role holds whatever it grants, everywhere.) `org.create`,
 * `user.id.choose` and `app.api.access.write` exist only instance-wide:
 * ORG_OWNER's `org.*` and `user.*` do not reach them, because they concern every
 * org at once.
 */
export const PERMISSIONS = {
  'org.create': [],
  'org.read': ['org'],
  /**
   * The org's name (UpdateOrg) and its state (DeactivateOrg, ReactivateOrg): ORG_OWNER (org.*) and
   * IAM_OWNER, as in ZITADEL. An ORG_OWNER who is a user of the org cannot act once it is
   * deactivated (its users' tokens are refused): an IAM_OWNER, or an owner from another org, reactivates it.
   */
  'org.write': ['org'],
  /** RemoveOrg, everything under it at once: ORG_OWNER (org.*) and IAM_OWNER, as in ZITADEL. */
  'org.delete': ['org'],
  /** The audit log (ListEvents) of an org; instance-wide: every event. */
  'org.events.read': ['org'],
  /** The org's members and their roles (ListOrgMembers). */
  'org.member.read': ['org'],
  'org.member.write': ['org'],
  /** The org's login policy (GetLoginPolicy; Add/UpdateCustomLoginPolicy), as ZITADEL names them. */
  'org.policy.read': ['org'],
  'org.policy.write': ['org'],
  'project.read': ['org', 'project'],
  'project.write': ['org'],
  /** The project's members and their roles (ListProjectMembers). */
  'project.member.read': ['org', 'project'],
  'project.member.write': ['org', 'project'],
  'project.app.read': ['org', 'project'],
  'project.app.write': ['org', 'project'],
  /** The project's own roles (AddProjectRole), as ZITADEL names it. */
  'project.role.write': ['org', 'project'],
  /** The project's grants to other orgs (ListProjectGrants, GetProjectGrantByID). */
  'project.grant.read': ['org', 'project'],
  /**
   * Granting the project to another org, changing, deactivating, removing that grant: the
   * project's org only (ORG_OWNER's project.*, IAM_OWNER), as in ZITADEL — a PROJECT_OWNER
   * does not lend a project out of its org.
   */
  'project.grant.write': ['org'],
  'user.read': ['org'],
  'user.write': ['org'],
  'user.credential.write': ['org'],
  /** Reading the user grants of a project (ListUserGrants), as ZITADEL names it. */
  'user.grant.read': ['org', 'project'],
  /** Granting a user roles of a project and changing, deactivating, removing the grant: ORG_OWNER, ORG_USER_MANAGER (user.*) and PROJECT_OWNER, as in ZITADEL. */
  'user.grant.write': ['org', 'project'],
  /** Choosing the id of a new user: ids are unique across orgs, so a collision tells about every org. */
  'user.id.choose': [],
  /**
   * Letting an app obtain tokens for Keyhold's own API (SetAppAPIAccess): such a
   * token acts as whoever signs in, the instance's owners too, so only an
   * instance-wide role decides it — never the app's org or project owners.
   */
  'app.api.access.write': [],
  /** The org's own identity providers (AddGenericOIDCProvider … on the management API): ORG_OWNER (org.*) and IAM_OWNER, as in ZITADEL. */
  'org.idp.read': ['org'],
  'org.idp.write': ['org'],
  /** The instance's identity providers, offered to every org's apps: instance-wide roles only. */
  'iam.idp.read': [],
  'iam.idp.write': [],
} as const satisfies Record<string, readonly Exclude<ScopeType, 'instance'>[]>;

export type Permission = keyof typeof PERMISSIONS;

const ALL_PERMISSIONS = Object.keys(PERMISSIONS) as Permission[];

/** What a permission is checked against. `orgId` absent means instance-wide (org.create). */
export interface Target {
  orgId?: string;
  projectId?: string;
}

function grants(pattern: string, permission: Permission): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return permission.startsWith(pattern.slice(0, -1));
  return pattern === permission;
}

function coversTarget(m: Membership, target: Target): boolean {
  switch (m.scopeType) {
    case 'instance':
      return true;
    case 'org':
      return target.orgId !== undefined && m.scopeId === target.orgId;
    case 'project':
      return target.projectId !== undefined && m.scopeId === target.projectId;
  }
}

/** The roles of a membership that count: known roles given at the scope they belong to. */
function effectiveRoles(m: Membership): Role[] {
  return m.roles.filter((r): r is Role => isRole(r) && ROLES[r].scope === m.scopeType);
}

export function hasPermission(memberships: readonly Membership[], permission: Permission, target: Target): boolean {
  for (const m of memberships) {
    if (!coversTarget(m, target)) continue;
    if (effectiveRoles(m).some((role) => permissionsOfRole(role, m.scopeType).has(permission))) return true;
  }
  return false;
}

/** May the caller act in this org's context at all (x-service-orgid)? Any role there, or instance-wide. */
export function hasAnyRoleIn(memberships: readonly Membership[], orgId: string): boolean {
  return memberships.some((m) => m.scopeType === 'instance' || m.orgId === orgId);
}

// --- visibility ----------------------------------------------------------------

export interface Viewer {
  userId: string;
  /** The org the viewer's own user belongs to. */
  orgId: string;
  memberships: readonly Membership[];
}

/**
 * Does a user exist for this viewer? Itself, a user of its own org, or of an org
 * it holds any role in (instance-wide: every org). Every other user answers
 * "not found", exactly like an id that does not exist; inside those orgs a
 * missing permission is still a 403.
 */
export function seesUser(viewer: Viewer, user: { id: string; orgId: string }): boolean {
  return user.id === viewer.userId || user.orgId === viewer.orgId || hasAnyRoleIn(viewer.memberships, user.orgId);
}

// --- containment -----------------------------------------------------------------

/** A scope in which a principal may hold roles. */
export interface Scope {
  scopeType: ScopeType;
  scopeId: string;
  /** The org of the scope (for projects: the project's org); unused for the instance. */
  orgId: string;
}

const roleSets = new Map<string, ReadonlySet<Permission>>();

/** The concrete permissions a role grants when held at a scope of this type ('*', 'user.*' expanded). */
export function permissionsOfRole(role: Role, at: ScopeType): ReadonlySet<Permission> {
  const key = `${role}@${at}`;
  let set = roleSets.get(key);
  if (!set) {
    const held = ALL_PERMISSIONS.filter(
      (p) => (at === 'instance' || (PERMISSIONS[p] as readonly ScopeType[]).includes(at)) && ROLES[role].grants.some((g) => grants(g, p)),
    );
    roleSets.set(key, (set = new Set(held)));
  }
  return set;
}

/** Does membership `m` reach scope `s`? Instance-wide reaches all; an org role reaches its org and the org's projects. */
function reaches(m: Membership, s: Scope): boolean {
  switch (m.scopeType) {
    case 'instance':
      return true;
    case 'org':
      return s.scopeType === 'org' ? m.scopeId === s.scopeId : s.scopeType === 'project' && s.orgId === m.scopeId;
    case 'project':
      return s.scopeType === 'project' && m.scopeId === s.scopeId;
  }
}

/** Everything the memberships allow at one scope, as concrete permissions. */
export function permissionsAt(memberships: readonly Membership[], scope: Scope): Set<Permission> {
  const out = new Set<Permission>();
  for (const m of memberships) {
    if (!reaches(m, scope)) continue;
    for (const role of effectiveRoles(m)) {
      // What the role allows where it is held, as far as it applies at the scope asked about.
      for (const p of permissionsOfRole(role, m.scopeType)) {
        if (scope.scopeType === 'instance' || m.scopeType === scope.scopeType || (PERMISSIONS[p] as readonly ScopeType[]).includes(scope.scopeType)) out.add(p);
      }
    }
  }
  return out;
}

/** Does a caller hold every permission at every scope (an instance-wide '*')? Then it contains anyone. */
export function holdsEverything(memberships: readonly Membership[]): boolean {
  const instance = permissionsAt(memberships, { scopeType: 'instance', scopeId: 'default', orgId: '' });
  return ALL_PERMISSIONS.every((p) => instance.has(p));
}

/** Where a principal would hold more than the caller: the scope and the permissions the caller lacks there. */
export interface Excess {
  scope: Scope;
  missing: Permission[];
}

function excessAt(caller: readonly Membership[], scope: Scope, targetHolds: Iterable<Permission>): Excess | undefined {
  const callerHolds = permissionsAt(caller, scope);
  const missing = [...new Set(targetHolds)].filter((p) => !callerHolds.has(p)).sort();
  return missing.length ? { scope, missing } : undefined;
}

/**
 * Credential containment: may a caller with `caller` memberships create a
 * credential for (act as) a principal with `target` memberships? Yes when, at
 * each scope the target holds roles in, the caller's permissions there include
 * all of the target's. Returns the first scope where they do not, else undefined.
 */
export function containmentExcess(caller: readonly Membership[], target: readonly Membership[]): Excess | undefined {
  for (const m of target) {
    const holds = effectiveRoles(m).flatMap((r) => [...permissionsOfRole(r, m.scopeType)]);
    const excess = excessAt(caller, { scopeType: m.scopeType, scopeId: m.scopeId, orgId: m.orgId }, holds);
    if (excess) return excess;
  }
  return undefined;
}

/**
 * Role-grant containment: may the caller set the roles of a principal at `scope`
 * to `roles`? The caller's permissions at the scope must include those of the
 * roles granted and of the roles the principal holds there now (a grant
 * replaces them: taking a role away is as much a change as giving one).
 */
export function grantExcess(caller: readonly Membership[], scope: Scope, roles: readonly string[], currentRoles: readonly string[] = []): Excess | undefined {
  const counted = effectiveRoles({ ...scope, roles: [...roles, ...currentRoles] });
  return excessAt(caller, scope, counted.flatMap((r) => [...permissionsOfRole(r, scope.scopeType)]));
}
