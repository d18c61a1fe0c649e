// AddUserGrant (POST /management/v1/users/{userId}/grants): roles of a project
// of the call's org given to a user the caller sees (ZITADEL's user grant,
// owned by the project's org). Each role must be one of the project's (400 on
// roleKeys[i]); one grant per user and project (409 USER_GRANT_EXISTS).
// Containment does not apply: a project role is the app's, not a Keyhold
// permission, so it gives the user nothing the caller lacks in Keyhold.
import { invalidRequest, violation } from '../../domain/errors/keyhold-error.js';
import { requiredId, roleKeyRule } from '../../domain/identity/text-rules.js';
import { userGrantDecider } from '../../domain/usergrant/decider.js';
import { authorize, orgContext, projectInOrg, visibleUser } from '../access.js';
import type { Call } from '../caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export interface AddUserGrantInput {
  userId: string;
  projectId: string;
  roleKeys: readonly string[];
}

const MAX_ROLE_KEYS = 100;

export async function addUserGrant(ports: Ports, call: Call, input: AddUserGrantInput): Promise<{ userGrantId: string; written: Written }> {
  const { caller, orgId } = await orgContext(ports.lookups, call);
  const violations = [...requiredId('userId', input.userId), ...requiredId('projectId', input.projectId)];
  if (input.roleKeys.length === 0) violations.push(violation('roleKeys', { en: 'must name at least one role', de: 'muss mindestens eine Rolle nennen' }));
  if (input.roleKeys.length > MAX_ROLE_KEYS) {
    violations.push(violation('roleKeys', { en: `must name at most ${MAX_ROLE_KEYS} roles`, de: `darf höchstens ${MAX_ROLE_KEYS} Rollen nennen` }));
  } else {
    input.roleKeys.forEach((key, i) => violations.push(...roleKeyRule(`roleKeys[${i}]`, key)));
  }
  if (violations.length) throw invalidRequest(violations);
  const project = await projectInOrg(ports.lookups, input.projectId, orgId);
  await visibleUser(ports.lookups, caller, input.userId);
  authorize(caller, 'user.grant.write', { orgId, projectId: project.id });
  const existing = new Set(await ports.lookups.existingRoleKeys(project.id, input.roleKeys));
  const unknown = input.roleKeys.flatMap((key, i) =>
    existing.has(key) ? [] : [violation(`roleKeys[${i}]`, { en: 'is not a role of the project', de: 'ist keine Rolle des Projekts' })],
  );
  if (unknown.length) throw invalidRequest(unknown);
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
