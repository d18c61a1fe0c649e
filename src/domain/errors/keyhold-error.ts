// The one error type the domain and API layers throw. It names a reason from
// REASONS; the transport layer turns it into a google.rpc.Status (src/server/rpc/status.ts).
import type { Language } from '../i18n/language.js';
import { localize, type Texts } from '../i18n/text.js';
import type { Reason } from './reasons.js';

type ViolationParams = Readonly<Record<string, string | number>>;

/**
 * One violated field of a request: its JSON path, and why, in every language
 * (one Texts, ../i18n/text.ts). Rules with a catalog (the OIDC validator) also
 * give a stable `code` and its `params`; clients and tests may match on those.
 * The texts are private (#): a violation compares equal by field, code and params.
 */
export class FieldViolation {
  readonly #texts: Texts<ViolationParams & { field: string }>;
  readonly code?: string;
  readonly params?: ViolationParams;

  constructor(
    /** JSON path in lowerCamelCase: 'name', 'redirectUris[2]', 'profile.givenName'. */
    readonly field: string,
    texts: Texts<ViolationParams & { field: string }>,
    coded?: { code: string; params?: ViolationParams },
  ) {
    this.#texts = texts;
    if (coded) {
      this.code = coded.code;
      if (coded.params) this.params = coded.params;
    }
  }

  describe(lang: Language): string {
    return localize(this.#texts, lang, { ...this.params, field: this.field });
  }
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

/** A violation of `field`, explained by `texts` (templates may use "{field}"). */
export function violation(field: string, texts: Texts<ViolationParams & { field: string }>): FieldViolation {
  return new FieldViolation(field, texts);
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
