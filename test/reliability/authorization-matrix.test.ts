// Every RPC of the five services (management, user, organization, auth, admin) × every kind of caller, with the exact gRPC
// code each must get (design §3 table and §4; src/domain/identity/permissions.ts).
//
// The world (built once): org A with projects P1 and P2 and an app in P1; org B.
// Callers: no token; an ORG_OWNER of A whose token expired; the ORG_OWNER of B
// (in its own org context, and naming A in x-service-orgid); the PROJECT_OWNER
// of P2 (another project) and of P1 (this one); a user of A with no role; the
// target user T themself; the ORG_OWNER of A; the instance owner (IAM_OWNER,
// naming A). Each call is valid except for who makes it, so the code it gets is
// the authorization's answer. Writes that consume their target (RemoveApp,
// VerifyU2FRegistration, RemoveU2F) get a fresh target per cell.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminService } from '../../gen/keyhold/admin/v1/admin_pb.js';
import { AuthService } from '../../gen/keyhold/auth/v1/auth_pb.js';
import { KeyType, ManagementService, PasswordlessType } from '../../gen/keyhold/management/v1/management_pb.js';
import { OIDCAppType, OIDCAuthMethodType, OIDCGrantType } from '../../gen/keyhold/management/v1/app_pb.js';
import { OrganizationService } from '../../gen/keyhold/org/v2/org_pb.js';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { createSoftAuthenticator } from '../support/soft-authenticator.js';
import { createSoftPasskey } from '../support/soft-passkey.js';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.js';
import { reasonOrOk, restReason, rpcError } from '../support/errors.js';
import { inOrg } from '../support/identity.js';
import * as oidc from 'openid-client';
import { browser } from '../support/oidc-login.js';
import { deviceConfirmation, deviceContinue, isConsentPage, signIn, submit, type Step } from '../support/oidc-steps.js';

const ORIGIN = 'https://login.example';
const CALLERS = ['none', 'expired', 'otherOrgOwner', 'otherOrgOwnerNamingA', 'otherProjectOwner', 'projectOwner', 'plainUser', 'self', 'orgOwner', 'instanceOwner'] as const;
type CallerKind = (typeof CALLERS)[number];

type Outcome = 'OK' | 'UNAUTHENTICATED' | 'PERMISSION_DENIED' | 'NOT_FOUND' | 'INVALID_ARGUMENT' | 'ALREADY_EXISTS' | 'FAILED_PRECONDITION' | string;
const U = 'UNAUTHENTICATED';
const P = 'PERMISSION_DENIED';
const N = 'NOT_FOUND';

interface Clients {
  mgmt: Client<typeof ManagementService>;
  user: Client<typeof UserService>;
  org: Client<typeof OrganizationService>;
  auth: Client<typeof AuthService>;
  admin: Client<typeof AdminService>;
}

let kh: TestKeyhold;
const world = {} as {
  orgA: string;
  orgB: string;
  p1: string;
  p2: string;
  app1: string;
  target: { userId: string; token: string };
  member: string;
  /** B's ORG_OWNER's user id. */
  ownerB: string;
  tokens: Record<Exclude<CallerKind, 'none' | 'instanceOwner'>, string>;
};
let n = 0;
const unique = (p: string) => `${p}-${++n}-${Date.now()}`;

function clientsFor(kind: CallerKind): Clients {
  const token = kind === 'none' ? undefined : kind === 'instanceOwner' ? kh.adminToken : world.tokens[kind];
  // The instance owner and B's owner "naming A" act in org A through x-service-orgid.
  const headers = kind === 'instanceOwner' || kind === 'otherOrgOwnerNamingA' ? inOrg(world.orgA) : undefined;
  // startTestKeyhold's client() falls back to the admin token when none is given: pass an empty bearer instead.
  const t = token ?? '';
  return {
    mgmt: kh.client(ManagementService, 'grpc', t, headers),
    user: kh.client(UserService, 'grpc', t, headers),
    org: kh.client(OrganizationService, 'grpc', t, headers),
    auth: kh.client(AuthService, 'grpc', t, headers),
    admin: kh.client(AdminService, 'grpc', t, headers),
  };
}

/** Admin client acting in org A. */
const adminA = () => kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(world.orgA));

async function newRegistration() {
  const res = await kh.client(UserService, 'grpc', kh.adminToken).registerU2F({ userId: world.target.userId });
  const options = res.publicKeyCredentialCreationOptions as any;
  return { u2fId: res.u2fId, challenge: options.challenge as string, rpId: options.rp.id as string };
}

let keyAppMade: Promise<string> | undefined;
/** A private_key_jwt app in P1 (AddAppKey's rows), made once. */
const keyApp = (): Promise<string> =>
  (keyAppMade ??= adminA()
    .addOIDCApp({ projectId: world.p1, name: 'Key app', redirectUris: ['https://a.example/cb'], authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT })
    .then((r) => r.appId));

let matrixRole: Promise<unknown> | undefined;
/** A new human user of org A (SetPassword and AddUserGrant need one per cell). */
async function freshHumanInA(): Promise<string> {
  const { userId } = await kh.client(UserService, 'grpc', kh.adminToken).addHumanUser({
    username: unique('human'),
    organization: { orgId: world.orgA },
    profile: { givenName: 'G', familyName: 'F' },
    email: { email: 'h@example.com' },
  });
  return userId;
}

/** A new machine user of org A holding ORG_USER_MANAGER there (UpdateOrgMember, RemoveOrgMember). */
async function freshOrgMember(): Promise<string> {
  const { userId } = await adminA().addMachineUser({ userName: unique('org-member'), name: 'member' });
  await adminA().addOrgMember({ userId, roles: ['ORG_USER_MANAGER'] });
  return userId;
}

/** A new machine user of org A holding PROJECT_OWNER on P1 (UpdateProjectMember, RemoveProjectMember). */
async function freshProjectMember(): Promise<string> {
  const { userId } = await adminA().addMachineUser({ userName: unique('project-member'), name: 'member' });
  await adminA().addProjectMember({ projectId: world.p1, userId, roles: ['PROJECT_OWNER'] });
  return userId;
}

/** A new project of org A with the role 'lent' (AddProjectGrant and the grant's lifecycle need one per cell). */
async function grantableProject(): Promise<string> {
  const { id } = await adminA().addProject({ name: unique('lent-project') });
  await adminA().addProjectRole({ projectId: id, roleKey: 'lent', displayName: 'Lent' });
  return id;
}

let p1Lent: Promise<string> | undefined;
/** The project granted to org B with the role 'lent' (made on P1 once, for GetProjectGrantByID). */
async function lentProject(projectId: string): Promise<{ projectId: string; grantId: string }> {
  if (projectId === world.p1) await adminA().addProjectRole({ projectId, roleKey: 'lent', displayName: 'Lent' });
  const { grantId } = await adminA().addProjectGrant({ projectId, grantedOrgId: world.orgB, roleKeys: ['lent'] });
  return { projectId, grantId };
}

interface Row {
  rpc: string;
  call: (c: Clients) => Promise<unknown>;
  /** Prepares a fresh target for a cell, before the call (with admin rights). */
  prepare?: () => Promise<(c: Clients) => Promise<unknown>>;
  expect: Record<CallerKind, Outcome>;
}

/** The usual shapes: management in org A's context; user-service on user T. */
const inOrgA = (ok: CallerKind[]): Record<CallerKind, Outcome> => ({
  none: U,
  expired: U,
  otherOrgOwner: N, // its own context is org B, where P1 does not exist
  otherOrgOwnerNamingA: P, // no role in A
  otherProjectOwner: P,
  projectOwner: P,
  plainUser: P,
  self: P,
  orgOwner: P,
  instanceOwner: P,
  ...Object.fromEntries(ok.map((k) => [k, 'OK'])),
});
const onUserT = (ok: CallerKind[]): Record<CallerKind, Outcome> => ({
  none: U,
  expired: U,
  // T is a user of A, where B's owner holds nothing: not found, as if T did not
  // exist (user-service calls take no org context, so naming A changes nothing).
  otherOrgOwner: N,
  otherOrgOwnerNamingA: N,
  otherProjectOwner: P,
  projectOwner: P,
  plainUser: P,
  self: P,
  orgOwner: P,
  instanceOwner: P,
  ...Object.fromEntries(ok.map((k) => [k, 'OK'])),
});
/** As onUserT, where the callers the rule lets through get `answer` instead of OK. */
const onUserTAnswering = (answer: Outcome, ok: CallerKind[]): Record<CallerKind, Outcome> => ({ ...onUserT([]), ...Object.fromEntries(ok.map((k) => [k, answer])) });
const anyValidToken: Record<CallerKind, Outcome> = { ...Object.fromEntries(CALLERS.map((k) => [k, 'OK'])), none: U, expired: U } as Record<CallerKind, Outcome>;

/** A provider's settings for the rows that add or update one (every call its own name). */
const PRESETS = ['Google', 'GitHub', 'GitLab', 'AzureAD'] as const;
const PRESET_IDP = () => ({ name: unique('Preset'), clientId: 'matrix-client', clientSecret: 'matrix-secret', scopes: [] as string[] });
/** The preset calls by name (the same shape on the admin and management clients). */
type PresetCalls = Record<string, (req: Record<string, unknown>) => Promise<{ id: string }>>;
const OIDC_IDP = () => ({ name: unique('Upstream'), issuer: 'https://idp.example.com', clientId: 'matrix-client', clientSecret: 'matrix-secret', scopes: ['openid'] });
const OAUTH_IDP = () => ({
  name: unique('OAuth upstream'),
  clientId: 'matrix-client',
  clientSecret: 'matrix-secret',
  authorizationEndpoint: 'https://oauth.example.com/authorize',
  tokenEndpoint: 'https://oauth.example.com/token',
  userEndpoint: 'https://oauth.example.com/user',
  idAttribute: 'id',
  scopes: ['read:user'],
});
const instanceAdmin = () => kh.client(AdminService, 'grpc', kh.adminToken);
let orgAIdp: Promise<string> | undefined;
let instanceIdp: Promise<string> | undefined;
/** One provider of org A and one of the instance, for the rows that only read. */
const orgAProvider = () => (orgAIdp ??= adminA().addGenericOIDCProvider(OIDC_IDP()).then((r) => r.id));
const instanceProvider = () => (instanceIdp ??= instanceAdmin().addGenericOIDCProvider(OIDC_IDP()).then((r) => r.id));
/** The admin API's instance-wide calls: the instance owner only. */
const instanceOnly: Record<CallerKind, Outcome> = { ...Object.fromEntries(CALLERS.map((k) => [k, P])), none: U, expired: U, instanceOwner: 'OK' } as Record<CallerKind, Outcome>;

const ROWS: Row[] = [
  {
    rpc: 'management.Healthz',
    call: (c) => c.mgmt.healthz({}),
    // Public: even without a token, even with an expired one.
    expect: Object.fromEntries(CALLERS.map((k) => [k, 'OK'])) as Record<CallerKind, Outcome>,
  },
  {
    rpc: 'management.AddOIDCApp',
    call: (c) => c.mgmt.addOIDCApp({ projectId: world.p1, name: unique('app'), redirectUris: ['https://a.example/cb'] }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.GetAppByID',
    call: (c) => c.mgmt.getAppByID({ projectId: world.p1, appId: world.app1 }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ListApps',
    call: (c) => c.mgmt.listApps({ projectId: world.p1 }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.RegenerateOIDCClientSecret',
    call: (c) => c.mgmt.regenerateOIDCClientSecret({ projectId: world.p1, appId: world.app1 }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.RemoveApp',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { appId } = await adminA().addOIDCApp({ projectId: world.p1, name: unique('doomed'), redirectUris: ['https://a.example/cb'] });
      return (c) => c.mgmt.removeApp({ projectId: world.p1, appId });
    },
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.UpdateApp',
    call: (c) => c.mgmt.updateApp({ projectId: world.p1, appId: world.app1, name: unique('renamed') }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.UpdateOIDCAppConfig',
    call: (c) => c.mgmt.updateOIDCAppConfig({ projectId: world.p1, appId: world.app1, redirectUris: ['https://a.example/cb'] }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.DeactivateApp',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { appId } = await adminA().addOIDCApp({ projectId: world.p1, name: unique('to-deactivate'), redirectUris: ['https://a.example/cb'] });
      return (c) => c.mgmt.deactivateApp({ projectId: world.p1, appId });
    },
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ReactivateApp',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { appId } = await adminA().addOIDCApp({ projectId: world.p1, name: unique('to-reactivate'), redirectUris: ['https://a.example/cb'] });
      await adminA().deactivateApp({ projectId: world.p1, appId });
      return (c) => c.mgmt.reactivateApp({ projectId: world.p1, appId });
    },
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    // Tokens for Keyhold's own API act as whoever signs in: only the instance owner lets an app have them,
    // not the app's org or project owner (who may create and edit it).
    rpc: 'management.SetAppAPIAccess',
    // (false: app 1 stays an app its owners may edit; the allowed case is the API audience's, below.)
    call: (c) => c.mgmt.setAppAPIAccess({ projectId: world.p1, appId: world.app1, allowed: false }),
    expect: inOrgA(['instanceOwner']),
  },
  {
    rpc: 'management.AddProject',
    call: (c) => c.mgmt.addProject({ name: unique('project') }),
    // B's owner creates one in its own org B.
    expect: { ...inOrgA(['orgOwner', 'instanceOwner', 'otherOrgOwner']) },
  },
  {
    rpc: 'management.GetProjectByID',
    call: (c) => c.mgmt.getProjectByID({ id: world.p1 }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ListProjects',
    call: (c) => c.mgmt.listProjects({}),
    // Lists what the caller may read (checked separately below); naming a foreign org is refused.
    expect: { ...anyValidToken, otherOrgOwnerNamingA: P },
  },
  {
    rpc: 'management.UpdateProject',
    // The same values: nothing written, but every check made.
    call: (c) => c.mgmt.updateProject({ id: world.p1, name: 'P1' }),
    // project.write: the org's owners, not a project's (as AddProject).
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.DeactivateProject',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { id } = await adminA().addProject({ name: unique('to-deactivate') });
      return (c) => c.mgmt.deactivateProject({ id });
    },
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ReactivateProject',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { id } = await adminA().addProject({ name: unique('to-reactivate') });
      await adminA().deactivateProject({ id });
      return (c) => c.mgmt.reactivateProject({ id });
    },
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.RemoveProject',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { id } = await adminA().addProject({ name: unique('doomed-project') });
      return (c) => c.mgmt.removeProject({ id });
    },
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ListProjectRoles',
    call: (c) => c.mgmt.listProjectRoles({ projectId: world.p1 }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.UpdateProjectRole',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      await (matrixRole ??= adminA().addProjectRole({ projectId: world.p1, roleKey: 'matrix', displayName: 'Matrix' }));
      return (c) => c.mgmt.updateProjectRole({ projectId: world.p1, roleKey: 'matrix', displayName: 'Matrix' });
    },
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.RemoveProjectRole',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const roleKey = unique('doomed-role');
      await adminA().addProjectRole({ projectId: world.p1, roleKey, displayName: 'Doomed' });
      return (c) => c.mgmt.removeProjectRole({ projectId: world.p1, roleKey });
    },
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.AddProjectGrant',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const projectId = await grantableProject();
      return (c) => c.mgmt.addProjectGrant({ projectId, grantedOrgId: world.orgB, roleKeys: ['lent'] });
    },
    // project.grant.write: the project's org only (ORG_OWNER, IAM_OWNER); a PROJECT_OWNER does not lend it out.
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ListProjectGrants',
    call: (c) => c.mgmt.listProjectGrants({ projectId: world.p1 }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.GetProjectGrantByID',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const grantId = await (p1Lent ??= lentProject(world.p1).then((g) => g.grantId));
      return (c) => c.mgmt.getProjectGrantByID({ projectId: world.p1, grantId });
    },
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ListGrantedProjects',
    call: (c) => c.mgmt.listGrantedProjects({}),
    // project.read in the call's org, org-wide (B's owner: the projects granted to B).
    expect: { ...anyValidToken, otherOrgOwnerNamingA: P, otherProjectOwner: P, projectOwner: P, plainUser: P, self: P },
  },
  ...(['UpdateProjectGrant', 'DeactivateProjectGrant', 'ReactivateProjectGrant', 'RemoveProjectGrant'] as const).map(
    (rpc): Row => ({
      rpc: `management.${rpc}`,
      call: () => Promise.reject(new Error('prepared per cell')),
      prepare: async () => {
        const { projectId, grantId } = await lentProject(await grantableProject());
        if (rpc === 'ReactivateProjectGrant') await adminA().deactivateProjectGrant({ projectId, grantId });
        const ref = { projectId, grantId };
        return (c) =>
          rpc === 'UpdateProjectGrant'
            ? c.mgmt.updateProjectGrant({ ...ref, roleKeys: ['lent'] })
            : rpc === 'DeactivateProjectGrant'
              ? c.mgmt.deactivateProjectGrant(ref)
              : rpc === 'ReactivateProjectGrant'
                ? c.mgmt.reactivateProjectGrant(ref)
                : c.mgmt.removeProjectGrant(ref);
      },
      // As AddProjectGrant; B's owner in its own context: A's project is not found.
      expect: inOrgA(['orgOwner', 'instanceOwner']),
    }),
  ),
  {
    rpc: 'management.AddProjectMember',
    call: (c) => c.mgmt.addProjectMember({ projectId: world.p1, userId: world.member, roles: ['PROJECT_OWNER'] }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ListProjectMembers',
    call: (c) => c.mgmt.listProjectMembers({ projectId: world.p1 }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.UpdateProjectMember',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const userId = await freshProjectMember();
      return (c) => c.mgmt.updateProjectMember({ projectId: world.p1, userId, roles: ['PROJECT_OWNER'] });
    },
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.RemoveProjectMember',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const userId = await freshProjectMember();
      return (c) => c.mgmt.removeProjectMember({ projectId: world.p1, userId });
    },
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.AddProjectRole',
    call: (c) => c.mgmt.addProjectRole({ projectId: world.p1, roleKey: unique('role'), displayName: 'Role' }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.AddUserGrant',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      await (matrixRole ??= adminA().addProjectRole({ projectId: world.p1, roleKey: 'matrix', displayName: 'Matrix' }));
      const userId = await freshHumanInA();
      return (c) => c.mgmt.addUserGrant({ userId, projectId: world.p1, roleKeys: ['matrix'] });
    },
    // user.grant.write: ORG_OWNER (user.*), PROJECT_OWNER on the project, as in ZITADEL.
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ListUserGrants',
    call: (c) => c.mgmt.listUserGrants({}),
    // user.grant.read in the call's org (B's owner: B's grants; a project owner: its project's); none there is 403.
    expect: { ...anyValidToken, otherOrgOwnerNamingA: P, plainUser: P, self: P },
  },
  ...(['UpdateUserGrant', 'DeactivateUserGrant', 'ReactivateUserGrant', 'RemoveUserGrant'] as const).map(
    (rpc): Row => ({
      rpc: `management.${rpc}`,
      call: () => Promise.reject(new Error('prepared per cell')),
      prepare: async () => {
        await (matrixRole ??= adminA().addProjectRole({ projectId: world.p1, roleKey: 'matrix', displayName: 'Matrix' }));
        const userId = await freshHumanInA();
        const { userGrantId: grantId } = await adminA().addUserGrant({ userId, projectId: world.p1, roleKeys: ['matrix'] });
        if (rpc === 'ReactivateUserGrant') await adminA().deactivateUserGrant({ userId, grantId });
        const ref = { userId, grantId };
        return (c) =>
          rpc === 'UpdateUserGrant'
            ? c.mgmt.updateUserGrant({ ...ref, roleKeys: ['matrix'] })
            : rpc === 'DeactivateUserGrant'
              ? c.mgmt.deactivateUserGrant(ref)
              : rpc === 'ReactivateUserGrant'
                ? c.mgmt.reactivateUserGrant(ref)
                : c.mgmt.removeUserGrant(ref);
      },
      // As AddUserGrant (user.grant.write on the grant's project); B's owner in its own context: A's grant is not found.
      expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
    }),
  ),
  {
    rpc: 'management.AddMachineUser',
    call: (c) => c.mgmt.addMachineUser({ userName: unique('machine'), name: 'Machine' }),
    expect: inOrgA(['orgOwner', 'instanceOwner', 'otherOrgOwner']),
  },
  {
    rpc: 'management.AddPersonalAccessToken',
    call: (c) => c.mgmt.addPersonalAccessToken({ userId: world.target.userId }),
    // user.write, not "or self" (design §3): T cannot mint itself tokens.
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ListPersonalAccessTokens',
    call: (c) => c.mgmt.listPersonalAccessTokens({ userId: world.target.userId }),
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.RemovePersonalAccessToken',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { tokenId } = await adminA().addPersonalAccessToken({ userId: world.target.userId });
      return (c) => c.mgmt.removePersonalAccessToken({ userId: world.target.userId, tokenId });
    },
    // user.write, as for adding one: T cannot revoke its own either.
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  // A user's metadata: writes need user.write (and containment), reads user.read, in the user's org.
  {
    rpc: 'management.SetUserMetadata',
    call: (c) => c.mgmt.setUserMetadata({ id: world.target.userId, key: 'matrix', value: new Uint8Array([1]) }),
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.BulkSetUserMetadata',
    call: (c) => c.mgmt.bulkSetUserMetadata({ id: world.target.userId, metadata: [{ key: 'matrix', value: new Uint8Array([2]) }] }),
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ListUserMetadata',
    call: (c) => c.mgmt.listUserMetadata({ id: world.target.userId }),
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.GetUserMetadata',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      await adminA().setUserMetadata({ id: world.target.userId, key: 'readable', value: new Uint8Array([3]) });
      return (c) => c.mgmt.getUserMetadata({ id: world.target.userId, key: 'readable' });
    },
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  ...(['RemoveUserMetadata', 'BulkRemoveUserMetadata'] as const).map(
    (rpc): Row => ({
      rpc: `management.${rpc}`,
      call: () => Promise.reject(new Error('prepared per cell')),
      prepare: async () => {
        const key = unique('doomed');
        await adminA().setUserMetadata({ id: world.target.userId, key, value: new Uint8Array([4]) });
        return (c) => (rpc === 'RemoveUserMetadata' ? c.mgmt.removeUserMetadata({ id: world.target.userId, key }) : c.mgmt.bulkRemoveUserMetadata({ id: world.target.userId, keys: [key] }));
      },
      expect: inOrgA(['orgOwner', 'instanceOwner']),
    }),
  ),
  // A machine user's client secret (as its PATs: user.write, and containment).
  {
    rpc: 'management.GenerateMachineSecret',
    call: (c) => c.mgmt.generateMachineSecret({ userId: world.target.userId }),
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.RemoveMachineSecret',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      await adminA().generateMachineSecret({ userId: world.target.userId });
      return (c) => c.mgmt.removeMachineSecret({ userId: world.target.userId });
    },
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  // A private_key_jwt app's keys (as its other writes: project.app.write / read).
  {
    rpc: 'management.AddAppKey',
    call: async (c) => c.mgmt.addAppKey({ projectId: world.p1, appId: await keyApp(), type: KeyType.JSON }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ListAppKeys',
    call: async (c) => c.mgmt.listAppKeys({ projectId: world.p1, appId: await keyApp() }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.RemoveAppKey',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const appId = await keyApp();
      const { id } = await adminA().addAppKey({ projectId: world.p1, appId, type: KeyType.JSON });
      return (c) => c.mgmt.removeAppKey({ projectId: world.p1, appId, keyId: id });
    },
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.AddOrgMember',
    call: (c) => c.mgmt.addOrgMember({ userId: world.member, roles: ['ORG_USER_MANAGER'] }),
    // Members may come from other orgs, but only from those the caller can see:
    // B's owner does not see A's users, so the member of A is not found in B.
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ListOrgMembers',
    call: (c) => c.mgmt.listOrgMembers({}),
    // B's owner in its own context lists B's members.
    expect: inOrgA(['orgOwner', 'instanceOwner', 'otherOrgOwner']),
  },
  {
    rpc: 'management.UpdateOrgMember',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const userId = await freshOrgMember();
      return (c) => c.mgmt.updateOrgMember({ userId, roles: ['ORG_OWNER'] });
    },
    // B's owner in its own context: no such member in B (404).
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.RemoveOrgMember',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const userId = await freshOrgMember();
      return (c) => c.mgmt.removeOrgMember({ userId });
    },
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'org.AddOrganization',
    call: (c) => c.org.addOrganization({ name: unique('org') }),
    expect: { ...inOrgA(['instanceOwner']), otherOrgOwner: P },
  },
  {
    rpc: 'user.AddHumanUser',
    call: (c) => c.user.addHumanUser({ username: unique('human'), profile: { givenName: 'G', familyName: 'F' }, email: { email: 'h@example.com' } }),
    expect: inOrgA(['orgOwner', 'instanceOwner', 'otherOrgOwner']),
  },
  {
    rpc: 'user.SetPassword',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const userId = await freshHumanInA();
      return (c) => c.user.setPassword({ userId, newPassword: { password: 'matrix password 1' } });
    },
    // A human of A other than T (T is a machine): `self` is another user here.
    expect: onUserT(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.PasswordReset',
    // Let through, then refused: T is a machine, which has no password to reset.
    call: (c) => c.user.passwordReset({ userId: world.target.userId, medium: { case: 'returnCode', value: {} } }),
    expect: onUserTAnswering('FAILED_PRECONDITION', ['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.GetUserByID',
    call: (c) => c.user.getUserByID({ userId: world.target.userId }),
    expect: onUserT(['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.RegisterU2F',
    call: (c) => c.user.registerU2F({ userId: world.target.userId }),
    expect: onUserT(['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.VerifyU2FRegistration',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const reg = await newRegistration();
      const credential = createSoftAuthenticator().makeRegistration({ challenge: reg.challenge, origin: ORIGIN, rpId: reg.rpId });
      return (c) => c.user.verifyU2FRegistration({ userId: world.target.userId, u2fId: reg.u2fId, publicKeyCredential: credential as never, tokenName: 'key' });
    },
    expect: onUserT(['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.ListU2FTokens',
    call: (c) => c.user.listU2FTokens({ userId: world.target.userId }),
    expect: onUserT(['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.RemoveU2F',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { u2fId } = await newRegistration();
      return (c) => c.user.removeU2F({ userId: world.target.userId, u2fId });
    },
    expect: onUserT(['self', 'orgOwner', 'instanceOwner']),
  },
  // The target is a machine user: where the rule lets the caller through, a passkey is refused for it (USER_NOT_HUMAN).
  {
    rpc: 'user.RegisterPasskey',
    call: (c) => c.user.registerPasskey({ userId: world.target.userId }),
    expect: onUserTAnswering('FAILED_PRECONDITION', ['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.VerifyPasskeyRegistration',
    call: (c) => c.user.verifyPasskeyRegistration({ userId: world.target.userId, passkeyId: '1', publicKeyCredential: createSoftPasskey().register({ challenge: 'AAAA', rp: { id: 'localhost' }, user: { id: 'dQ' } }, ORIGIN) as never, passkeyName: 'passkey' }),
    expect: onUserTAnswering('FAILED_PRECONDITION', ['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.ListPasskeys',
    call: (c) => c.user.listPasskeys({ userId: world.target.userId }),
    expect: onUserT(['self', 'orgOwner', 'instanceOwner']),
  },
  // The target is a machine user: where the rule lets the caller through, an authenticator app is refused for it.
  {
    rpc: 'user.RegisterTOTP',
    call: (c) => c.user.registerTOTP({ userId: world.target.userId }),
    expect: onUserTAnswering('FAILED_PRECONDITION', ['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.VerifyTOTPRegistration',
    call: (c) => c.user.verifyTOTPRegistration({ userId: world.target.userId, code: '123456' }),
    // Let through, the call finds no registration to verify (a machine never has one).
    expect: onUserTAnswering('NOT_FOUND', ['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.RemoveTOTP',
    call: (c) => c.user.removeTOTP({ userId: world.target.userId }),
    expect: onUserTAnswering('NOT_FOUND', ['self', 'orgOwner', 'instanceOwner']),
  },
  // Invitations: the credential writes' rule; the target is a machine user, so where the rule lets
  // the caller through, it has no invitation (USER_NOT_HUMAN), and mail is not configured here.
  {
    rpc: 'user.CreateInviteCode',
    call: (c) => c.user.createInviteCode({ userId: world.target.userId, verification: { case: 'returnCode', value: {} } }),
    expect: onUserTAnswering('FAILED_PRECONDITION', ['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.ResendInviteCode',
    call: (c) => c.user.resendInviteCode({ userId: world.target.userId }),
    expect: onUserTAnswering('FAILED_PRECONDITION', ['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.VerifyInviteCode',
    // Let through, the code is wrong (a machine never has one).
    call: (c) => c.user.verifyInviteCode({ userId: world.target.userId, verificationCode: 'aaaaa-aaaaa-aaaaa-aaaaa' }),
    expect: onUserTAnswering('INVALID_ARGUMENT', ['self', 'orgOwner', 'instanceOwner']),
  },
  // Address verification: the user itself or user.write under containment; the target is a machine
  // user, so where the rule lets the caller through it has no address to verify (USER_NOT_HUMAN).
  {
    rpc: 'user.SetEmail',
    call: (c) => c.user.setEmail({ userId: world.target.userId, email: 'matrix@example.com', verification: { case: 'returnCode', value: {} } }),
    expect: onUserTAnswering('FAILED_PRECONDITION', ['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.ResendEmailCode',
    call: (c) => c.user.resendEmailCode({ userId: world.target.userId, verification: { case: 'returnCode', value: {} } }),
    expect: onUserTAnswering('FAILED_PRECONDITION', ['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.VerifyEmail',
    call: (c) => c.user.verifyEmail({ userId: world.target.userId, verificationCode: 'aaaa-aaaa' }),
    expect: onUserTAnswering('FAILED_PRECONDITION', ['self', 'orgOwner', 'instanceOwner']),
  },
  // Login sessions: the user itself, or user.read (list) / user.write (remove) with containment.
  {
    rpc: 'user.ListUserSessions',
    call: (c) => c.user.listUserSessions({ userId: world.target.userId }),
    expect: onUserT(['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.RemoveUserSession',
    // Let through, the call finds no such session (nobody signed in as T).
    call: (c) => c.user.removeUserSession({ userId: world.target.userId, sessionId: 'no-such-session' }),
    expect: onUserTAnswering('NOT_FOUND', ['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.RemoveOtherUserSessions',
    call: (c) => c.user.removeOtherUserSessions({ userId: world.target.userId, keepSessionId: 'no-such-session' }),
    expect: onUserTAnswering('NOT_FOUND', ['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.RemovePasskey',
    // Let through, the call finds no passkey to remove (a machine never has one).
    call: (c) => c.user.removePasskey({ userId: world.target.userId, passkeyId: '1' }),
    expect: onUserTAnswering('NOT_FOUND', ['self', 'orgOwner', 'instanceOwner']),
  },
  {
    // Recovery codes: self only — an admin is refused (403) as anyone else.
    rpc: 'user.GenerateRecoveryCodes',
    call: (c) => c.user.generateRecoveryCodes({ userId: world.target.userId }),
    expect: onUserT(['self']),
  },
  {
    rpc: 'user.RemoveAllU2F',
    call: (c) => c.user.removeAllU2F({ userId: world.target.userId }),
    expect: onUserT(['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.ListUsers',
    call: (c) => c.user.listUsers({}),
    // Lists what the caller may read (itself at least); v2 takes no org context.
    expect: anyValidToken,
  },
  {
    rpc: 'org.ListOrganizations',
    call: (c) => c.org.listOrganizations({}),
    // Lists the orgs where the caller holds org.read (none is an empty list).
    expect: anyValidToken,
  },
  {
    rpc: 'org.GetOrganization',
    call: (c) => c.org.getOrganization({ organizationId: world.orgA }),
    // org.read in A, else "not found" as for no org (v2: no org context).
    expect: { ...Object.fromEntries(CALLERS.map((k) => [k, N])), none: U, expired: U, orgOwner: 'OK', instanceOwner: 'OK' } as Record<CallerKind, Outcome>,
  },
  {
    rpc: 'management.GetMyOrganization',
    call: (c) => c.mgmt.getMyOrganization({}),
    // The org the call acts in: its own, or one named where it holds a role.
    expect: { ...anyValidToken, otherOrgOwnerNamingA: P },
  },
  {
    rpc: 'user.UpdateHumanUser',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { userId } = await kh.client(UserService, 'grpc', kh.adminToken).addHumanUser({ username: unique('h'), organization: { orgId: world.orgA }, profile: { givenName: 'G', familyName: 'F' }, email: { email: 'h@example.com' } });
      return (c) => c.user.updateHumanUser({ userId, profile: { givenName: 'New', familyName: 'Name' } });
    },
    expect: onUserT(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.DeactivateUser',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { userId } = await adminA().addMachineUser({ userName: unique('lifecycle'), name: 'L' });
      return (c) => c.user.deactivateUser({ userId });
    },
    expect: onUserT(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.ReactivateUser',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { userId } = await adminA().addMachineUser({ userName: unique('lifecycle'), name: 'L' });
      await kh.client(UserService, 'grpc', kh.adminToken).deactivateUser({ userId });
      return (c) => c.user.reactivateUser({ userId });
    },
    expect: onUserT(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.LockUser',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { userId } = await adminA().addMachineUser({ userName: unique('lifecycle'), name: 'L' });
      return (c) => c.user.lockUser({ userId });
    },
    expect: onUserT(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.UnlockUser',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { userId } = await adminA().addMachineUser({ userName: unique('lifecycle'), name: 'L' });
      await kh.client(UserService, 'grpc', kh.adminToken).lockUser({ userId });
      return (c) => c.user.unlockUser({ userId });
    },
    expect: onUserT(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.RemoveUser',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { userId } = await adminA().addMachineUser({ userName: unique('lifecycle'), name: 'L' });
      return (c) => c.user.removeUser({ userId });
    },
    expect: onUserT(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'admin.ListEvents',
    call: (c) => c.admin.listEvents({ limit: 5 }),
    // org.events.read: the instance owner all, an org owner its org's (B's owner: B's); no org context.
    expect: { ...inOrgA(['orgOwner', 'instanceOwner']), otherOrgOwner: 'OK', otherOrgOwnerNamingA: 'OK' },
  },
  {
    rpc: 'auth.GetMyUser',
    call: (c) => c.auth.getMyUser({}),
    expect: anyValidToken,
  },
  {
    // Every caller may end its own sessions (a PAT caller has none; its token stays).
    rpc: 'auth.RemoveMySessions',
    call: (c) => c.auth.removeMySessions({}),
    expect: anyValidToken,
  },
  // The login policy of the org the call acts in (org.policy.read / org.policy.write);
  // B's owner in its own context reads and writes B's. forceMfa stays off: no login here needs a key.
  {
    rpc: 'management.GetLoginPolicy',
    call: (c) => c.mgmt.getLoginPolicy({}),
    expect: { ...inOrgA(['orgOwner', 'instanceOwner']), otherOrgOwner: 'OK' },
  },
  {
    rpc: 'management.AddCustomLoginPolicy',
    call: (c) => c.mgmt.addCustomLoginPolicy({ forceMfa: false }),
    // Once per org: A's owner adds it (callers run in order), the instance owner then finds it there.
    expect: { ...inOrgA(['orgOwner']), otherOrgOwner: 'OK', instanceOwner: 'ALREADY_EXISTS' },
  },
  {
    rpc: 'management.UpdateCustomLoginPolicy',
    call: (c) => c.mgmt.updateCustomLoginPolicy({ forceMfa: false, passwordlessType: PasswordlessType.ALLOWED, allowUsernamePassword: true }),
    expect: { ...inOrgA(['orgOwner', 'instanceOwner']), otherOrgOwner: 'OK' },
  },
  // Identity providers: an org's own (org.idp.*: ORG_OWNER, IAM_OWNER) in the org the call acts in, the
  // instance's (iam.idp.*: IAM_OWNER) on the admin API. B's owner acts in B (its own list, A's providers not found).
  {
    rpc: 'management.AddGenericOIDCProvider',
    call: (c) => c.mgmt.addGenericOIDCProvider(OIDC_IDP()),
    expect: { ...inOrgA(['orgOwner', 'instanceOwner']), otherOrgOwner: 'OK' },
  },
  {
    rpc: 'management.AddGenericOAuthProvider',
    call: (c) => c.mgmt.addGenericOAuthProvider(OAUTH_IDP()),
    expect: { ...inOrgA(['orgOwner', 'instanceOwner']), otherOrgOwner: 'OK' },
  },
  {
    rpc: 'management.UpdateGenericOIDCProvider',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { id } = await adminA().addGenericOIDCProvider(OIDC_IDP());
      return (c) => c.mgmt.updateGenericOIDCProvider({ ...OIDC_IDP(), id });
    },
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.UpdateGenericOAuthProvider',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { id } = await adminA().addGenericOAuthProvider(OAUTH_IDP());
      return (c) => c.mgmt.updateGenericOAuthProvider({ ...OAUTH_IDP(), id });
    },
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.GetProviderByID',
    call: async (c) => c.mgmt.getProviderByID({ id: await orgAProvider() }),
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'management.ListProviders',
    call: (c) => c.mgmt.listProviders({}),
    expect: { ...inOrgA(['orgOwner', 'instanceOwner']), otherOrgOwner: 'OK' },
  },
  {
    rpc: 'management.DeleteProvider',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { id } = await adminA().addGenericOIDCProvider(OIDC_IDP());
      return (c) => c.mgmt.deleteProvider({ id });
    },
    expect: inOrgA(['orgOwner', 'instanceOwner']),
  },
  { rpc: 'admin.AddGenericOIDCProvider', call: (c) => c.admin.addGenericOIDCProvider(OIDC_IDP()), expect: instanceOnly },
  { rpc: 'admin.AddGenericOAuthProvider', call: (c) => c.admin.addGenericOAuthProvider(OAUTH_IDP()), expect: instanceOnly },
  // The presets (Google, GitHub, GitLab, Entra ID): the generic calls' rules, on both APIs.
  ...PRESETS.flatMap((p): Row[] => [
    { rpc: `management.Add${p}Provider`, call: (c) => (c.mgmt as never as PresetCalls)[`add${p}Provider`](PRESET_IDP()), expect: { ...inOrgA(['orgOwner', 'instanceOwner']), otherOrgOwner: 'OK' } },
    {
      rpc: `management.Update${p}Provider`,
      call: () => Promise.reject(new Error('prepared per cell')),
      prepare: async () => {
        const { id } = await (adminA() as never as PresetCalls)[`add${p}Provider`](PRESET_IDP());
        return (c) => (c.mgmt as never as PresetCalls)[`update${p}Provider`]({ ...PRESET_IDP(), id });
      },
      expect: inOrgA(['orgOwner', 'instanceOwner']),
    },
    { rpc: `admin.Add${p}Provider`, call: (c) => (c.admin as never as PresetCalls)[`add${p}Provider`](PRESET_IDP()), expect: instanceOnly },
    {
      rpc: `admin.Update${p}Provider`,
      call: () => Promise.reject(new Error('prepared per cell')),
      prepare: async () => {
        const { id } = await (instanceAdmin() as never as PresetCalls)[`add${p}Provider`](PRESET_IDP());
        return (c) => (c.admin as never as PresetCalls)[`update${p}Provider`]({ ...PRESET_IDP(), id });
      },
      expect: instanceOnly,
    },
  ]),
  {
    rpc: 'admin.UpdateGenericOIDCProvider',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { id } = await instanceAdmin().addGenericOIDCProvider(OIDC_IDP());
      return (c) => c.admin.updateGenericOIDCProvider({ ...OIDC_IDP(), id });
    },
    expect: instanceOnly,
  },
  {
    rpc: 'admin.UpdateGenericOAuthProvider',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { id } = await instanceAdmin().addGenericOAuthProvider(OAUTH_IDP());
      return (c) => c.admin.updateGenericOAuthProvider({ ...OAUTH_IDP(), id });
    },
    expect: instanceOnly,
  },
  {
    rpc: 'admin.GetProviderByID',
    call: async (c) => c.admin.getProviderByID({ id: await instanceProvider() }),
    expect: instanceOnly,
  },
  { rpc: 'admin.ListProviders', call: (c) => c.admin.listProviders({}), expect: instanceOnly },
  {
    rpc: 'admin.DeleteProvider',
    call: () => Promise.reject(new Error('prepared per cell')),
    prepare: async () => {
      const { id } = await instanceAdmin().addGenericOIDCProvider(OIDC_IDP());
      return (c) => c.admin.deleteProvider({ id });
    },
    expect: instanceOnly,
  },
  // Links of T (a machine user): the credentials' rule; where it lets the caller through, T is refused as no human.
  {
    rpc: 'user.AddIDPLink',
    // Never the user for itself: a named subject proves nothing.
    call: (c) => c.user.addIDPLink({ userId: world.target.userId, idpLink: { idpId: 'no-such-idp', userId: 'upstream-subject' } }),
    expect: onUserTAnswering('FAILED_PRECONDITION', ['orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.ListIDPLinks',
    call: (c) => c.user.listIDPLinks({ userId: world.target.userId }),
    expect: onUserT(['self', 'orgOwner', 'instanceOwner']),
  },
  {
    rpc: 'user.RemoveIDPLink',
    // Let through, the call finds no such link.
    call: (c) => c.user.removeIDPLink({ userId: world.target.userId, idpId: 'no-such-idp', linkedUserId: 'upstream-subject' }),
    expect: onUserTAnswering('NOT_FOUND', ['self', 'orgOwner', 'instanceOwner']),
  },
  // The lockout policy: the same org and permissions as the login policy. 0 (no lock): no login here is locked.
  {
    rpc: 'management.GetLockoutPolicy',
    call: (c) => c.mgmt.getLockoutPolicy({}),
    expect: { ...inOrgA(['orgOwner', 'instanceOwner']), otherOrgOwner: 'OK' },
  },
  {
    rpc: 'management.AddCustomLockoutPolicy',
    call: (c) => c.mgmt.addCustomLockoutPolicy({ maxPasswordAttempts: 0 }),
    expect: { ...inOrgA(['orgOwner']), otherOrgOwner: 'OK', instanceOwner: 'ALREADY_EXISTS' },
  },
  {
    rpc: 'management.UpdateCustomLockoutPolicy',
    call: (c) => c.mgmt.updateCustomLockoutPolicy({ maxPasswordAttempts: 0 }),
    expect: { ...inOrgA(['orgOwner', 'instanceOwner']), otherOrgOwner: 'OK' },
  },
  {
    rpc: 'management.UpdateOrg',
    // The org's own name again: nothing written, every check made (B's owner: B's name, in B).
    call: async (c) => c.mgmt.updateOrg({ name: (await c.mgmt.getMyOrganization({})).name }),
    expect: { ...inOrgA(['orgOwner', 'instanceOwner']), otherOrgOwner: 'OK' },
  },
  {
    rpc: 'management.DeactivateOrg',
    call: () => Promise.reject(new Error('prepared per cell')),
    // Each cell starts with A and B active (B's owner deactivates B, in its own context).
    prepare: async () => {
      await Promise.all([world.orgA, world.orgB].map((org) => kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(org)).reactivateOrg({}).catch(() => undefined)));
      return (c) => c.mgmt.deactivateOrg({});
    },
    expect: { ...inOrgA(['orgOwner', 'instanceOwner']), otherOrgOwner: 'OK' },
  },
  {
    rpc: 'management.ReactivateOrg',
    call: () => Promise.reject(new Error('prepared per cell')),
    // Each cell starts with A deactivated: A's users' tokens are refused then, so only an
    // instance owner reactivates it; B is active, so its owner's call is a precondition's refusal.
    prepare: async () => {
      await adminA().deactivateOrg({}).catch(() => undefined);
      return (c) => c.mgmt.reactivateOrg({});
    },
    expect: {
      none: U,
      expired: U,
      otherOrgOwner: 'FAILED_PRECONDITION',
      otherOrgOwnerNamingA: P,
      otherProjectOwner: U,
      projectOwner: U,
      plainUser: U,
      self: U,
      orgOwner: U,
      instanceOwner: 'OK',
    },
  },
  {
    rpc: 'management.RemoveOrg',
    call: () => Promise.reject(new Error('prepared per cell')),
    // A and B must stay: each holds a user who is the last ORG_OWNER of an org of its own
    // (added here, the last row, so no other row sees those roles), so a permitted removal is
    // refused after its permission check (LAST_ORG_OWNER) and an unpermitted one before. A's
    // owner does not contain that user (it holds no role in the user's other org): 403
    // PRIVILEGE_ESCALATION before the last-owner rule; B's owner is that user of B itself.
    prepare: async () => {
      lastOwners ??= (async () => {
        const orgs = kh.client(OrganizationService);
        await orgs.addOrganization({ name: unique('kept-by-a'), admins: [{ userId: world.target.userId, roles: ['ORG_OWNER'] }] });
        await orgs.addOrganization({ name: unique('kept-by-b'), admins: [{ userId: world.ownerB, roles: ['ORG_OWNER'] }] });
      })();
      await lastOwners;
      return (c) => c.mgmt.removeOrg({});
    },
    expect: { ...inOrgA([]), instanceOwner: 'FAILED_PRECONDITION', otherOrgOwner: 'FAILED_PRECONDITION' },
  },
];
let lastOwners: Promise<void> | undefined;

async function outcome(call: Promise<unknown>): Promise<Outcome> {
  try {
    await call;
    return 'OK';
  } catch (e) {
    const err = ConnectError.from(e);
    return Code[err.code].replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
  }
}

beforeAll(async () => {
  // A one-second device poll interval keeps the API audience's device cells fast.
  kh = await startTestKeyhold({ env: { KEYHOLD_WEBAUTHN_RP_IDS: 'login.example', KEYHOLD_WEBAUTHN_ORIGINS: ORIGIN, KEYHOLD_DEVICE_POLL_INTERVAL_SECONDS: '1' } });
  const orgs = kh.client(OrganizationService);
  world.orgA = (await orgs.addOrganization({ name: 'Org A' })).organizationId;
  world.orgB = (await orgs.addOrganization({ name: 'Org B' })).organizationId;
  const inA = adminA();
  const inB = kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(world.orgB));
  const machine = async (mgmt: Client<typeof ManagementService>, name: string, orgRoles: string[] = [], expiresAt?: number) => {
    const { userId } = await mgmt.addMachineUser({ userName: unique(name), name });
    if (orgRoles.length) await mgmt.addOrgMember({ userId, roles: orgRoles });
    const { token } = await mgmt.addPersonalAccessToken({ userId, expirationDate: expiresAt ? timestampFromDate(new Date(expiresAt)) : undefined });
    return { userId, token };
  };
  // The expiring token first: it runs out while the rest is built. One instant is both the
  // token's expiry and what the wait below waits out (the user and membership come first).
  const expiresAt = Date.now() + 3000;
  const expired = await machine(inA, 'expired-owner', ['ORG_OWNER'], expiresAt);
  world.p1 = (await inA.addProject({ name: 'P1' })).id;
  world.p2 = (await inA.addProject({ name: 'P2' })).id;
  const [ownerA, ownerB, plain, target, p1Owner, p2Owner, member] = await Promise.all([
    machine(inA, 'owner-a', ['ORG_OWNER']),
    machine(inB, 'owner-b', ['ORG_OWNER']),
    machine(inA, 'plain'),
    machine(inA, 'target'),
    machine(inA, 'p1-owner'),
    machine(inA, 'p2-owner'),
    machine(inA, 'member'),
  ]);
  await inA.addProjectMember({ projectId: world.p1, userId: p1Owner.userId, roles: ['PROJECT_OWNER'] });
  await inA.addProjectMember({ projectId: world.p2, userId: p2Owner.userId, roles: ['PROJECT_OWNER'] });
  world.app1 = (await inA.addOIDCApp({ projectId: world.p1, name: 'App 1', redirectUris: ['https://a.example/cb'] })).appId;
  world.target = target;
  world.member = member.userId;
  world.ownerB = ownerB.userId;
  world.tokens = {
    expired: expired.token,
    otherOrgOwner: ownerB.token,
    otherOrgOwnerNamingA: ownerB.token,
    otherProjectOwner: p2Owner.token,
    projectOwner: p1Owner.token,
    plainUser: plain.token,
    self: target.token,
    orgOwner: ownerA.token,
  };
  const wait = expiresAt + 100 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}, 60_000);
afterAll(async () => kh?.close());

describe('authorization matrix (gRPC)', () => {
  it(`${ROWS.length} RPCs × ${CALLERS.length} callers get exactly the designed code`, async () => {
    const got: Record<string, Record<CallerKind, Outcome>> = {};
    const want: Record<string, Record<CallerKind, Outcome>> = {};
    for (const row of ROWS) {
      got[row.rpc] = {} as Record<CallerKind, Outcome>;
      want[row.rpc] = row.expect;
      for (const kind of CALLERS) {
        const call = row.prepare ? await row.prepare() : row.call;
        got[row.rpc][kind] = await outcome(call(clientsFor(kind)));
      }
    }
    const short = (o: Outcome) => ({ OK: 'ok', UNAUTHENTICATED: '401', PERMISSION_DENIED: '403', NOT_FOUND: '404' })[o] ?? o;
    console.log(
      `[authz] ${ROWS.length * CALLERS.length} cells\n` +
        ['rpc'.padEnd(38) + CALLERS.map((k) => k.slice(0, 9).padStart(10)).join(''), ...ROWS.map((r) => r.rpc.padEnd(38) + CALLERS.map((k) => short(got[r.rpc][k]).padStart(10)).join(''))].join('\n'),
    );
    expect(got).toEqual(want);
  }, 240_000); // 610 calls, one after another: minutes on a machine shared by several test runs

  it('the matrix covers every RPC of the five services', () => {
    const all = [ManagementService, UserService, OrganizationService, AuthService, AdminService].flatMap((s) => s.methods.map((m) => `${s.typeName.split('.')[1]}.${m.name}`));
    expect(ROWS.map((r) => r.rpc).sort()).toEqual(all.sort());
  });

  it('ListProjects shows each caller only what it may read', async () => {
    const names = async (kind: CallerKind) => (await clientsFor(kind).mgmt.listProjects({})).result.map((p) => p.id);
    expect(await names('plainUser')).toEqual([]);
    expect(await names('otherProjectOwner')).toEqual([world.p2]);
    expect(await names('projectOwner')).toEqual([world.p1]);
    expect(await names('orgOwner')).toEqual(expect.arrayContaining([world.p1, world.p2]));
    expect(await names('otherOrgOwner')).not.toContain(world.p1);
  });

  it('ListUserGrants shows each caller only the grants it may read', async () => {
    await (matrixRole ??= adminA().addProjectRole({ projectId: world.p1, roleKey: 'matrix', displayName: 'Matrix' }));
    const userId = await freshHumanInA();
    const { userGrantId } = await adminA().addUserGrant({ userId, projectId: world.p1, roleKeys: ['matrix'] });
    const query = { queries: [{ query: { case: 'userIdQuery' as const, value: { userId } } }] };
    const ids = async (kind: CallerKind) => (await clientsFor(kind).mgmt.listUserGrants(query)).result.map((g) => g.id);
    expect(await ids('projectOwner')).toEqual([userGrantId]);
    expect(await ids('orgOwner')).toEqual([userGrantId]);
    expect(await ids('otherProjectOwner')).toEqual([]);
    expect(await ids('otherOrgOwner')).toEqual([]);
  });

  it('a denied or unauthenticated call changes nothing it was aimed at', async () => {
    const before = (await kh.client(UserService, 'grpc', kh.adminToken).listU2FTokens({ userId: world.target.userId })).result.length;
    const apps = (await adminA().listApps({ projectId: world.p1 })).result.length;
    for (const kind of ['none', 'expired', 'plainUser', 'otherProjectOwner', 'otherOrgOwnerNamingA'] as const) {
      await outcome(clientsFor(kind).user.registerU2F({ userId: world.target.userId }));
      await outcome(clientsFor(kind).mgmt.addOIDCApp({ projectId: world.p1, name: unique('denied'), redirectUris: ['https://a.example/cb'] }));
    }
    expect((await kh.client(UserService, 'grpc', kh.adminToken).listU2FTokens({ userId: world.target.userId })).result.length).toBe(before);
    expect((await adminA().listApps({ projectId: world.p1 })).result.length).toBe(apps);
  });
});

// --- Privilege containment ----------------------------------------------------
// Who may create a credential for, or grant a role to, whom. The world lives in
// the instance's first org D (where the bootstrap admin, the only IAM_OWNER, is
// a user), plus org B from above. Each caller kind × each target kind × each RPC
// that takes a user id, over gRPC and over REST, with the exact ErrorInfo reason.
// Targets: a human of D; a machine user of D with no role; the IAM_OWNER admin;
// an ORG_OWNER, an ORG_USER_MANAGER and a PROJECT_OWNER (of PD) of D; a machine
// user of D who is ORG_OWNER of B ("owner elsewhere"); a machine user of B.
// Callers: the admin; an ORG_OWNER, an ORG_USER_MANAGER, a PROJECT_OWNER (of PD)
// and a user without a role, all of D; and the target itself ("self"; a human
// has no token, since tokens are for machine users only: "–").
const C_CALLERS = ['iamOwner', 'orgOwner', 'userManager', 'projectOwner', 'noRole', 'self'] as const;
const C_TARGETS = ['human', 'machine', 'iamOwner', 'orgOwner', 'userManager', 'projectOwner', 'ownerElsewhere', 'otherOrg'] as const;
type CCaller = (typeof C_CALLERS)[number];
type CTarget = (typeof C_TARGETS)[number];
interface Principal {
  userId: string;
  /** Absent for human users (no PAT can be minted for them). */
  token?: string;
}

const OK = 'OK';
const PD = 'PERMISSION_DENIED';
const PE = 'PRIVILEGE_ESCALATION';
const NF = 'USER_NOT_FOUND';
const PM = 'PAT_ONLY_FOR_MACHINE_USERS';
const MS = 'MACHINE_SECRET_ONLY_FOR_MACHINE_USERS';
const NA = '–';
const SO = 'RECOVERY_CODES_SELF_ONLY';

const cw = {} as {
  orgD: string;
  pd: string;
  admin: Principal;
  callers: Record<Exclude<CCaller, 'self'>, Principal>;
  targets: Record<CTarget, Principal>;
};

const adminIn = (orgId: string) => kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(orgId));

/** A new principal of this kind, made by the admin (fresh ones for the member rows, which change their target). */
async function makeTarget(kind: CTarget): Promise<Principal> {
  if (kind === 'iamOwner') return cw.admin;
  if (kind === 'human') {
    const { userId } = await kh.client(UserService, 'grpc', kh.adminToken).addHumanUser({
      username: unique('human'),
      organization: { orgId: cw.orgD },
      profile: { givenName: 'Hu', familyName: 'Man' },
      email: { email: 'human@example.com' },
    });
    return { userId };
  }
  const home = kind === 'otherOrg' ? world.orgB : cw.orgD;
  const { userId } = await adminIn(home).addMachineUser({ userName: unique(kind), name: kind });
  if (kind === 'orgOwner') await adminIn(cw.orgD).addOrgMember({ userId, roles: ['ORG_OWNER'] });
  if (kind === 'userManager') await adminIn(cw.orgD).addOrgMember({ userId, roles: ['ORG_USER_MANAGER'] });
  if (kind === 'projectOwner') await adminIn(cw.orgD).addProjectMember({ projectId: cw.pd, userId, roles: ['PROJECT_OWNER'] });
  if (kind === 'ownerElsewhere') await adminIn(world.orgB).addOrgMember({ userId, roles: ['ORG_OWNER'] });
  const { token } = await adminIn(home).addPersonalAccessToken({ userId });
  return { userId, token };
}

/** A pending registration of the target's, started by the admin. */
async function pendingRegistration(t: Principal) {
  const res = await kh.client(UserService, 'grpc', kh.adminToken).registerU2F({ userId: t.userId });
  const options = res.publicKeyCredentialCreationOptions as any;
  const credential = createSoftAuthenticator().makeRegistration({ challenge: options.challenge, origin: ORIGIN, rpId: options.rp.id });
  return { u2fId: res.u2fId, credential };
}

type Prepared = Awaited<ReturnType<typeof pendingRegistration>> | undefined;
interface CRow {
  rpc: string;
  /** Each cell gets a new target of its kind (the call changes the target's roles). */
  fresh?: boolean;
  prepare?: (t: Principal) => Promise<Prepared>;
  grpc: (c: Clients, t: Principal, p: Prepared) => Promise<unknown>;
  rest: (t: Principal, p: Prepared) => [method: string, path: string, body?: unknown];
  /** Per caller, one outcome per target in C_TARGETS order. */
  expect: Record<CCaller, string[]>;
}

/** Credential writes on another user (RegisterU2F, VerifyU2FRegistration, RemoveU2F): containment applies. */
const credentialWrite: Record<CCaller, string[]> = {
  iamOwner: [OK, OK, OK, OK, OK, OK, OK, OK],
  orgOwner: [OK, OK, PE, OK, OK, OK, PE, NF],
  userManager: [OK, OK, PE, PE, OK, PE, PE, NF],
  projectOwner: [PD, PD, PD, PD, PD, PD, PD, NF],
  noRole: [PD, PD, PD, PD, PD, PD, PD, NF],
  self: [NA, OK, OK, OK, OK, OK, OK, OK],
};
/** Reads of another user (GetUserByID, ListU2FTokens): no containment, but another org's users are not found. */
const userRead: Record<CCaller, string[]> = {
  iamOwner: [OK, OK, OK, OK, OK, OK, OK, OK],
  orgOwner: [OK, OK, OK, OK, OK, OK, OK, NF],
  userManager: [OK, OK, OK, OK, OK, OK, OK, NF],
  projectOwner: [PD, PD, PD, PD, PD, PD, PD, NF],
  noRole: [PD, PD, PD, PD, PD, PD, PD, NF],
  self: [NA, OK, OK, OK, OK, OK, OK, OK],
};

/** A credential write that needs a human target (TOTP): where the rule lets the call through, a machine target is answered `onMachine`. */
const humanCredentialWrite = (onMachine: string): Record<CCaller, string[]> =>
  Object.fromEntries(
    Object.entries(credentialWrite).map(([caller, cells]) => [caller, cells.map((cell, i) => (cell === OK && C_TARGETS[i] !== 'human' ? onMachine : cell))]),
  ) as Record<CCaller, string[]>;

/** A pending TOTP registration of the target's, started by the admin (a machine target has none: refused, ignored). */
async function pendingTotp(t: Principal): Promise<Prepared> {
  await kh.client(UserService, 'grpc', kh.adminToken).registerTOTP({ userId: t.userId }).catch(() => undefined);
  return undefined;
}

const C_ROWS: CRow[] = [
  {
    // Apps may decide on a user's metadata: changing it is contained like a credential, in the caller's org context.
    rpc: 'SetUserMetadata',
    grpc: (c, t) => c.mgmt.setUserMetadata({ id: t.userId, key: 'contained', value: new Uint8Array([1]) }),
    rest: (t) => ['POST', `/management/v1/users/${t.userId}/metadata/contained`, { value: 'AQ==' }],
    expect: {
      iamOwner: [OK, OK, OK, OK, OK, OK, OK, NF], // the user of B is not in D's context
      orgOwner: [OK, OK, PE, OK, OK, OK, PE, NF],
      userManager: [OK, OK, PE, PE, OK, PE, PE, NF],
      projectOwner: [PD, PD, PD, PD, PD, PD, PD, NF],
      noRole: [PD, PD, PD, PD, PD, PD, PD, NF],
      self: [NA, PD, OK, OK, OK, PD, PD, PD],
    },
  },
  {
    // Reading needs user.read in the caller's org context; no containment.
    rpc: 'ListUserMetadata',
    grpc: (c, t) => c.mgmt.listUserMetadata({ id: t.userId }),
    rest: (t) => ['POST', `/management/v1/users/${t.userId}/metadata/_search`, {}],
    expect: {
      iamOwner: [OK, OK, OK, OK, OK, OK, OK, NF],
      orgOwner: [OK, OK, OK, OK, OK, OK, OK, NF],
      userManager: [OK, OK, OK, OK, OK, OK, OK, NF],
      projectOwner: [PD, PD, PD, PD, PD, PD, PD, NF],
      noRole: [PD, PD, PD, PD, PD, PD, PD, NF],
      self: [NA, PD, OK, OK, OK, PD, PD, PD],
    },
  },
  {
    rpc: 'AddPersonalAccessToken',
    // In the caller's own org context (D; B for "self" of the user of B).
    grpc: (c, t) => c.mgmt.addPersonalAccessToken({ userId: t.userId }),
    rest: (t) => ['POST', `/management/v1/users/${t.userId}/pats`, {}],
    expect: {
      iamOwner: [PM, OK, OK, OK, OK, OK, OK, NF], // the user of B is not in D's context
      orgOwner: [PM, OK, PE, OK, OK, OK, PE, NF],
      userManager: [PM, OK, PE, PE, OK, PE, PE, NF],
      projectOwner: [PD, PD, PD, PD, PD, PD, PD, NF],
      noRole: [PD, PD, PD, PD, PD, PD, PD, NF],
      // Minting for oneself needs user.write as for anyone; then it is contained by definition.
      self: [NA, PD, OK, OK, OK, PD, PD, PD],
    },
  },
  {
    // A client secret acts as the machine user, as a PAT does: the same rule.
    rpc: 'GenerateMachineSecret',
    grpc: (c, t) => c.mgmt.generateMachineSecret({ userId: t.userId }),
    rest: (t) => ['PUT', `/management/v1/users/${t.userId}/secret`, {}],
    expect: {
      iamOwner: [MS, OK, OK, OK, OK, OK, OK, NF],
      orgOwner: [MS, OK, PE, OK, OK, OK, PE, NF],
      userManager: [MS, OK, PE, PE, OK, PE, PE, NF],
      projectOwner: [PD, PD, PD, PD, PD, PD, PD, NF],
      noRole: [PD, PD, PD, PD, PD, PD, PD, NF],
      self: [NA, PD, OK, OK, OK, PD, PD, PD],
    },
  },
  {
    rpc: 'RegisterU2F',
    grpc: (c, t) => c.user.registerU2F({ userId: t.userId }),
    rest: (t) => ['POST', `/v2/users/${t.userId}/u2f`, {}],
    expect: credentialWrite,
  },
  {
    rpc: 'VerifyU2FRegistration',
    prepare: pendingRegistration,
    grpc: (c, t, p) => c.user.verifyU2FRegistration({ userId: t.userId, u2fId: p!.u2fId, publicKeyCredential: p!.credential as never, tokenName: 'key' }),
    rest: (t, p) => ['POST', `/v2/users/${t.userId}/u2f/${p!.u2fId}`, { publicKeyCredential: p!.credential, tokenName: 'key' }],
    expect: credentialWrite,
  },
  {
    // An authenticator app: the security keys' rule; human users only.
    rpc: 'RegisterTOTP',
    grpc: (c, t) => c.user.registerTOTP({ userId: t.userId }),
    rest: (t) => ['POST', `/v2/users/${t.userId}/totp`, {}],
    expect: humanCredentialWrite('USER_NOT_HUMAN'),
  },
  {
    rpc: 'RemoveTOTP',
    prepare: pendingTotp,
    grpc: (c, t) => c.user.removeTOTP({ userId: t.userId }),
    rest: (t) => ['DELETE', `/v2/users/${t.userId}/totp`],
    expect: humanCredentialWrite('TOTP_NOT_REGISTERED'),
  },
  {
    rpc: 'RemoveU2F',
    prepare: pendingRegistration,
    grpc: (c, t, p) => c.user.removeU2F({ userId: t.userId, u2fId: p!.u2fId }),
    rest: (t, p) => ['DELETE', `/v2/users/${t.userId}/u2f/${p!.u2fId}`],
    expect: credentialWrite,
  },
  {
    // Whoever holds a reset link sets the password: SetPassword's rule. No mail server here, so a
    // call let through is answered so (before any code is made), for machines too.
    rpc: 'PasswordReset',
    grpc: (c, t) => c.user.passwordReset({ userId: t.userId, medium: { case: 'sendLink', value: {} } }),
    rest: (t) => ['POST', `/v2/users/${t.userId}/password_reset`, { sendLink: {} }],
    expect: Object.fromEntries(Object.entries(credentialWrite).map(([caller, cells]) => [caller, cells.map((cell) => (cell === OK ? 'PASSWORD_RESET_MAIL_NOT_CONFIGURED' : cell))])) as Record<CCaller, string[]>,
  },
  {
    // Removes every key and the codes of another user, so containment applies as for RemoveU2F.
    rpc: 'RemoveAllU2F',
    prepare: pendingRegistration,
    grpc: (c, t) => c.user.removeAllU2F({ userId: t.userId }),
    rest: (t) => ['DELETE', `/v2/users/${t.userId}/u2f`],
    expect: credentialWrite,
  },
  {
    // The codes are shown to their user only; anyone else who can see the user is refused.
    rpc: 'GenerateRecoveryCodes',
    grpc: (c, t) => c.user.generateRecoveryCodes({ userId: t.userId }),
    rest: (t) => ['POST', `/v2/users/${t.userId}/recovery_codes`, {}],
    expect: {
      iamOwner: [SO, SO, OK, SO, SO, SO, SO, SO],
      orgOwner: [SO, SO, SO, SO, SO, SO, SO, NF],
      userManager: [SO, SO, SO, SO, SO, SO, SO, NF],
      projectOwner: [SO, SO, SO, SO, SO, SO, SO, NF],
      noRole: [SO, SO, SO, SO, SO, SO, SO, NF],
      self: [NA, OK, OK, OK, OK, OK, OK, OK],
    },
  },
  {
    rpc: 'GetUserByID',
    grpc: (c, t) => c.user.getUserByID({ userId: t.userId }),
    rest: (t) => ['GET', `/v2/users/${t.userId}`],
    expect: userRead,
  },
  {
    rpc: 'ListU2FTokens',
    grpc: (c, t) => c.user.listU2FTokens({ userId: t.userId }),
    rest: (t) => ['GET', `/v2/users/${t.userId}/u2f`],
    expect: userRead,
  },
  {
    rpc: 'AddOrgMember ORG_USER_MANAGER',
    fresh: true,
    grpc: (c, t) => c.mgmt.addOrgMember({ userId: t.userId, roles: ['ORG_USER_MANAGER'] }),
    rest: (t) => ['POST', '/management/v1/orgs/me/members', { userId: t.userId, roles: ['ORG_USER_MANAGER'] }],
    expect: {
      // Members may come from any org the caller can see: the admin sees all.
      iamOwner: [OK, OK, OK, OK, OK, OK, OK, OK],
      // Granting a lower role to a higher principal gives nobody more; replacing
      // an ORG_OWNER's roles takes away only what the caller holds itself.
      orgOwner: [OK, OK, OK, OK, OK, OK, OK, NF],
      // Without org.member.write: 403 before the user is looked up (no probing).
      userManager: [PD, PD, PD, PD, PD, PD, PD, PD],
      projectOwner: [PD, PD, PD, PD, PD, PD, PD, PD],
      noRole: [PD, PD, PD, PD, PD, PD, PD, PD],
      self: [NA, PD, OK, OK, PD, PD, PD, PD],
    },
  },
  {
    rpc: 'AddProjectMember PROJECT_OWNER',
    fresh: true,
    grpc: (c, t) => c.mgmt.addProjectMember({ projectId: cw.pd, userId: t.userId, roles: ['PROJECT_OWNER'] }),
    rest: (t) => ['POST', `/management/v1/projects/${cw.pd}/members`, { userId: t.userId, roles: ['PROJECT_OWNER'] }],
    expect: {
      iamOwner: [OK, OK, OK, OK, OK, OK, OK, OK],
      orgOwner: [OK, OK, OK, OK, OK, OK, OK, NF],
      userManager: [PD, PD, PD, PD, PD, PD, PD, PD],
      projectOwner: [OK, OK, OK, OK, OK, OK, OK, NF],
      noRole: [PD, PD, PD, PD, PD, PD, PD, PD],
      // The user of B acts in B, where PD is not found.
      self: [NA, PD, OK, OK, PD, OK, PD, 'PROJECT_NOT_FOUND'],
    },
  },
];

async function restReasonOf(token: string, [method, path, body]: [string, string, unknown?]): Promise<string> {
  const res = await kh.rest(method, path, body, { authorization: `Bearer ${token}` });
  if (res.status === 200) return OK;
  return restReason(res.body) ?? `${res.status} without a reason`;
}

async function containmentCells(transport: 'grpc' | 'rest'): Promise<Record<string, Record<CCaller, string[]>>> {
  const got: Record<string, Record<CCaller, string[]>> = {};
  for (const row of C_ROWS) {
    got[row.rpc] = {} as Record<CCaller, string[]>;
    for (const caller of C_CALLERS) {
      got[row.rpc][caller] = [];
      for (const kind of C_TARGETS) {
        const target = row.fresh ? await makeTarget(kind) : cw.targets[kind];
        const token = caller === 'self' ? target.token : cw.callers[caller].token;
        if (token === undefined) {
          got[row.rpc][caller].push(NA);
          continue;
        }
        const prepared = row.prepare ? await row.prepare(target) : undefined;
        const c: Clients = {
          mgmt: kh.client(ManagementService, 'grpc', token),
          user: kh.client(UserService, 'grpc', token),
          org: kh.client(OrganizationService, 'grpc', token),
          auth: kh.client(AuthService, 'grpc', token),
          admin: kh.client(AdminService, 'grpc', token),
        };
        got[row.rpc][caller].push(transport === 'grpc' ? await reasonOrOk(row.grpc(c, target, prepared)) : await restReasonOf(token, row.rest(target, prepared)));
      }
    }
  }
  return got;
}

function printContainment(transport: string, got: Record<string, Record<CCaller, string[]>>) {
  const short = (o: string) => ({ OK: 'ok', PERMISSION_DENIED: '403', PRIVILEGE_ESCALATION: '403-esc', USER_NOT_FOUND: '404', PROJECT_NOT_FOUND: '404-prj', PAT_ONLY_FOR_MACHINE_USERS: '400-pat', RECOVERY_CODES_SELF_ONLY: '403-self' })[o] ?? o;
  const lines = [`[containment ${transport}] rows: rpc / caller; columns: ${C_TARGETS.join(', ')}`];
  for (const row of C_ROWS) {
    for (const caller of C_CALLERS) lines.push(`${row.rpc.padEnd(31)} ${caller.padEnd(13)}` + got[row.rpc][caller].map((o) => short(o).padStart(9)).join(''));
  }
  console.log(lines.join('\n'));
}

describe('privilege containment and other orgs\u2019 users', () => {
  beforeAll(async () => {
    const me = await kh.client(AuthService, 'grpc', kh.adminToken).getMyUser({});
    cw.orgD = me.organizationId;
    cw.admin = { userId: me.user!.userId, token: kh.adminToken };
    cw.pd = (await adminIn(cw.orgD).addProject({ name: 'PD' })).id;
    const [orgOwner, userManager, projectOwner, noRole] = await Promise.all([makeTarget('orgOwner'), makeTarget('userManager'), makeTarget('projectOwner'), makeTarget('machine')]);
    cw.callers = { iamOwner: cw.admin, orgOwner, userManager, projectOwner, noRole };
    const targets = await Promise.all(C_TARGETS.map((k) => makeTarget(k)));
    cw.targets = Object.fromEntries(C_TARGETS.map((k, i) => [k, targets[i]])) as Record<CTarget, Principal>;
  }, 60_000);

  it('privilege escalation through PATs: an ORG_USER_MANAGER posts {} to the admin\u2019s /pats over REST and is refused', async () => {
    const res = await kh.rest('POST', `/management/v1/users/${cw.admin.userId}/pats`, {}, { authorization: `Bearer ${cw.callers.userManager.token}` });
    // A 200 would be a token whose GetMyUser says IAM_OWNER: its roles are asserted too.
    const mintedRoles = res.status === 200 ? (await kh.client(AuthService, 'grpc', res.body.token).getMyUser({})).roles : null;
    expect({ status: res.status, reason: res.status === 200 ? undefined : restReason(res.body), mintedRoles }).toEqual({ status: 403, reason: 'PRIVILEGE_ESCALATION', mintedRoles: null });
    // The same for an ORG_OWNER of the admin's org, over gRPC.
    const err = await rpcError(kh.client(ManagementService, 'grpc', cw.callers.orgOwner.token).addPersonalAccessToken({ userId: cw.admin.userId }));
    expect([err.code, err.reason]).toEqual([Code.PermissionDenied, 'PRIVILEGE_ESCALATION']);
  });

  for (const transport of ['grpc', 'rest'] as const) {
    it(`${C_ROWS.length} RPCs × ${C_CALLERS.length} callers × ${C_TARGETS.length} targets over ${transport} get exactly the designed reason`, async () => {
      const got = await containmentCells(transport);
      printContainment(transport, got);
      expect(got).toEqual(Object.fromEntries(C_ROWS.map((r) => [r.rpc, r.expect])));
    }, 180_000);
  }

  it('a refused grant changes nothing, and another org\u2019s owner cannot pull a user into its org', async () => {
    // B's owner (a user of B, no role in D) does not see D's users: adding one to B is "not found".
    const ownerOfB = kh.client(ManagementService, 'grpc', world.tokens.otherOrgOwner);
    const userOfD = await makeTarget('machine');
    const refused = await rpcError(ownerOfB.addOrgMember({ userId: userOfD.userId, roles: ['ORG_OWNER'] }));
    expect([refused.code, refused.reason]).toEqual([Code.NotFound, 'USER_NOT_FOUND']);
    const project = await rpcError(ownerOfB.addProjectMember({ projectId: cw.pd, userId: userOfD.userId, roles: ['PROJECT_OWNER'] }));
    expect(project.reason).toBe('PROJECT_NOT_FOUND');
    expect((await kh.client(AuthService, 'grpc', userOfD.token!).getMyUser({})).roles).toEqual([]);
    // A caller that sees both orgs may bring D's user into B (the admin here); B's
    // owner still does not see that user, so it cannot change the member's roles.
    await adminIn(world.orgB).addOrgMember({ userId: userOfD.userId, roles: ['ORG_USER_MANAGER'] });
    expect((await rpcError(ownerOfB.addOrgMember({ userId: userOfD.userId, roles: ['ORG_OWNER'] }))).reason).toBe('USER_NOT_FOUND');
    expect((await kh.client(AuthService, 'grpc', userOfD.token!).getMyUser({})).roles).toEqual([`ORG_USER_MANAGER@org:${world.orgB}`]);
  });

  it('a user of another org is answered exactly like an id that does not exist', async () => {
    const missing = '01nosuchusernosuchusernosu';
    const other = cw.targets.otherOrg.userId;
    // The same request id on both, so the answers may be compared byte for byte.
    const ask = (userId: string) =>
      kh.rest('GET', `/v2/users/${userId}`, undefined, { authorization: `Bearer ${cw.callers.orgOwner.token}`, 'x-request-id': 'same-for-both' });
    const [a, b] = [await ask(other), await ask(missing)];
    expect([a.status, restReason(a.body)]).toEqual([404, 'USER_NOT_FOUND']);
    const strip = (body: any, id: string) => JSON.stringify(body).replaceAll(id, '<id>');
    expect(strip(a.body, other)).toBe(strip(b.body, missing));
  });

  it('a caller-chosen id in AddHumanUser is for instance-wide callers only: the same 403 whether the id exists elsewhere or not', async () => {
    const human = (userId: string) => ({ userId, username: unique('chosen'), profile: { givenName: 'C', familyName: 'H' }, email: { email: 'c@example.com' } });
    const owner = kh.client(UserService, 'grpc', cw.callers.orgOwner.token);
    const taken = await rpcError(owner.addHumanUser(human(cw.targets.otherOrg.userId)));
    const free = await rpcError(owner.addHumanUser(human(`free-${Date.now()}`)));
    expect([taken.code, taken.reason]).toEqual([Code.PermissionDenied, 'PERMISSION_DENIED']);
    expect([free.code, free.reason, free.message]).toEqual([taken.code, taken.reason, taken.message]);
    // Without a chosen id the org owner creates users as before; the admin may choose ids.
    expect((await owner.addHumanUser({ ...human(''), userId: undefined })).userId).toBeTruthy();
    const chosen = `chosen-${Date.now()}`;
    expect((await kh.client(UserService, 'grpc', kh.adminToken).addHumanUser({ ...human(chosen), organization: { orgId: cw.orgD } })).userId).toBe(chosen);
  });
});

// --- Keyhold's API as a protected resource (the API audience) ------------------
// Who obtains an access token for Keyhold's own API (the scope
// urn:keyhold:iam:api:aud) through an app of project P1, and how: app allowed
// (SetAppAPIAccess) or not × the role of the person who signs in × the way —
// the first time (a fresh browser: the login, then the consent page, Allow),
// silently before any consent (prompt=none over a session of another app),
// silently after that consent (prompt=none), and the device flow (the
// confirmation page must name the API in words; then the login and the consent
// page). Each cell is what the app gets: an error, or a token and the roles it
// acts with at the API (GetMyUser; org and project ids as A, B, P1).
const A_CALLERS = ['instanceOwner', 'orgOwner', 'projectOwner', 'plainUser', 'otherOrgOwner'] as const;
const A_WAYS = ['first', 'silentBefore', 'silentAfter', 'device'] as const;
type ACaller = (typeof A_CALLERS)[number];
type AWay = (typeof A_WAYS)[number];
const API_SCOPE = 'urn:keyhold:iam:api:aud';
const A_REDIRECT = 'http://127.0.0.1:5299/cb';
const A_PASSWORD = 'the API audience matrix 28';
const API_WORDS = 'act as you on Keyhold&#39;s management API';

const audience = {} as {
  allowed: oidc.Configuration;
  notAllowed: oidc.Configuration;
  /** Another app of the instance, without the API scope: the session the silent requests ride on. */
  other: oidc.Configuration;
  usernames: Record<ACaller, string>;
};

/** What each cell must be: the allowed app after consent acts with exactly the caller's roles. */
function audienceExpectation(): Record<'allowed' | 'notAllowed', Record<ACaller, Record<AWay, string>>> {
  const roles: Record<ACaller, string> = {
    instanceOwner: 'IAM_OWNER',
    orgOwner: 'ORG_OWNER@A',
    projectOwner: 'PROJECT_OWNER@P1',
    plainUser: 'no role',
    otherOrgOwner: 'ORG_OWNER@B',
  };
  const row = (f: (caller: ACaller) => Record<AWay, string>) => Object.fromEntries(A_CALLERS.map((c) => [c, f(c)])) as Record<ACaller, Record<AWay, string>>;
  return {
    allowed: row((c) => ({ first: `consent → ${roles[c]}`, silentBefore: 'consent_required', silentAfter: `code → ${roles[c]}`, device: `consent → ${roles[c]}` })),
    notAllowed: row(() => ({ first: 'invalid_scope', silentBefore: 'invalid_scope', silentAfter: 'invalid_scope', device: 'invalid_scope' })),
  };
}

describe('Keyhold\u2019s API as a protected resource: app allowed or not × role × first time, silent, device', () => {
  beforeAll(async () => {
    const inA = adminA();
    const users = kh.client(UserService, 'grpc', kh.adminToken);
    const human = async (orgId: string, name: string) =>
      (
        await users.addHumanUser({
          username: unique(name),
          organization: { orgId },
          profile: { givenName: 'A', familyName: 'Udience' },
          email: { email: 'audience@example.com' },
          password: { password: A_PASSWORD, changeRequired: false },
        })
      ).userId;
    const [orgOwner, projectOwner, plainUser, otherOrgOwner] = await Promise.all([human(world.orgA, 'aud-org-owner'), human(world.orgA, 'aud-p1-owner'), human(world.orgA, 'aud-plain'), human(world.orgB, 'aud-b-owner')]);
    await inA.addOrgMember({ userId: orgOwner, roles: ['ORG_OWNER'] });
    await inA.addProjectMember({ projectId: world.p1, userId: projectOwner, roles: ['PROJECT_OWNER'] });
    await kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(world.orgB)).addOrgMember({ userId: otherOrgOwner, roles: ['ORG_OWNER'] });
    // The instance owner who signs in: the human admin, with the matrix's password.
    const [adminRow] = await kh.database.sql.query<{ id: string; username: string }>({ text: "select id, username from users where username = 'keyhold-admin'", params: [] });
    await users.setPassword({ userId: adminRow!.id, newPassword: { password: A_PASSWORD, changeRequired: false } });
    const usernameOf = async (userId: string) => (await users.getUserByID({ userId })).user!.username;
    audience.usernames = {
      instanceOwner: adminRow!.username,
      orgOwner: await usernameOf(orgOwner),
      projectOwner: await usernameOf(projectOwner),
      plainUser: await usernameOf(plainUser),
      otherOrgOwner: await usernameOf(otherOrgOwner),
    };
    const app = async (name: string) => {
      const { appId, clientId } = await inA.addOIDCApp({
        projectId: world.p1,
        name: unique(name),
        redirectUris: [A_REDIRECT],
        appType: OIDCAppType.OIDC_APP_TYPE_USER_AGENT,
        authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE,
        grantTypes: [OIDCGrantType.OIDC_GRANT_TYPE_AUTHORIZATION_CODE, OIDCGrantType.OIDC_GRANT_TYPE_DEVICE_CODE],
        devMode: true,
      });
      return { appId, config: await oidc.discovery(new URL(`http://localhost:${kh.port}`), clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] }) };
    };
    const [allowed, notAllowed, other] = await Promise.all([app('aud-allowed'), app('aud-not-allowed'), app('aud-other')]);
    await inA.setAppAPIAccess({ projectId: world.p1, appId: allowed.appId, allowed: true });
    [audience.allowed, audience.notAllowed, audience.other] = [allowed.config, notAllowed.config, other.config];
  }, 60_000);

  const base = () => `http://localhost:${kh.port}`;

  async function authorizeUrl(config: oidc.Configuration, scope: string, extra: Record<string, string> = {}) {
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: A_REDIRECT, scope, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', ...extra });
    return { url, verifier };
  }

  /** The roles a token acts with at the API, ids named A, B, P1; or the refusal. */
  async function rolesOf(token: string): Promise<string> {
    try {
      const { roles } = await kh.client(AuthService, 'grpc', token).getMyUser({});
      const named = roles.map((r) => r.replace(`@org:${world.orgA}`, '@A').replace(`@org:${world.orgB}`, '@B').replace(`@project:${world.p1}`, '@P1'));
      return named.length ? named.sort().join(' ') : 'no role';
    } catch (e) {
      return `API refused: ${Code[ConnectError.from(e).code]}`;
    }
  }

  /** A code flow's last step: the error the app hears, or its token's roles. */
  async function answered(config: oidc.Configuration, step: Step, verifier: string, via: string): Promise<string> {
    if (!step.left) return `a page: ${step.html?.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 80)}`;
    const error = step.left.searchParams.get('error');
    if (error) return error;
    const tokens = await oidc.authorizationCodeGrant(config, step.left, { pkceCodeVerifier: verifier });
    return `${via} → ${await rolesOf(tokens.access_token)}`;
  }

  /** The first time in a fresh browser: the login, then the consent page (Allowed) or an answer. */
  async function firstTime(config: oidc.Configuration, caller: ACaller, b = browser(base())): Promise<string> {
    const { url, verifier } = await authorizeUrl(config, `openid ${API_SCOPE}`);
    const step = await signIn(b, url, audience.usernames[caller], A_PASSWORD);
    if (!isConsentPage(step)) return answered(config, step, verifier, 'code without consent');
    if (!step.html!.includes(API_WORDS)) return 'a consent page without the API in words';
    return answered(config, await submit(b, step, 'consent', { decision: 'allow' }), verifier, 'consent');
  }

  async function silently(config: oidc.Configuration, b: ReturnType<typeof browser>): Promise<string> {
    const { url, verifier } = await authorizeUrl(config, `openid ${API_SCOPE}`, { prompt: 'none' });
    return answered(config, await b.follow(url), verifier, 'code');
  }

  async function cell(config: oidc.Configuration, caller: ACaller, way: AWay): Promise<string> {
    const b = browser(base());
    switch (way) {
      case 'first':
        return firstTime(config, caller, b);
      case 'silentBefore': {
        // Signed in to another app of the instance: a session, and no consent for this one.
        const other = await authorizeUrl(audience.other, 'openid');
        const step = await signIn(b, other.url, audience.usernames[caller], A_PASSWORD);
        if (!step.left?.searchParams.has('code')) return `the other app's sign-in failed: ${step.left ?? step.url}`;
        return silently(config, b);
      }
      case 'silentAfter':
        await firstTime(config, caller, b);
        return silently(config, b);
      case 'device': {
        let started: Awaited<ReturnType<typeof oidc.initiateDeviceAuthorization>>;
        try {
          started = await oidc.initiateDeviceAuthorization(config, { scope: `openid ${API_SCOPE}` });
        } catch (e) {
          return (e as { error?: string }).error ?? String(e);
        }
        const confirmation = await deviceConfirmation(b, started.verification_uri_complete!);
        if (!confirmation.html?.includes(API_WORDS)) return 'a confirmation without the API in words';
        let step = await deviceContinue(b, confirmation);
        step = await submit(b, step, 'username', { username: audience.usernames[caller] });
        step = await submit(b, step, 'password', { username: audience.usernames[caller], password: A_PASSWORD });
        if (!isConsentPage(step)) return 'signed in without a consent page';
        await submit(b, step, 'consent', { decision: 'allow' });
        return `consent → ${await rolesOf((await oidc.pollDeviceAuthorizationGrant(config, started)).access_token)}`;
      }
    }
  }

  it(`2 apps × ${A_CALLERS.length} roles × ${A_WAYS.length} ways get exactly the designed answer`, async () => {
    const got = { allowed: {}, notAllowed: {} } as Record<'allowed' | 'notAllowed', Record<ACaller, Record<AWay, string>>>;
    for (const app of ['allowed', 'notAllowed'] as const) {
      for (const caller of A_CALLERS) {
        got[app][caller] = {} as Record<AWay, string>;
        for (const way of A_WAYS) got[app][caller][way] = await cell(audience[app], caller, way);
      }
    }
    console.log(
      `[api audience] app / role; columns: ${A_WAYS.join(', ')}\n` +
        (['allowed', 'notAllowed'] as const)
          .flatMap((app) => A_CALLERS.map((c) => `${app.padEnd(11)} ${c.padEnd(14)}` + A_WAYS.map((w) => got[app][c][w].padStart(30)).join('')))
          .join('\n'),
    );
    expect(got).toEqual(audienceExpectation());
  }, 240_000);
});
