// mayUseProject decides on the app's client lookup alone when its project has
// no login check: no project row is read on a refresh, userinfo or
// introspection; with a check, only the user's org and roles are asked.
import { describe, expect, it } from 'vitest';
import { mayUseProject } from '../../src/queries/login-access.js';
import type { ClientAppView, GrantedRole } from '../../src/queries/read-model.js';

function reads(app: Partial<ClientAppView> | undefined, userOrg = 'org-1', roles: GrantedRole[] = [], grantedTo: string[] = []) {
  const asked: string[] = [];
  const full = app && ({ id: 'app', projectId: 'p', orgId: 'org-1', state: 'active', projectRoleCheck: false, hasProjectCheck: false, ...app } as ClientAppView);
  return {
    asked,
    read: {
      appByClientId: async () => (asked.push('app'), full),
      ownerOfUser: async () => (asked.push('owner'), userOrg),
      projectRolesOfUser: async () => (asked.push('roles'), roles),
      isProjectGrantedTo: async (_projectId: string, orgId: string) => (asked.push('grant'), grantedTo.includes(orgId)),
    },
  };
}

describe('mayUseProject', () => {
  it('a project with neither check: the client lookup only', async () => {
    const { read, asked } = reads({});
    expect(await mayUseProject(read, 'u', 'c')).toBe(true);
    expect(asked).toEqual(['app']);
  });

  it('an app not active (its project or org deactivated) or unknown: no', async () => {
    expect(await mayUseProject(reads({ state: 'inactive' }).read, 'u', 'c')).toBe(false);
    expect(await mayUseProject(reads(undefined).read, 'u', 'c')).toBe(false);
  });

  it('hasProjectCheck: the user of another org is refused, of the app\'s org admitted, roles not read', async () => {
    const other = reads({ hasProjectCheck: true }, 'org-2');
    expect(await mayUseProject(other.read, 'u', 'c')).toBe(false);
    const own = reads({ hasProjectCheck: true });
    expect(await mayUseProject(own.read, 'u', 'c')).toBe(true);
    expect(own.asked).not.toContain('roles');
    expect(own.asked).not.toContain('grant');
  });

  it('hasProjectCheck: a user of an org holding an active project grant is admitted, of another org not', async () => {
    const granted = reads({ hasProjectCheck: true }, 'org-2', [], ['org-2']);
    expect(await mayUseProject(granted.read, 'u', 'c')).toBe(true);
    expect(granted.asked).toContain('grant');
    expect(await mayUseProject(reads({ hasProjectCheck: true }, 'org-3', [], ['org-2']).read, 'u', 'c')).toBe(false);
  });

  it('projectRoleCheck: a role is needed', async () => {
    expect(await mayUseProject(reads({ projectRoleCheck: true }).read, 'u', 'c')).toBe(false);
    expect(await mayUseProject(reads({ projectRoleCheck: true }, 'org-1', [{ roleKey: 'r', orgId: 'org-1', orgName: 'O' }]).read, 'u', 'c')).toBe(true);
  });
});
