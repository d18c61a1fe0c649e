// The life of the org a call acts in (x-service-orgid, else the caller's own),
// ZITADEL's management v1 UpdateOrg, DeactivateOrg, ReactivateOrg, RemoveOrg:
// - UpdateOrg: its name (org.write); the same name again writes nothing.
// - DeactivateOrg / ReactivateOrg (org.write: ORG_OWNER, IAM_OWNER): a
//   deactivated org keeps everything, but its users are refused as a
//   deactivated user is (login, refresh, userinfo, introspection, Keyhold's
//   API: queries/read-model.ts userIsLive) and its apps and machine users do
//   not authenticate (their client lookups read the org's state). Other
//   processes see it within the caches' bound (1 s). Its users who own
//   another org count as gone there: the last-owner rule is decided on each
//   such org's events in the same append (LAST_ORG_OWNER).
// - Both end every user of the org, so both check what DeactivateUser and
//   RemoveUser check for each: containment (PRIVILEGE_ESCALATION naming the
//   first user the caller does not contain), and that an active IAM_OWNER
//   remains outside the org (LAST_IAM_OWNER).
// - RemoveOrg (org.delete: ORG_OWNER, IAM_OWNER): the org and everything under
//   it in one append — each user, app, user grant of its projects and project
//   with its own event (their projections remove their rows, metadata, keys,
//   tokens and memberships), its users' memberships in other orgs under the
//   last-owner rule, then the org (its members and policies). Bounded as
//   RemoveProject (CASCADE_TOO_LARGE): the bound counts the events appended
//   (users, their memberships in other orgs, projects, apps, the projects'
//   user grants); rows the projections delete with them (the users' grants
//   and memberships elsewhere, metadata, keys, tokens) are not counted. Org names are not unique: a removed
//   org's name is free at once.
// The instance's first org holds the console's project: it is neither
// deactivated nor removed (CONSOLE_ORG_PROTECTED).
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { checkDisplayName } from '../../domain/identity/identifiers.js';
import { requiredText } from '../../domain/identity/text-rules.js';
import { appDecider } from '../../domain/app/decider.js';
import { orgDecider, type OrgCommand, type OrgState } from '../../domain/org/decider.js';
import { projectDecider } from '../../domain/project/decider.js';
import { userDecider } from '../../domain/user/decider.js';
import { instanceDecider, type InstanceCommand } from '../../domain/instance/decider.js';
import { INSTANCE_ID } from '../../domain/events/index.js';
import { userGrantDecider } from '../../domain/usergrant/decider.js';
import { containmentExcess, holdsEverything, type Membership } from '../../domain/identity/permissions.js';
import { authorize, orgContext } from '../../access/access.js';
import type { Call, Caller } from '../../access/caller.js';
import { CONSOLE_PROJECT_ID } from '../instance/add-console-app.js';
import { ConcurrencyConflict, ReferenceViolation, type Lookups, type Ports } from '../ports.js';
import { assertCascadeBounded } from '../projects/cascade-bound.js';
import { runCommand, runCommands, target, type Target } from '../run.js';
import { written, type Written } from '../written.js';
import { goneOwners } from './org-members.js';

async function assertNotConsoleOrg(lookups: Pick<Lookups, 'ownerOfProject'>, orgId: string): Promise<void> {
  if ((await lookups.ownerOfProject(CONSOLE_PROJECT_ID)) === orgId) throw new KeyholdError('CONSOLE_ORG_PROTECTED', { orgId });
}

export async function updateOrg(ports: Ports, call: Call, input: { name: string }): Promise<{ written?: Written; orgId: string }> {
  const violations = requiredText('name', input.name, 200);
  if (violations.length) throw invalidRequest(violations);
  const { caller, orgId } = await orgContext(ports.lookups, call);
  authorize(caller, 'org.write', { orgId });
  const events = await runCommand(ports.events, { type: 'org', id: orgId }, orgDecider(orgId), {
    kind: 'rename',
    name: checkDisplayName(input.name, 200).value,
    actor: caller.userId,
  });
  return { written: events.length ? written(events, orgId) : undefined, orgId };
}

/**
 * The org's users with their memberships, after the checks ending each of them takes (as
 * DeactivateUser / RemoveUser): the caller contains every other one (else PRIVILEGE_ESCALATION
 * naming the first), and an active IAM_OWNER remains outside the org (else LAST_IAM_OWNER).
 */
async function endableUsers(
  lookups: Pick<Lookups, 'membershipsOf' | 'instanceOwnerIds' | 'userFacts'>,
  caller: Caller,
  orgId: string,
  userIds: readonly string[],
): Promise<Array<{ userId: string; memberships: Membership[] }>> {
  const users = await Promise.all(userIds.map(async (userId) => ({ userId, memberships: await lookups.membershipsOf(userId) })));
  if (!holdsEverything(caller.memberships)) {
    const uncontained = users.find((u) => u.userId !== caller.userId && containmentExcess(caller.memberships, u.memberships));
    if (uncontained) throw new KeyholdError('PRIVILEGE_ESCALATION', { userId: uncontained.userId });
  }
  const last = await lastIamOwner(lookups, orgId, users);
  if (last) throw new KeyholdError('LAST_IAM_OWNER', { userId: last, orgId });
  return users;
}

/** The org's users holding IAM_OWNER. */
const iamOwnersIn = (users: ReadonlyArray<{ userId: string; memberships: Membership[] }>) =>
  users.filter((u) => u.memberships.some((m) => m.scopeType === 'instance' && m.roles.includes('IAM_OWNER'))).map((u) => u.userId);

/** The org's first IAM_OWNER when no active IAM_OWNER of another, active org remains; undefined: one remains (or the org holds none). */
async function lastIamOwner(
  lookups: Pick<Lookups, 'instanceOwnerIds' | 'userFacts'>,
  orgId: string,
  users: ReadonlyArray<{ userId: string; memberships: Membership[] }>,
): Promise<string | undefined> {
  const [iamOwner] = iamOwnersIn(users);
  if (!iamOwner) return undefined;
  const inOrg = new Set(users.map((u) => u.userId));
  const others = (await lookups.instanceOwnerIds()).filter((id) => !inOrg.has(id));
  const facts = await Promise.all(others.map((id) => lookups.userFacts(id)));
  return facts.some((f) => f && f.orgId !== orgId && f.state === 'active' && f.orgActive !== false) ? undefined : iamOwner;
}

/**
 * The instance's side of ending an org's users, when one of them is an IAM_OWNER: the last-owner
 * rule decided again on the instance's stream, in the same append (the read model read at the
 * decision; a concurrent ending of another org's owners meets this one on the instance's version
 * and is decided again after it, on the read model it wrote).
 */
function instanceOwners(lookups: Pick<Lookups, 'instanceOwnerIds' | 'userFacts'>, orgId: string, users: ReadonlyArray<{ userId: string; memberships: Membership[] }>, actor: string): Target[] {
  const userIds = iamOwnersIn(users);
  if (!userIds.length) return [];
  return [
    target({ type: 'instance', id: INSTANCE_ID }, instanceDecider, async (): Promise<InstanceCommand> => ({
      kind: 'endOwners',
      orgId,
      userIds,
      lastOwner: await lastIamOwner(lookups, orgId, users),
      actor,
    })),
  ];
}

/** The other orgs where these users hold ORG_OWNER, each with those users. */
function ownedElsewhere(users: ReadonlyArray<{ userId: string; memberships: Membership[] }>, orgId: string): Map<string, string[]> {
  const owned = new Map<string, string[]>();
  for (const { userId, memberships } of users) {
    for (const m of memberships) {
      if (m.scopeType === 'org' && m.scopeId !== orgId && m.roles.includes('ORG_OWNER')) owned.set(m.scopeId, [...(owned.get(m.scopeId) ?? []), userId]);
    }
  }
  return owned;
}

async function setActive(ports: Ports, call: Call, kind: 'deactivate' | 'reactivate'): Promise<{ written: Written }> {
  const { lookups } = ports;
  const { caller, orgId } = await orgContext(lookups, call);
  authorize(caller, 'org.write', { orgId });
  if (kind === 'reactivate') return { written: written(await runCommand(ports.events, { type: 'org', id: orgId }, orgDecider(orgId), { kind, actor: caller.userId }), orgId) };
  await assertNotConsoleOrg(lookups, orgId);
  const users = await endableUsers(lookups, caller, orgId, await lookups.userIdsOfOrg(orgId));
  const actor = caller.userId;
  // Its users cannot sign in any more: in each other org they own, decided on that org's events
  // with the others gone, so an org is not left with owners none of whom can sign in.
  const events = await runCommands(ports.events, [
    target({ type: 'org', id: orgId }, orgDecider(orgId), { kind, actor }),
    ...instanceOwners(lookups, orgId, users, actor),
    ...[...ownedElsewhere(users, orgId)].map(([other, userIds]) =>
      target({ type: 'org', id: other }, orgDecider(other), async (state: OrgState): Promise<OrgCommand> => ({
        kind: 'suspendOwners',
        userIds,
        actor,
        goneUsers: await goneOwners(lookups, state),
      })),
    ),
  ]);
  return { written: written(events, orgId) };
}

export const deactivateOrg = (ports: Ports, call: Call) => setActive(ports, call, 'deactivate');
export const reactivateOrg = (ports: Ports, call: Call) => setActive(ports, call, 'reactivate');

/** How often RemoveOrg reads the org's contents again when a project or user was created in it meanwhile. */
const REMOVE_ORG_ROUNDS = 5;

export async function removeOrg(ports: Ports, call: Call): Promise<{ written: Written }> {
  const { lookups } = ports;
  const { caller, orgId } = await orgContext(lookups, call);
  authorize(caller, 'org.delete', { orgId });
  await assertNotConsoleOrg(lookups, orgId);
  // The org's projects and users are read before the append; one created meanwhile is refused by the
  // read model's reference (migration 0026) in the append that deletes the org: read again, decided again.
  for (let round = 1; ; round++) {
    try {
      return await removeOrgOnce(ports, caller, orgId);
    } catch (e) {
      if (!(e instanceof ReferenceViolation && e.removing)) throw e;
      if (round >= REMOVE_ORG_ROUNDS) throw new ConcurrencyConflict();
    }
  }
}

async function removeOrgOnce(ports: Ports, caller: Caller, orgId: string): Promise<{ written: Written }> {
  const { lookups } = ports;
  const [userIds, projectIds] = await Promise.all([lookups.userIdsOfOrg(orgId), lookups.projectIdsOfOrg(orgId)]);
  const projects = await Promise.all(projectIds.map(async (id) => ({ id, appIds: await lookups.appIdsOfProject(id), grantIds: await lookups.grantIdsOfProject(id) })));
  const projectEvents = projects.reduce((n, p) => n + 1 + p.appIds.length + p.grantIds.length, 0);
  // Bounded before each user's memberships are read, and again with their memberships elsewhere.
  assertCascadeBounded(userIds.length + projectEvents);
  const users = await endableUsers(lookups, caller, orgId, userIds);
  const memberships = users.flatMap(({ userId, memberships: held }) => held.filter((m) => m.scopeType === 'org' && m.scopeId !== orgId).map((m) => ({ userId, orgId: m.scopeId })));
  assertCascadeBounded(userIds.length + memberships.length + projectEvents);
  const actor = caller.userId;
  // The org's users leave the other orgs they are members of as RemoveUser's users do: decided on
  // each org's events under the last-owner rule, so the last owner of another org is not removed.
  const otherOrgs = new Map<string, string[]>();
  for (const m of memberships) otherOrgs.set(m.orgId, [...(otherOrgs.get(m.orgId) ?? []), m.userId]);
  const events = await runCommands(ports.events, [
    ...projects.flatMap(({ id: projectId, appIds, grantIds }) => [
      ...appIds.map((id) => target({ type: 'app', id }, appDecider(id), { kind: 'removeWithProject', projectId, actor })),
      ...grantIds.map((id) => target({ type: 'usergrant', id }, userGrantDecider(id), { kind: 'cascadeRemove', actor })),
      target({ type: 'project', id: projectId }, projectDecider(projectId), { kind: 'remove', actor }),
    ]),
    ...userIds.map((id) => target({ type: 'user', id }, userDecider(id), { kind: 'remove', actor })),
    ...[...otherOrgs].map(([other, users]) =>
      target({ type: 'org', id: other }, orgDecider(other), async (state: OrgState): Promise<OrgCommand> => ({
        kind: 'removeMembers',
        userIds: users,
        actor,
        goneUsers: await goneOwners(lookups, state),
      })),
    ),
    target({ type: 'org', id: orgId }, orgDecider(orgId), { kind: 'remove', actor }),
    ...instanceOwners(lookups, orgId, users, actor),
  ]);
  return { written: written(events, orgId) };
}
