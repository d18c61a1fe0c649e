// AddUserGrant (POST /management/v1/users/{userId}/grants): roles of a project
// of the call's org given to a user the caller sees and not removed (ZITADEL's user grant,
// owned by the project's org). Each role must be one of the project's (400 on
// roleKeys[i]); one grant per user and project (409 USER_GRANT_EXISTS).
// Containment does not apply: a project role is the app's, not a Keyhold
// permission, so it gives the user nothing the caller lacks in Keyhold.
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { userGrantDecider } from '../../domain/usergrant/decider.js';
import { authorize, orgContext, projectInOrg, visibleLiveUser } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { assertProjectRoles, roleKeysViolations } from './grant-roles.js';

export interface AddUserGrantInput {
  userId: string;
  projectId: string;
  roleKeys: readonly string[];
}

export async function addUserGrant(ports: Ports, call: Call, input: AddUserGrantInput): Promise<{ userGrantId: string; written: Written }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const violations = [...requiredId('userId', input.userId), ...requiredId('projectId', input.projectId), ...roleKeysViolations(input.roleKeys)];
  if (violations.length) throw invalidRequest(violations);
  const project = await projectInOrg(ports.lookups, input.projectId, orgId);
  await visibleLiveUser(ports.lookups, caller, input.userId);
  authorize(caller, 'user.grant.write', { orgId, projectId: project.id });
  await assertProjectRoles(ports.lookups, project.id, input.roleKeys);
  const userGrantId = ports.ids.newId();
  const events = await runCommand(
    ports.events,
    { type: 'usergrant', id: userGrantId },
    userGrantDecider(userGrantId),
    { kind: 'add', userId: input.userId, projectId: project.id, orgId, roleKeys: input.roleKeys, actor: caller.userId },
    { creates: true, conflictMetadata: { userId: input.userId, projectId: project.id } },
  );
  return { userGrantId, written: written(events, userGrantId) };
}
