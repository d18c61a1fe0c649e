// The roles a user grant names (AddUserGrant, UpdateUserGrant): 1 to 100 role
// keys, each well-formed (400 at roleKeys[i]) and a role of the project (400
// at roleKeys[i]: a grant cannot name a role the project does not have), and
// under a project grant one of the roles that grant holds (400 at roleKeys[i]).
import { invalidRequest, violation, type FieldViolation } from '../../domain/errors/keyhold-error.js';
import { roleKeyRule } from '../../domain/identity/text-rules.js';
import type { Lookups } from '../ports.js';

const MAX_ROLE_KEYS = 100;

/** The shape of the list and of each key: checked before anything is read. */
export function roleKeysViolations(roleKeys: readonly string[]): FieldViolation[] {
  const violations: FieldViolation[] = [];
  if (roleKeys.length === 0) violations.push(violation('roleKeys', { en: 'must name at least one role', de: 'muss mindestens eine Rolle nennen' }));
  if (roleKeys.length > MAX_ROLE_KEYS) {
    violations.push(violation('roleKeys', { en: `must name at most ${MAX_ROLE_KEYS} roles`, de: `darf höchstens ${MAX_ROLE_KEYS} Rollen nennen` }));
  } else {
    roleKeys.forEach((key, i) => violations.push(...roleKeyRule(`roleKeys[${i}]`, key)));
  }
  return violations;
}

/** 400 naming each key the project does not have. */
export async function assertProjectRoles(lookups: Pick<Lookups, 'existingRoleKeys'>, projectId: string, roleKeys: readonly string[]): Promise<void> {
  const existing = new Set(await lookups.existingRoleKeys(projectId, roleKeys));
  const unknown = roleKeys.flatMap((key, i) =>
    existing.has(key) ? [] : [violation(`roleKeys[${i}]`, { en: 'is not a role of the project', de: 'ist keine Rolle des Projekts' })],
  );
  if (unknown.length) throw invalidRequest(unknown);
}

/**
 * Containment under a project grant: 400 naming each key the project grant does not hold
 * (the granted org gives its users no more than it was given).
 */
export function assertGrantedRoles(granted: readonly string[], roleKeys: readonly string[]): void {
  const beyond = roleKeys.flatMap((key, i) =>
    granted.includes(key) ? [] : [violation(`roleKeys[${i}]`, { en: 'is not a role the project grant holds', de: 'ist keine Rolle der Projektberechtigung' })],
  );
  if (beyond.length) throw invalidRequest(beyond);
}
