// Field rules shared by the identity requests (orgs, projects, users, members):
// each returns the violations of one field, so a request reports all of them.
import { violation, type FieldViolation } from '../errors/keyhold-error.js';
import { isRole, ROLES, type ScopeType } from './permissions.js';

/** Length in Unicode code points, what a person counts as characters. */
export function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

// C0, DEL and C1 controls: a newline in a name forges log lines and breaks UIs,
// and PostgreSQL cannot store U+0000 in text or jsonb at all (the insert fails).
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/u;

const noControls = (field: string) =>
  violation(field, { en: 'must not contain control characters', de: 'darf keine Steuerzeichen enthalten' });

/** A name-like text: trimmed 1..max characters, no control characters. */
export function requiredText(field: string, value: string, max: number): FieldViolation[] {
  const trimmed = value.trim();
  if (trimmed.length === 0) return [violation(field, { en: 'must not be empty', de: 'darf nicht leer sein' })];
  if (CONTROL_CHARACTER.test(trimmed)) return [noControls(field)];
  if (charLength(trimmed) > max) {
    return [violation(field, { en: `must be at most ${max} characters`, de: `darf höchstens ${max} Zeichen lang sein` })];
  }
  return [];
}

/** A free text (e.g. a description): at most max characters; line breaks and tabs allowed, NUL not. */
export function optionalText(field: string, value: string, max: number): FieldViolation[] {
  if (value.includes('\u0000')) return [noControls(field)];
  return charLength(value) > max
    ? [violation(field, { en: `must be at most ${max} characters`, de: `darf höchstens ${max} Zeichen lang sein` })]
    : [];
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
  return [];
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
