// UpdateUserGrant (its roles replaced), DeactivateUserGrant / ReactivateUserGrant,
// RemoveUserGrant. Every change obeys AddUserGrant's rules: the grant of the
// call's org (another org's grant, or one of another user, is 404 as if none
// existed), a user the caller sees and not removed (404), user.grant.write on the grant's
// project (403; under a project grant, in the granted org itself), and the project's roles
// only (400 at roleKeys[i]).
// Under a project grant, the roles stay within those it holds (400 at roleKeys[i]),
// and a grant whose project grant was removed is 404 to every change.
// An inactive grant keeps its roles but gives none: the login check and the
// roles claim read only active grants (store/queries/projects.ts).
import { invalidRequest, KeyholdError, type FieldViolation } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { userGrantDecider, type UserGrantCommand, type UserGrantState } from '../../domain/usergrant/decider.js';
import { authorize, orgContext, visibleLiveUser } from '../../access/access.js';
import type { Call, Caller } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { assertGrantedRoles, assertProjectRoles, roleKeysViolations } from './grant-roles.js';

export interface UserGrantRef {
  userId: string;
  grantId: string;
}

async function changeGrant(
  ports: Ports,
  call: Call,
  ref: UserGrantRef,
  more: FieldViolation[],
  command: (state: UserGrantState, caller: Caller) => Promise<UserGrantCommand> | UserGrantCommand,
): Promise<{ written: Written }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const violations = [...requiredId('userId', ref.userId), ...requiredId('grantId', ref.grantId), ...more];
  if (violations.length) throw invalidRequest(violations);
  const events = await runCommand(ports.events, { type: 'usergrant', id: ref.grantId }, userGrantDecider(ref.grantId), async (state) => {
    if (!state.exists || state.orgId !== orgId || state.userId !== ref.userId) throw new KeyholdError('USER_GRANT_NOT_FOUND', { grantId: ref.grantId });
    // RemoveProjectGrant writes no event on the user grants under it (their rows go with its own):
    // one whose project grant is gone is gone too.
    if (state.projectGrantId && (await ports.lookups.projectGrantFor(state.projectId, orgId))?.id !== state.projectGrantId) {
      throw new KeyholdError('USER_GRANT_NOT_FOUND', { grantId: ref.grantId });
    }
    await visibleLiveUser(ports.lookups, caller, state.userId);
    // Under a project grant, the granted org's admins only: a role on the project is the owning
    // org's, and must not reach the user grants another org gave (as AddUserGrant).
    authorize(caller, 'user.grant.write', state.projectGrantId ? { orgId } : { orgId, projectId: state.projectId });
    return command(state, caller);
  });
  return { written: written(events, ref.grantId) };
}

export function updateUserGrant(ports: Ports, call: Call, input: UserGrantRef & { roleKeys: readonly string[] }): Promise<{ written: Written }> {
  return changeGrant(ports, call, input, roleKeysViolations(input.roleKeys), async (state, caller) => {
    await assertProjectRoles(ports.lookups, state.projectId, input.roleKeys);
    if (state.projectGrantId) {
      // Under a project grant: no more than it holds now (gone or deactivated: nothing more to give).
      const projectGrant = await ports.lookups.projectGrantFor(state.projectId, state.orgId);
      if (!projectGrant || projectGrant.id !== state.projectGrantId) throw new KeyholdError('USER_GRANT_NOT_FOUND', { grantId: input.grantId });
      if (projectGrant.state !== 'active') throw new KeyholdError('PROJECT_GRANT_NOT_ACTIVE', { grantId: projectGrant.id });
      assertGrantedRoles(projectGrant.roleKeys, input.roleKeys);
    }
    return { kind: 'change', roleKeys: input.roleKeys, actor: caller.userId };
  });
}

export const deactivateUserGrant = (ports: Ports, call: Call, input: UserGrantRef): Promise<{ written: Written }> =>
  changeGrant(ports, call, input, [], (_state, caller) => ({ kind: 'deactivate', actor: caller.userId }));

export const reactivateUserGrant = (ports: Ports, call: Call, input: UserGrantRef): Promise<{ written: Written }> =>
  changeGrant(ports, call, input, [], (_state, caller) => ({ kind: 'reactivate', actor: caller.userId }));

export const removeUserGrant = (ports: Ports, call: Call, input: UserGrantRef): Promise<{ written: Written }> =>
  changeGrant(ports, call, input, [], (_state, caller) => ({ kind: 'remove', actor: caller.userId }));
