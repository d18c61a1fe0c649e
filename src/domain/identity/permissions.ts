// Roles and what they allow, as one table. A permission check names a
// permission and the object it is about; a role grants it only inside the
// scope the role was given in (instance, one org, or one project).

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
  PROJECT_OWNER: { scope: 'project', grants: ['project.read', 'project.app.*', 'project.member.write'] },
} as const satisfies Record<string, { scope: ScopeType; grants: readonly string[] }>;

export type Role = keyof typeof ROLES;

export function isRole(value: string): value is Role {
  return Object.hasOwn(ROLES, value);
}

export type Permission =
  | 'org.create'
  | 'org.member.write'
  | 'project.read'
  | 'project.write'
  | 'project.member.write'
  | 'project.app.read'
  | 'project.app.write'
  | 'user.read'
  | 'user.write'
  | 'user.credential.write';

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

export function hasPermission(memberships: readonly Membership[], permission: Permission, target: Target): boolean {
  for (const m of memberships) {
    if (!coversTarget(m, target)) continue;
    for (const role of m.roles) {
      if (isRole(role) && ROLES[role].scope === m.scopeType && ROLES[role].grants.some((g) => grants(g, permission))) {
        return true;
      }
    }
  }
  return false;
}

/** May the caller act in this org's context at all (x-service-orgid)? Any role there, or instance-wide. */
export function hasAnyRoleIn(memberships: readonly Membership[], orgId: string): boolean {
  return memberships.some((m) => m.scopeType === 'instance' || m.orgId === orgId);
}
