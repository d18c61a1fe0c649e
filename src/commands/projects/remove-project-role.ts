// RemoveProjectRole (DELETE /management/v1/projects/{projectId}/roles/{roleKey}):
// the role goes, and every user grant holding it loses it in the same append
// (ZITADEL's cascade); a grant left with no role stays, holding none. The roles
// claim and the projectRoleCheck read the grants at each request: the role is
// gone from the next token and login. A grant written with the role while it
// was being removed names a key no longer counted (store/queries/projects.ts).
import { roleKeyRule } from '../../domain/identity/text-rules.js';
import { projectDecider } from '../../domain/project/decider.js';
import { userGrantDecider } from '../../domain/usergrant/decider.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommands, target } from '../run.js';
import { written, type Written } from '../written.js';
import { assertCascadeBounded } from './cascade-bound.js';
import { projectForCall } from '../../access/project-call.js';

export async function removeProjectRole(ports: Ports, call: Call, input: { projectId: string; roleKey: string }): Promise<{ written: Written }> {
  const { caller, project } = await projectForCall(
    ports.lookups,
    call,
    { field: 'projectId', value: input.projectId },
    'project.role.write',
    roleKeyRule('roleKey', input.roleKey),
  );
  const grantIds = await ports.lookups.grantIdsOfProject(project.id, input.roleKey);
  assertCascadeBounded(grantIds.length);
  const actor = caller.userId;
  const events = await runCommands(ports.events, [
    target({ type: 'project', id: project.id }, projectDecider(project.id), { kind: 'removeRole', roleKey: input.roleKey, actor }),
    ...grantIds.map((id) => target({ type: 'usergrant', id }, userGrantDecider(id), { kind: 'cascadeRemoveRole', roleKey: input.roleKey, actor })),
  ]);
  return { written: written(events, project.id) };
}
