// Project grants (ZITADEL's management v1): AddProjectGrant, UpdateProjectGrant,
// DeactivateProjectGrant / ReactivateProjectGrant, RemoveProjectGrant. Only the
// project's org grants it (project.grant.write: ORG_OWNER, IAM_OWNER), to another
// org that exists and is active, with roles of the project (400 at roleKeys[i]);
// one grant per project and org (409 PROJECT_GRANT_EXISTS, decided on the
// project's history, so racing adds meet there). The user grants the granted
// org gave under it follow it without an event of their own, whatever their
// number: the grant's one event narrows or deletes their rows in one statement
// (store/projections/projects.ts), tokens read only keys the grant holds while
// it is active (store/queries), and a user grant under a grant that is gone
// cannot be changed (users/user-grant-lifecycle.ts). A deactivated grant keeps
// them but gives no role and admits nobody.
import { invalidRequest, KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { projectDecider, type ProjectCommand, type ProjectState } from '../../domain/project/decider.js';
import type { Call } from '../../access/caller.js';
import { projectForCall } from '../../access/project-call.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { roleKeysViolations } from '../users/grant-roles.js';

export interface ProjectGrantRef {
  projectId: string;
  grantId: string;
}

export async function addProjectGrant(
  ports: Ports,
  call: Call,
  input: { projectId: string; grantedOrgId: string; roleKeys: readonly string[] },
): Promise<{ grantId: string; written: Written }> {
  const more = [...requiredId('grantedOrgId', input.grantedOrgId), ...roleKeysViolations(input.roleKeys)];
  const { caller, project } = await projectForCall(ports.lookups, call, { field: 'projectId', value: input.projectId }, 'project.grant.write', more);
  // An org that does not exist and one that is deactivated are refused alike (400): granting
  // reveals nothing an ORG_OWNER could not learn by granting, and a deactivated org's users cannot use it.
  if (input.grantedOrgId !== project.orgId && (await ports.lookups.orgStateOf(input.grantedOrgId)) !== 'active') {
    throw invalidRequest([violation('grantedOrgId', { en: 'is not an existing, active organization', de: 'ist keine bestehende, aktive Organisation' })]);
  }
  const grantId = ports.ids.newId();
  const events = await runCommand(ports.events, { type: 'project', id: project.id }, projectDecider(project.id), {
    kind: 'addGrant',
    grantId,
    grantedOrgId: input.grantedOrgId,
    roleKeys: input.roleKeys,
    actor: caller.userId,
  });
  return { grantId, written: written(events, project.id) };
}

/** The project (its org's, project.grant.write) and the grant's id checked; the commands on the grant follow. */
async function grantCall(ports: Ports, call: Call, ref: ProjectGrantRef, more: ReturnType<typeof requiredId> = []) {
  return projectForCall(ports.lookups, call, { field: 'projectId', value: ref.projectId }, 'project.grant.write', [...requiredId('grantId', ref.grantId), ...more]);
}

/**
 * The command on a grant, refused (404, as a grant that never existed) when its granted org was
 * removed: RemoveOrg deletes the grant's row, not the grant in the project's history, and a grant
 * nobody can list must not be reactivated or widened for an org id that may never come back.
 */
function onLiveGrant(ports: Ports, command: ProjectCommand & { grantId: string }) {
  return async (state: ProjectState): Promise<ProjectCommand> => {
    const grant = state.grants.get(command.grantId);
    if (grant && (await ports.lookups.orgStateOf(grant.grantedOrgId)) === undefined) throw new KeyholdError('PROJECT_GRANT_NOT_FOUND', { grantId: command.grantId });
    return command;
  };
}

export async function updateProjectGrant(ports: Ports, call: Call, input: ProjectGrantRef & { roleKeys: readonly string[] }): Promise<{ written?: Written }> {
  const { caller, project } = await grantCall(ports, call, input, roleKeysViolations(input.roleKeys));
  const roleKeys = [...new Set(input.roleKeys)];
  const command = { kind: 'changeGrant' as const, grantId: input.grantId, roleKeys, actor: caller.userId };
  const events = await runCommand<ProjectState, ProjectCommand>(ports.events, { type: 'project', id: project.id }, projectDecider(project.id), onLiveGrant(ports, command));
  return { written: events.length ? written(events, project.id) : undefined };
}

async function onGrant(ports: Ports, call: Call, ref: ProjectGrantRef, kind: 'deactivateGrant' | 'reactivateGrant'): Promise<{ written: Written }> {
  const { caller, project } = await grantCall(ports, call, ref);
  const events = await runCommand<ProjectState, ProjectCommand>(ports.events, { type: 'project', id: project.id }, projectDecider(project.id), onLiveGrant(ports, { kind, grantId: ref.grantId, actor: caller.userId }));
  return { written: written(events, project.id) };
}

export const deactivateProjectGrant = (ports: Ports, call: Call, input: ProjectGrantRef) => onGrant(ports, call, input, 'deactivateGrant');
export const reactivateProjectGrant = (ports: Ports, call: Call, input: ProjectGrantRef) => onGrant(ports, call, input, 'reactivateGrant');

export async function removeProjectGrant(ports: Ports, call: Call, input: ProjectGrantRef): Promise<{ written: Written }> {
  const { caller, project } = await grantCall(ports, call, input);
  const command = { kind: 'removeGrant' as const, grantId: input.grantId, actor: caller.userId };
  const events = await runCommand<ProjectState, ProjectCommand>(ports.events, { type: 'project', id: project.id }, projectDecider(project.id), onLiveGrant(ports, command));
  return { written: written(events, project.id) };
}
