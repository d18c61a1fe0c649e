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

/**
 * An error travels in gRPC trailers, and clients cap those (8–16 KiB is common;
 * past it a client drops the call or the whole connection). A request can break
 * hundreds of rules (100 entries in each of several lists), so the error names
 * the first violations only, and says how many there were in all.
 */
export const MAX_REPORTED_VIOLATIONS = 20;
const MAX_LISTED_FIELDS = 10;

/** 400 INVALID_REQUEST listing the violated fields (bounded, see above). */
export function invalidRequest(violations: readonly FieldViolation[]): KeyholdError {
  const distinct = [...new Set(violations.map((v) => v.field))];
  const fields =
    distinct.length > MAX_LISTED_FIELDS
      ? `${distinct.slice(0, MAX_LISTED_FIELDS).join(', ')} … (+${distinct.length - MAX_LISTED_FIELDS} more)`
      : distinct.join(', ');
  const reported = violations.slice(0, MAX_REPORTED_VIOLATIONS);
  const metadata: Record<string, string> = { fields };
  if (reported.length < violations.length) metadata.violations = String(violations.length);
  return new KeyholdError('INVALID_REQUEST', metadata, reported);
}
