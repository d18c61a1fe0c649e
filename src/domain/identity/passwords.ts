// Passwords: the rules a new password must meet (NIST SP 800-63B
// §3.1.1.2), and its stored form (argon2id with OWASP's parameters).
//
// Rules: at least 8 characters and at most 256, counted as code points of the
// NFC form; no composition rules (no "a digit and a symbol"); not one of the
// common passwords of @zxcvbn-ts/language-common (~49,000, compared without
// case); not the username. Control characters and half UTF-16 pairs are
// refused: neither can be typed into a login form, and a lone surrogate would
// be hashed as U+FFFD (a password that differs from what was sent).
//
// The stored form is the PHC string of argon2id over the NFC form's UTF-8,
// m=19456 KiB, t=2, p=1 (OWASP Password Storage Cheat Sheet). @node-rs/argon2
// hashes on libuv's thread pool, off the event loop. A hash never leaves the
// user's events (SECRET_FIELDS) and its read-model row.
import { createRequire } from 'node:module';
import { hash, verify } from '@node-rs/argon2';
import { HASH_SLOTS } from './hash-slots.js';
import { violation, type FieldViolation } from '../errors/keyhold-error.js';
import { charLength } from './identifiers.js';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

/** OWASP's argon2id parameters (Algorithm.Argon2id is 2; the const enum is not importable under isolatedModules). */
export const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

// The list is loaded on first use, not at start-up: importing the package costs
// ~14 MiB of heap (its ~1.3 MB of source and every dictionary in it), the set
// ~3 MiB more, and a server that never sets a password never needs them
// (PGlite's idle RSS after a first start counts). A synchronous require of
// the package's CommonJS build keeps the rule synchronous; the first password
// checked after a start pays for it once (~30 ms of loading and building).
const load = createRequire(import.meta.url);
let common: ReadonlySet<string> | undefined;
/** The common-password list, as a set (loaded and built on first use). */
const commonPasswords = (): ReadonlySet<string> =>
  (common ??= new Set((load('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common')).dictionary['passwords-common']));

/** The form a password is hashed and compared in. */
export const normalizePassword = (password: string): string => password.normalize('NFC');

/** Is this password one of the common ones (case-insensitive)? */
export function isCommonPassword(password: string): boolean {
  return commonPasswords().has(normalizePassword(password).toLowerCase());
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The violations of a new password at `field` (e.g. 'password.password').
 * Never echoes the password. `username` is the stored form of the user's name
 * ('' skips that rule, for a check before the user is loaded).
 */
export function passwordRule(field: string, password: string, username: string): FieldViolation[] {
  if (password.length === 0) return [violation(field, { en: 'is required', de: 'ist erforderlich' })];
  if (LONE_SURROGATE.test(password)) {
    return [violation(field, { en: 'must not contain half of a UTF-16 pair', de: 'darf keine halbe UTF-16-Einheit enthalten' })];
  }
  if (CONTROL.test(password)) return [violation(field, { en: 'must not contain control characters', de: 'darf keine Steuerzeichen enthalten' })];
  const normalized = normalizePassword(password);
  const length = charLength(normalized);
  if (length < PASSWORD_MIN_LENGTH) {
    return [
      violation(field, {
        en: `must be at least ${PASSWORD_MIN_LENGTH} characters long`,
        de: `muss mindestens ${PASSWORD_MIN_LENGTH} Zeichen lang sein`,
      }),
    ];
  }
  if (length > PASSWORD_MAX_LENGTH) {
    return [
      violation(field, {
        en: `must be at most ${PASSWORD_MAX_LENGTH} characters long`,
        de: `darf höchstens ${PASSWORD_MAX_LENGTH} Zeichen lang sein`,
      }),
    ];
  }
  if (isCommonPassword(normalized)) {
    return [
      violation(field, {
        en: 'is one of the most common passwords, which attackers try first; choose another',
        de: 'ist eines der häufigsten Passwörter, die Angreifer zuerst probieren; bitte ein anderes wählen',
      }),
    ];
  }
  if (username && normalized.toLowerCase() === normalizePassword(username).trim().toLowerCase()) {
    return [violation(field, { en: 'must not be the username', de: 'darf nicht der Benutzername sein' })];
  }
  return [];
}

/** The stored form of a password (call passwordRule first). Runs off the event loop. */
export function hashPassword(password: string): Promise<string> {
  return HASH_SLOTS.run(() => hash(normalizePassword(password), ARGON2_OPTIONS));
}

// A hash of a password nobody knows (made at first use), verified against when
// there is no user or no password, so the answer takes as long as a real check.
let dummy: Promise<string> | undefined;
const dummyHash = (): Promise<string> => (dummy ??= HASH_SLOTS.run(() => hash(`no password ${Math.random()}`, ARGON2_OPTIONS)));

/**
 * Whether `password` is the one `storedHash` was made of. With no stored hash
 * (no such user, or a user without a password) it verifies against a dummy
 * hash and answers false, in about the time of a real check. Malformed hashes
 * answer false, never throw.
 */
export async function verifyPasswordHash(storedHash: string | null | undefined, password: string): Promise<boolean> {
  const candidate = typeof password === 'string' && !LONE_SURROGATE.test(password) ? normalizePassword(password) : '';
  // Always one real check, so that the time tells nothing: no hash (no such user) is checked against
  // the dummy, an empty or unusable password against the user's own hash, and both answer false.
  const against = storedHash || (await dummyHash());
  const matches = await HASH_SLOTS.run(() => verify(against, candidate || 'x')).catch(() => false);
  return Boolean(storedHash) && candidate !== '' && matches;
}
