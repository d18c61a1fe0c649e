// Field rules shared by the identity requests (orgs, projects, users, members):
// each returns the violations of one field, so a request reports all of them.
// What a name may hold is decided in ./identifiers.ts, the one place for it.
import { FieldViolation, violation } from '../errors/keyhold-error.js';
import { charLength, checkDisplayName, checkUsername, hiddenCharacterProblem, nameProblemTexts, type NameProblem } from './identifiers.js';
import { isRole, ROLES, type ScopeType } from './permissions.js';

export { charLength } from './identifiers.js';

// C0, DEL and C1 controls: a newline in a name forges log lines and breaks UIs,
// and PostgreSQL cannot store U+0000 in text or jsonb at all (the insert fails).
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/u;

const noControls = (field: string) =>
  violation(field, { en: 'must not contain control characters', de: 'darf keine Steuerzeichen enthalten' });

/** A refused name as a field violation: "<field>: must not contain U+202E (…)". */
export function nameViolation(field: string, problem: NameProblem): FieldViolation {
  return new FieldViolation(field, nameProblemTexts(problem));
}

/** A display name (org, project, personal and token names): see checkDisplayName. */
export function requiredText(field: string, value: string, max: number): FieldViolation[] {
  const { problem } = checkDisplayName(value, max);
  return problem ? [nameViolation(field, problem)] : [];
}

/** A display name that may be left empty. */
export function optionalName(field: string, value: string, max: number): FieldViolation[] {
  return value.trim().length === 0 ? [] : requiredText(field, value, max);
}

/** A username (RFC 8265 UsernameCaseMapped): see checkUsername. */
export function usernameRule(field: string, value: string, max: number): FieldViolation[] {
  const { problem } = checkUsername(value, max);
  return problem ? [nameViolation(field, problem)] : [];
}

/**
 * A free text (e.g. a description): at most max characters; line breaks and
 * tabs allowed, NUL not, and no lone surrogate (a driver would store U+FFFD in
 * its place: stored text that differs from what was sent).
 */
export function optionalText(field: string, value: string, max: number): FieldViolation[] {
  if (value.includes('\u0000')) return [noControls(field)];
  if (/\p{Cs}/u.test(value)) {
    return [violation(field, { en: 'must not contain half of a UTF-16 pair', de: 'darf keine halbe UTF-16-Einheit enthalten' })];
  }
  return charLength(value) > max
    ? [violation(field, { en: `must be at most ${max} characters`, de: `darf höchstens ${max} Zeichen lang sein` })]
    : [];
}

/** A project role's key (it becomes a claim key): 1 to 200 of A-Z a-z 0-9 _ . : @ / -. */
export function roleKeyRule(field: string, value: string): FieldViolation[] {
  if (value.length === 0) return [violation(field, { en: 'is required', de: 'ist erforderlich' })];
  if (value.length > 200 || !/^[A-Za-z0-9_.:@/-]+$/.test(value)) {
    return [
      violation(field, {
        en: 'must be 1 to 200 of the characters A-Z a-z 0-9 _ . : @ / -',
        de: 'muss aus 1 bis 200 der Zeichen A-Z a-z 0-9 _ . : @ / - bestehen',
      }),
    ];
  }
  return [];
}

/** Ids are opaque but bounded and printable, so they are safe in logs and metadata. */
export function requiredId(field: string, value: string): FieldViolation[] {
  if (value.length === 0) return [violation(field, { en: 'is required', de: 'ist erforderlich' })];
  if (value.length > 64 || !/^[A-Za-z0-9_@.-]+$/.test(value)) {
    return [violation(field, { en: 'is not a valid id', de: 'ist keine gültige ID' })];
  }
  return [];
}

export function emailRule(field: string, value: string): FieldViolation[] {
  if (value.length > 320 || CONTROL_CHARACTER.test(value) || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) {
    return [violation(field, { en: 'must be an email address', de: 'muss eine E-Mail-Adresse sein' })];
  }
  // An address shown in a console must read as what it is: no invisible or direction-changing characters.
  const hidden = hiddenCharacterProblem(value);
  return hidden ? [nameViolation(field, hidden)] : [];
}

/** Roles of a membership: at least one, each known and meant for this scope. */
export function rolesRule(field: string, roles: readonly string[], scope: ScopeType): FieldViolation[] {
  if (roles.length === 0) return [violation(field, { en: 'must name at least one role', de: 'muss mindestens eine Rolle nennen' })];
  if (roles.length > 16) return [violation(field, { en: 'must name at most 16 roles', de: 'darf höchstens 16 Rollen nennen' })];
  const out: FieldViolation[] = [];
  roles.forEach((role, i) => {
    if (!isRole(role) || ROLES[role].scope !== scope) {
      const allowed = Object.entries(ROLES).filter(([, r]) => r.scope === scope).map(([n]) => n).join(', ');
      out.push(violation(`${field}[${i}]`, { en: `must be one of ${allowed}`, de: `muss eine von ${allowed} sein` }));
    }
  });
  return out;
}
