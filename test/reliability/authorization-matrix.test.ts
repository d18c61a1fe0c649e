// Every RPC of the four services × every kind of caller, with the exact gRPC
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
import { AuthService } from '../../gen/keyhold/auth/v1/auth_pb.js';
import { ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { OrganizationService } from '../../gen/keyhold/org/v2/org_pb.js';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { createSoftAuthenticator } from '../support/soft-authenticator.js';

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
  tokens: Record<Exclude<CallerKind, 'none' | 'instanceOwner'>, string>;
};
let n = 0;
const unique = (p: string) => `${p}-${++n}-${Date.now()}`;

function clientsFor(kind: CallerKind): Clients {
  const token = kind === 'none' ? undefined : kind === 'instanceOwner' ? kh.adminToken : world.tokens[kind];
  // The instance owner and B's owner "naming A" act in org A through x-service-orgid.
  const headers = kind === 'instanceOwner' || kind === 'otherOrgOwnerNamingA' ? { 'x-service-orgid': world.orgA } : undefined;
  // startTestKeyhold's client() falls back to the admin token when none is given: pass an empty bearer instead.
  const t = token ?? '';
  return {
    mgmt: kh.client(ManagementService, 'grpc', t, headers),
    user: kh.client(UserService, 'grpc', t, headers),
    org: kh.client(OrganizationService, 'grpc', t, headers),
    auth: kh.client(AuthService, 'grpc', t, headers),
  };
}

/** Admin client acting in org A. */
const adminA = () => kh.client(ManagementService, 'grpc', kh.adminToken, { 'x-service-orgid': world.orgA });

async function newRegistration() {
  const res = await kh.client(UserService, 'grpc', kh.adminToken).registerU2F({ userId: world.target.userId });
  const options = res.publicKeyCredentialCreationOptions as any;
  return { u2fId: res.u2fId, challenge: options.challenge as string, rpId: options.rp.id as string };
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
  otherOrgOwner: P, // T exists; B's owner holds nothing in A
  otherOrgOwnerNamingA: P,
  otherProjectOwner: P,
  projectOwner: P,
  plainUser: P,
  self: P,
  orgOwner: P,
  instanceOwner: P,
  ...Object.fromEntries(ok.map((k) => [k, 'OK'])),
});
const anyValidToken: Record<CallerKind, Outcome> = { ...Object.fromEntries(CALLERS.map((k) => [k, 'OK'])), none: U, expired: U } as Record<CallerKind, Outcome>;

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
    rpc: 'management.AddProjectMember',
    call: (c) => c.mgmt.addProjectMember({ projectId: world.p1, userId: world.member, roles: ['PROJECT_OWNER'] }),
    expect: inOrgA(['projectOwner', 'orgOwner', 'instanceOwner']),
  },
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
    rpc: 'management.AddOrgMember',
    call: (c) => c.mgmt.addOrgMember({ userId: world.member, roles: ['ORG_USER_MANAGER'] }),
    // B's owner may make a user of A a member of B (as in ZITADEL, members may come from any org).
    expect: inOrgA(['orgOwner', 'instanceOwner', 'otherOrgOwner']),
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
  {
    rpc: 'auth.GetMyUser',
    call: (c) => c.auth.getMyUser({}),
    expect: anyValidToken,
  },
];

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
  kh = await startTestKeyhold({ env: { KEYHOLD_WEBAUTHN_RP_IDS: 'login.example', KEYHOLD_WEBAUTHN_ORIGINS: ORIGIN } });
  const orgs = kh.client(OrganizationService);
  world.orgA = (await orgs.addOrganization({ name: 'Org A' })).organizationId;
  world.orgB = (await orgs.addOrganization({ name: 'Org B' })).organizationId;
  const inA = adminA();
  const inB = kh.client(ManagementService, 'grpc', kh.adminToken, { 'x-service-orgid': world.orgB });
  const machine = async (mgmt: Client<typeof ManagementService>, name: string, orgRoles: string[] = [], expiresInMs?: number) => {
    const { userId } = await mgmt.addMachineUser({ userName: unique(name), name });
    if (orgRoles.length) await mgmt.addOrgMember({ userId, roles: orgRoles });
    const { token } = await mgmt.addPersonalAccessToken({ userId, expirationDate: expiresInMs ? timestampFromDate(new Date(Date.now() + expiresInMs)) : undefined });
    return { userId, token };
  };
  // The expiring token first: it runs out while the rest is built.
  const expiresAt = Date.now() + 1500;
  const expired = await machine(inA, 'expired-owner', ['ORG_OWNER'], 1500);
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
  }, 120_000);

  it('the matrix covers every RPC of the four services', () => {
    const all = [ManagementService, UserService, OrganizationService, AuthService].flatMap((s) => s.methods.map((m) => `${s.typeName.split('.')[1]}.${m.name}`));
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
