// Project grants (ZITADEL's management v1): AddProjectGrant, UpdateProjectGrant,
// DeactivateProjectGrant / ReactivateProjectGrant, RemoveProjectGrant. Only the
// project's org grants it (project.grant.write: ORG_OWNER, IAM_OWNER), to another
// org that exists and is active, with roles of the project (400 at roleKeys[i]);
// one grant per project and org (409 PROJECT_GRANT_EXISTS, decided on the
// project's history, so racing adds meet there). The user grants the granted
// org gave under it follow it in the same append: UpdateProjectGrant takes the
// dropped roles from them, RemoveProjectGrant removes them (bounded as
// RemoveProject). A deactivated grant keeps them but gives no role and admits
// nobody (store/queries read the grant's state at each login and token use).
import { invalidRequest, violation } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { projectDecider, type ProjectCommand, type ProjectState } from '../../domain/project/decider.js';
import { userGrantDecider } from '../../domain/usergrant/decider.js';
import type { Call } from '../../access/caller.js';
import { projectForCall } from '../../access/project-call.js';
import type { Ports } from '../ports.js';
import { runCommand, runCommands, target } from '../run.js';
import { written, type Written } from '../written.js';
import { roleKeysViolations } from '../users/grant-roles.js';
import { assertCascadeBounded } from './cascade-bound.js';

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

export async function updateProjectGrant(ports: Ports, call: Call, input: ProjectGrantRef & { roleKeys: readonly string[] }): Promise<{ written?: Written }> {
  const { caller, project } = await grantCall(ports, call, input, roleKeysViolations(input.roleKeys));
  const userGrantIds = await ports.lookups.userGrantIdsOfProjectGrant(input.grantId);
  assertCascadeBounded(userGrantIds.length);
  const actor = caller.userId;
  const roleKeys = [...new Set(input.roleKeys)];
  const events = await runCommands(ports.events, [
    target({ type: 'project', id: project.id }, projectDecider(project.id), { kind: 'changeGrant', grantId: input.grantId, roleKeys, actor }),
    ...userGrantIds.map((id) => target({ type: 'usergrant', id }, userGrantDecider(id), { kind: 'cascadeKeepRoles', roleKeys, actor })),
  ]);
  return { written: events.length ? written(events, project.id) : undefined };
}

async function onGrant(ports: Ports, call: Call, ref: ProjectGrantRef, kind: 'deactivateGrant' | 'reactivateGrant'): Promise<{ written: Written }> {
  const { caller, project } = await grantCall(ports, call, ref);
  const command: ProjectCommand = { kind, grantId: ref.grantId, actor: caller.userId };
  const events = await runCommand<ProjectState, ProjectCommand>(ports.events, { type: 'project', id: project.id }, projectDecider(project.id), command);
  return { written: written(events, project.id) };
}

export const deactivateProjectGrant = (ports: Ports, call: Call, input: ProjectGrantRef) => onGrant(ports, call, input, 'deactivateGrant');
export const reactivateProjectGrant = (ports: Ports, call: Call, input: ProjectGrantRef) => onGrant(ports, call, input, 'reactivateGrant');

export async function removeProjectGrant(ports: Ports, call: Call, input: ProjectGrantRef): Promise<{ written: Written }> {
  const { caller, project } = await grantCall(ports, call, input);
  const userGrantIds = await ports.lookups.userGrantIdsOfProjectGrant(input.grantId);
  assertCascadeBounded(userGrantIds.length);
  const actor = caller.userId;
  const events = await runCommands(ports.events, [
    ...userGrantIds.map((id) => target({ type: 'usergrant', id }, userGrantDecider(id), { kind: 'cascadeRemove', actor })),
    target({ type: 'project', id: project.id }, projectDecider(project.id), { kind: 'removeGrant', grantId: input.grantId, actor }),
  ]);
  return { written: written(events, project.id) };
}
