// AddUserGrant (POST /management/v1/users/{userId}/grants): roles of a project
// of the call's org given to a user the caller sees and not removed (ZITADEL's user grant,
// owned by the project's org). Each role must be one of the project's (400 on
// roleKeys[i]); one grant per user and project (409 USER_GRANT_EXISTS).
// Containment of Keyhold permissions does not apply: a project role is the
// app's, so it gives the user nothing the caller lacks in Keyhold.
// A project of another org that granted it to the call's org (AddProjectGrant):
// the call's org's admins grant it to the org's own users, with roles the
// active project grant holds only (400 at roleKeys[i]); the grant is then
// owned by the call's org and names the project grant (projectGrantId).
import { invalidRequest, KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { userGrantDecider } from '../../domain/usergrant/decider.js';
import { authorize, orgContext, visibleLiveUser } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { assertGrantedRoles, assertProjectRoles, roleKeysViolations } from './grant-roles.js';
import type { Lookups } from '../ports.js';

export interface AddUserGrantInput {
  userId: string;
  projectId: string;
  /** ZITADEL's projectGrantId: optional, the project grant is found by project and org anyway; when given it must be that one. */
  projectGrantId?: string;
  roleKeys: readonly string[];
}

/** The project of the call's org, or one granted to it (with the project grant); else 404 as if there were none. */
async function grantableProject(
  lookups: Pick<Lookups, 'ownerOfProject' | 'projectGrantFor'>,
  projectId: string,
  orgId: string,
  projectGrantId: string,
): Promise<{ id: string; projectGrant?: { id: string; roleKeys: string[] } }> {
  const owner = await lookups.ownerOfProject(projectId);
  if (owner === orgId && !projectGrantId) return { id: projectId };
  const projectGrant = owner === undefined || owner === orgId ? undefined : await lookups.projectGrantFor(projectId, orgId);
  if (!projectGrant || (projectGrantId && projectGrant.id !== projectGrantId)) {
    throw projectGrantId ? new KeyholdError('PROJECT_GRANT_NOT_FOUND', { grantId: projectGrantId }) : new KeyholdError('PROJECT_NOT_FOUND', { projectId });
  }
  if (projectGrant.state !== 'active') throw new KeyholdError('PROJECT_GRANT_NOT_ACTIVE', { grantId: projectGrant.id });
  return { id: projectId, projectGrant };
}

export async function addUserGrant(ports: Ports, call: Call, input: AddUserGrantInput): Promise<{ userGrantId: string; written: Written }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const projectGrantId = input.projectGrantId ?? '';
  const violations = [
    ...requiredId('userId', input.userId),
    ...requiredId('projectId', input.projectId),
    ...(projectGrantId ? requiredId('projectGrantId', projectGrantId) : []),
    ...roleKeysViolations(input.roleKeys),
  ];
  if (violations.length) throw invalidRequest(violations);
  const project = await grantableProject(ports.lookups, input.projectId, orgId, projectGrantId);
  const user = await visibleLiveUser(ports.lookups, caller, input.userId);
  // Under a project grant: the org's own users, by the org's admins (not the project's owners elsewhere).
  authorize(caller, 'user.grant.write', project.projectGrant ? { orgId } : { orgId, projectId: project.id });
  if (project.projectGrant && user.orgId !== orgId) {
    throw invalidRequest([violation('userId', { en: 'is not a user of the organization the project is granted to', de: 'ist kein Benutzer der Organisation, der das Projekt gewährt ist' })]);
  }
  await assertProjectRoles(ports.lookups, project.id, input.roleKeys);
  if (project.projectGrant) assertGrantedRoles(project.projectGrant.roleKeys, input.roleKeys);
  const userGrantId = ports.ids.newId();
  const events = await runCommand(
    ports.events,
    { type: 'usergrant', id: userGrantId },
    userGrantDecider(userGrantId),
    { kind: 'add', userId: input.userId, projectId: project.id, orgId, roleKeys: input.roleKeys, projectGrantId: project.projectGrant?.id, actor: caller.userId },
    { creates: true, conflictMetadata: { userId: input.userId, projectId: project.id } },
  );
  return { userGrantId, written: written(events, userGrantId) };
}
