// The one error type the domain and API layers throw. It names a reason from
// REASONS; the transport layer turns it into a google.rpc.Status (src/api/errors.ts).
import type { Language } from '../i18n/language.js';
import type { Reason } from './reasons.js';

/** One violated field of a request: JSON path and a description per language. */
export interface FieldViolation {
  field: string;
  describe(lang: Language): string;
}

export class KeyholdError extends Error {
  constructor(
    readonly reason: Reason,
    /** Ids and safe facts; rendered into the message and returned in ErrorInfo.metadata. */
    readonly metadata: Record<string, string> = {},
    readonly violations: readonly FieldViolation[] = [],
  ) {
    super(reason);
    this.name = 'KeyholdError';
  }
}

/** A violation with fixed texts, for validators that have no catalogue of their own. */
export function violation(field: string, texts: Record<Language, string>): FieldViolation {
  return { field, describe: (lang) => texts[lang] };
}

/** 400 INVALID_REQUEST listing every violated field. */
export function invalidRequest(violations: readonly FieldViolation[]): KeyholdError {
  const fields = [...new Set(violations.map((v) => v.field))].join(', ');
  return new KeyholdError('INVALID_REQUEST', { fields }, violations);
}
