// Privilege containment as pure rules (src/domain/identity/permissions.ts):
// permission sets per scope, credential containment, role-grant containment,
// and which users a caller can see. No server, no database.
import { describe, expect, it } from 'vitest';
import {
  containmentExcess,
  grantExcess,
  hasPermission,
  holdsEverything,
  permissionsAt,
  permissionsOfRole,
  seesUser,
  type Membership,
  type Scope,
} from '../../../src/domain/identity/permissions.js';

const iam: Membership = { scopeType: 'instance', scopeId: 'default', orgId: 'o1', roles: ['IAM_OWNER'] };
const org = (orgId: string, ...roles: string[]): Membership => ({ scopeType: 'org', scopeId: orgId, orgId, roles });
const project = (projectId: string, orgId: string, ...roles: string[]): Membership => ({ scopeType: 'project', scopeId: projectId, orgId, roles });
const orgScope = (orgId: string): Scope => ({ scopeType: 'org', scopeId: orgId, orgId });
const projectScope = (projectId: string, orgId: string): Scope => ({ scopeType: 'project', scopeId: projectId, orgId });

describe('roles expand to concrete permissions where they are held', () => {
  it("IAM_OWNER's '*' is every permission, instance-only ones included", () => {
    expect([...permissionsOfRole('IAM_OWNER', 'instance')].sort()).toEqual([
      'app.api.access.write',
      'iam.idp.read',
      'iam.idp.write',
      'org.create',
      'org.delete',
      'org.events.read',
      'org.idp.read',
      'org.idp.write',
      'org.member.read',
      'org.member.write',
      'org.policy.read',
      'org.policy.write',
      'org.read',
      'org.write',
      'project.app.read',
      'project.app.write',
      'project.grant.read',
      'project.grant.write',
      'project.member.read',
      'project.member.write',
      'project.read',
      'project.role.write',
      'project.write',
      'user.credential.write',
      'user.grant.read',
      'user.grant.write',
      'user.id.choose',
      'user.read',
      'user.write',
    ]);
  });

  it("ORG_OWNER's 'org.*' and 'user.*' stop at what exists in one org (no org.create, no user.id.choose)", () => {
    const owner = permissionsOfRole('ORG_OWNER', 'org');
    expect(owner.has('org.create')).toBe(false);
    expect(owner.has('user.id.choose')).toBe(false);
    expect(owner.has('org.member.write')).toBe(true);
    expect(owner.has('project.write')).toBe(true);
    // Lending a project to another org is the owning org's: ORG_OWNER, never a PROJECT_OWNER.
    expect(owner.has('project.grant.write')).toBe(true);
    expect(permissionsOfRole('PROJECT_OWNER', 'project').has('project.grant.write')).toBe(false);
    expect([...permissionsOfRole('ORG_USER_MANAGER', 'org')].sort()).toEqual(['user.credential.write', 'user.grant.read', 'user.grant.write', 'user.read', 'user.write']);
    expect([...permissionsOfRole('PROJECT_OWNER', 'project')].sort()).toEqual([
      'project.app.read',
      'project.app.write',
      'project.grant.read',
      'project.member.read',
      'project.member.write',
      'project.read',
      'project.role.write',
      'user.grant.read',
      'user.grant.write',
    ]);
  });

  it("an org role reaches that org's projects with its project permissions; an instance role reaches everything", () => {
    expect([...permissionsAt([org('o1', 'ORG_OWNER')], projectScope('p1', 'o1'))].sort()).toEqual([
      'project.app.read',
      'project.app.write',
      'project.grant.read',
      'project.member.read',
      'project.member.write',
      'project.read',
      'project.role.write',
      'user.grant.read',
      'user.grant.write',
    ]);
    expect(permissionsAt([org('o1', 'ORG_OWNER')], projectScope('p9', 'o2')).size).toBe(0);
    // A user manager grants users the roles of the org's projects (ZITADEL's user.grant.*), nothing else there.
    expect([...permissionsAt([org('o1', 'ORG_USER_MANAGER')], projectScope('p1', 'o1'))]).toEqual(['user.grant.read', 'user.grant.write']);
    expect(permissionsAt([iam], orgScope('any')).has('user.write')).toBe(true);
  });

  it('a role given at the wrong kind of scope, or an unknown role, grants nothing', () => {
    expect(permissionsAt([project('p1', 'o1', 'ORG_OWNER')], projectScope('p1', 'o1')).size).toBe(0);
    expect(permissionsAt([org('o1', 'SUPER_ADMIN')], orgScope('o1')).size).toBe(0);
    expect(containmentExcess([], [project('p1', 'o1', 'ORG_OWNER'), org('o1', 'SUPER_ADMIN')])).toBeUndefined();
  });

  it('ORG_OWNER_VIEWER reads what its org holds and writes nothing; only an owner of the org may grant it', () => {
    const held = [...permissionsOfRole('ORG_OWNER_VIEWER', 'org')];
    expect(held.sort()).toEqual(['org.member.read', 'org.policy.read', 'org.read', 'project.app.read', 'project.grant.read', 'project.member.read', 'project.read', 'user.grant.read', 'user.read']);
    expect(held.filter((p) => !p.endsWith('.read'))).toEqual([]);
    expect(hasPermission([org('o1', 'ORG_OWNER_VIEWER')], 'project.read', { orgId: 'o1', projectId: 'p1' })).toBe(true);
    expect(hasPermission([org('o1', 'ORG_OWNER_VIEWER')], 'user.write', { orgId: 'o1' })).toBe(false);
    expect(hasPermission([org('o1', 'ORG_OWNER_VIEWER')], 'user.read', { orgId: 'o2' })).toBe(false);
    expect(grantExcess([org('o1', 'ORG_OWNER')], orgScope('o1'), ['ORG_OWNER_VIEWER'])).toBeUndefined();
    expect(grantExcess([org('o1', 'ORG_USER_MANAGER')], orgScope('o1'), ['ORG_OWNER_VIEWER'])).toBeDefined();
  });

  it('user.id.choose is checked instance-wide: only IAM_OWNER holds it', () => {
    expect(hasPermission([iam], 'user.id.choose', {})).toBe(true);
    expect(hasPermission([org('o1', 'ORG_OWNER')], 'user.id.choose', {})).toBe(false);
    // Not even when asked about one org: the permission does not exist per org.
    expect(hasPermission([org('o1', 'ORG_OWNER')], 'user.id.choose', { orgId: 'o1' })).toBe(false);
    expect(hasPermission([org('o1', 'ORG_OWNER')], 'org.create', { orgId: 'o1' })).toBe(false);
    expect(hasPermission([org('o1', 'ORG_OWNER')], 'user.write', { orgId: 'o1' })).toBe(true);
  });

  it('app.api.access.write is instance-wide only: neither the app\'s org owner nor its project owner holds it', () => {
    const target = { orgId: 'o1', projectId: 'p1' };
    expect(hasPermission([iam], 'app.api.access.write', target)).toBe(true);
    expect(hasPermission([org('o1', 'ORG_OWNER')], 'app.api.access.write', target)).toBe(false);
    expect(hasPermission([project('p1', 'o1', 'PROJECT_OWNER')], 'app.api.access.write', target)).toBe(false);
    expect(permissionsAt([org('o1', 'ORG_OWNER')], projectScope('p1', 'o1')).has('app.api.access.write')).toBe(false);
  });
});

describe('credential containment: the caller must hold what the target holds, scope by scope', () => {
  it('ORG_OWNER may act for an ORG_USER_MANAGER of its org; not the other way round', () => {
    expect(containmentExcess([org('o1', 'ORG_OWNER')], [org('o1', 'ORG_USER_MANAGER')])).toBeUndefined();
    const excess = containmentExcess([org('o1', 'ORG_USER_MANAGER')], [org('o1', 'ORG_OWNER')]);
    expect(excess?.scope).toEqual(orgScope('o1'));
    expect(excess?.missing).toEqual(expect.arrayContaining(['org.member.write', 'project.write']));
    expect(excess?.missing).not.toContain('user.write');
  });

  it('nobody below IAM_OWNER reaches an IAM_OWNER, not even an owner of every org', () => {
    const target = [iam, org('o1', 'ORG_OWNER')];
    expect(containmentExcess([org('o1', 'ORG_OWNER'), org('o2', 'ORG_OWNER')], target)?.scope.scopeType).toBe('instance');
    expect(containmentExcess([iam], target)).toBeUndefined();
  });

  it('permissions, not role names: an ORG_USER_MANAGER does not contain a PROJECT_OWNER', () => {
    const excess = containmentExcess([org('o1', 'ORG_USER_MANAGER')], [project('p1', 'o1', 'PROJECT_OWNER')]);
    expect(excess?.scope).toEqual(projectScope('p1', 'o1'));
    expect(excess?.missing).toContain('project.app.write');
    expect(containmentExcess([org('o1', 'ORG_OWNER')], [project('p1', 'o1', 'PROJECT_OWNER')])).toBeUndefined();
    expect(containmentExcess([project('p1', 'o1', 'PROJECT_OWNER')], [project('p1', 'o1', 'PROJECT_OWNER')])).toBeUndefined();
    expect(containmentExcess([project('p2', 'o1', 'PROJECT_OWNER')], [project('p1', 'o1', 'PROJECT_OWNER')])).toBeDefined();
  });

  it('every scope counts: a role in another org the caller lacks is an excess', () => {
    const target = [org('o1', 'ORG_USER_MANAGER'), org('o2', 'ORG_OWNER')];
    expect(containmentExcess([org('o1', 'ORG_OWNER')], target)?.scope).toEqual(orgScope('o2'));
    expect(containmentExcess([org('o1', 'ORG_OWNER'), org('o2', 'ORG_OWNER')], target)).toBeUndefined();
    expect(containmentExcess([org('o1', 'ORG_OWNER'), project('px', 'o2', 'PROJECT_OWNER')], [project('p1', 'o2', 'PROJECT_OWNER')])).toBeDefined();
  });

  it('a target without roles is contained by anyone; a principal contains itself', () => {
    expect(containmentExcess([], [])).toBeUndefined();
    const mixed = [org('o1', 'ORG_USER_MANAGER'), project('p1', 'o2', 'PROJECT_OWNER')];
    expect(containmentExcess(mixed, mixed)).toBeUndefined();
  });

  it('holdsEverything only for an instance-wide *', () => {
    expect(holdsEverything([iam])).toBe(true);
    expect(holdsEverything([org('o1', 'ORG_OWNER')])).toBe(false);
    expect(holdsEverything([{ ...iam, roles: ['ORG_OWNER'] }])).toBe(false);
  });
});

describe('role-grant containment: a role only from a caller whose permissions there include it', () => {
  it('ORG_OWNER grants either org role in its org, not in another', () => {
    expect(grantExcess([org('o1', 'ORG_OWNER')], orgScope('o1'), ['ORG_OWNER', 'ORG_USER_MANAGER'])).toBeUndefined();
    expect(grantExcess([org('o1', 'ORG_OWNER')], orgScope('o2'), ['ORG_USER_MANAGER'])).toBeDefined();
  });

  it('ORG_USER_MANAGER could grant its own role but not ORG_OWNER', () => {
    expect(grantExcess([org('o1', 'ORG_USER_MANAGER')], orgScope('o1'), ['ORG_USER_MANAGER'])).toBeUndefined();
    expect(grantExcess([org('o1', 'ORG_USER_MANAGER')], orgScope('o1'), ['ORG_OWNER'])?.missing).toContain('org.member.write');
  });

  it('PROJECT_OWNER grants PROJECT_OWNER on its project only', () => {
    expect(grantExcess([project('p1', 'o1', 'PROJECT_OWNER')], projectScope('p1', 'o1'), ['PROJECT_OWNER'])).toBeUndefined();
    expect(grantExcess([project('p1', 'o1', 'PROJECT_OWNER')], projectScope('p2', 'o1'), ['PROJECT_OWNER'])).toBeDefined();
    expect(grantExcess([project('p1', 'o1', 'PROJECT_OWNER')], orgScope('o1'), ['ORG_USER_MANAGER'])).toBeDefined();
    expect(grantExcess([org('o1', 'ORG_OWNER')], projectScope('p1', 'o1'), ['PROJECT_OWNER'])).toBeUndefined();
  });

  it('a grant replaces the roles held there: taking away more than the caller holds is refused too', () => {
    expect(grantExcess([org('o1', 'ORG_USER_MANAGER')], orgScope('o1'), ['ORG_USER_MANAGER'], ['ORG_OWNER'])).toBeDefined();
    expect(grantExcess([org('o1', 'ORG_OWNER')], orgScope('o1'), ['ORG_USER_MANAGER'], ['ORG_OWNER'])).toBeUndefined();
  });

  it('IAM_OWNER grants anything anywhere; roles of another kind of scope count for nothing', () => {
    expect(grantExcess([iam], projectScope('p1', 'o1'), ['PROJECT_OWNER'])).toBeUndefined();
    expect(grantExcess([iam], orgScope('o9'), ['ORG_OWNER'])).toBeUndefined();
    expect(grantExcess([], orgScope('o1'), ['PROJECT_OWNER'])).toBeUndefined();
  });
});

describe('which users a caller sees', () => {
  const viewer = (orgId: string, ...memberships: Membership[]) => ({ userId: 'me', orgId, memberships });
  it('itself, its own org, orgs it holds any role in; an instance role sees all', () => {
    expect(seesUser(viewer('o1'), { id: 'me', orgId: 'o1' })).toBe(true);
    expect(seesUser(viewer('o1'), { id: 'u', orgId: 'o1' })).toBe(true);
    expect(seesUser(viewer('o1'), { id: 'u', orgId: 'o2' })).toBe(false);
    expect(seesUser(viewer('o1', org('o2', 'ORG_USER_MANAGER')), { id: 'u', orgId: 'o2' })).toBe(true);
    expect(seesUser(viewer('o1', project('p', 'o2', 'PROJECT_OWNER')), { id: 'u', orgId: 'o2' })).toBe(true);
    expect(seesUser(viewer('o1', iam), { id: 'u', orgId: 'o7' })).toBe(true);
  });
});
