// The user's lifecycle (user v2): DeactivateUser, ReactivateUser,
// LockUser, UnlockUser, RemoveUser. As every call on a user id: a user the
// caller does not see is 404 (access.ts visibleUser); then user.write in its
// org (403) and containment for another user (PRIVILEGE_ESCALATION: an
// ORG_USER_MANAGER cannot lock an ORG_OWNER). Nobody deactivates, locks or
// removes itself (the last admin would lock everyone out). Tokens of a user
// that is no longer active are refused at once here and within the caller
// cache's TTL (1 s) elsewhere (queries/callers.ts).
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { userDecider, type LifecycleStep } from '../../domain/user/decider.js';
import { assertContainsUser, authorize, visibleUser } from '../../access/access.js';
import type { Call, Caller } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { orgDecider, type OrgCommand, type OrgState } from '../../domain/org/decider.js';
import { goneOwners } from '../orgs/org-members.js';
import { runCommand, runCommands, target } from '../run.js';
import { written, type Written } from '../written.js';

/** The steps every write on another user shares: 400, 404, 403, containment. */
export async function userForWrite(ports: Ports, caller: Caller, userId: string): Promise<{ id: string; orgId: string }> {
  const violations = requiredId('userId', userId);
  if (violations.length) throw invalidRequest(violations);
  const user = await visibleUser(ports.lookups, caller, userId);
  authorize(caller, 'user.write', { orgId: user.orgId });
  if (userId !== caller.userId) await assertContainsUser(ports.lookups, caller, userId);
  return user;
}

async function step(ports: Ports, { caller }: Call, userId: string, kind: LifecycleStep | 'remove'): Promise<{ written: Written }> {
  await userForWrite(ports, caller, userId);
  if (userId === caller.userId && kind !== 'reactivate' && kind !== 'unlock') throw new KeyholdError('USER_SELF_LIFECYCLE', { userId });
  const command = { kind, actor: caller.userId };
  if (kind === 'deactivate' || kind === 'lock') {
    // An owner who can no longer sign in owns nothing for the last-owner rule: deactivating or
    // locking one is decided on each of its orgs' events with the user's, so two owners
    // deactivating each other at once meet on the org's version and the second is refused.
    const owned = (await ports.lookups.membershipsOf(userId)).filter((m) => m.scopeType === 'org' && m.roles.includes('ORG_OWNER')).map((m) => m.scopeId);
    const events = await runCommands(ports.events, [
      target({ type: 'user', id: userId }, userDecider(userId), command),
      ...owned.map((orgId) =>
        target({ type: 'org', id: orgId }, orgDecider(orgId), async (state: OrgState): Promise<OrgCommand> => ({ kind: 'suspendOwner', userId, actor: caller.userId, goneUsers: await goneOwners(ports.lookups, state) })),
      ),
    ]);
    return { written: written(events, userId) };
  }
  if (kind !== 'remove') return { written: written(await runCommand(ports.events, { type: 'user', id: userId }, userDecider(userId), command), userId) };
  // A removed user leaves every org it is a member of, decided on each org's events with the
  // last-owner rule (org-members.ts): two owners removing each other's users at once meet there,
  // and one of them is refused (LAST_ORG_OWNER) instead of leaving the org without an owner.
  const orgIds = (await ports.lookups.membershipsOf(userId)).filter((m) => m.scopeType === 'org').map((m) => m.scopeId);
  const events = await runCommands(ports.events, [
    target({ type: 'user', id: userId }, userDecider(userId), command),
    ...orgIds.map((orgId) =>
      target({ type: 'org', id: orgId }, orgDecider(orgId), async (state: OrgState): Promise<OrgCommand> => ({ kind: 'removeMember', userId, actor: caller.userId, goneUsers: await goneOwners(ports.lookups, state) })),
    ),
  ]);
  return { written: written(events, userId) };
}

type Input = { userId: string };
export const deactivateUser = (ports: Ports, call: Call, input: Input) => step(ports, call, input.userId, 'deactivate');
export const reactivateUser = (ports: Ports, call: Call, input: Input) => step(ports, call, input.userId, 'reactivate');
export const lockUser = (ports: Ports, call: Call, input: Input) => step(ports, call, input.userId, 'lock');
export const unlockUser = (ports: Ports, call: Call, input: Input) => step(ports, call, input.userId, 'unlock');
export const removeUser = (ports: Ports, call: Call, input: Input) => step(ports, call, input.userId, 'remove');
