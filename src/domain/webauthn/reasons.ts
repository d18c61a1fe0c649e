// Why a registration response was refused. The strings are the ErrorInfo.reason
// values of design §7 and the keys of REASONS in src/domain/errors/reasons.ts, so
// the API layer can hand them on unchanged. Each check in verify-registration.ts
// owns exactly one of them, so a client can tell what to fix.

export const REGISTRATION_FAILURE_REASONS = [
  'CREDENTIAL_MALFORMED',
  'WRONG_CEREMONY',
  'CHALLENGE_MISMATCH',
  'ORIGIN_NOT_ALLOWED',
  'RP_ID_MISMATCH',
  'USER_NOT_PRESENT',
  'USER_NOT_VERIFIED',
  'ALGORITHM_NOT_ALLOWED',
  'ATTESTATION_INVALID',
  'ATTESTATION_FORMAT_UNSUPPORTED',
] as const;

export type RegistrationFailureReason = (typeof REGISTRATION_FAILURE_REASONS)[number];

/** A refused registration: the reason, and a short English detail for logs and messages. */
export interface RegistrationFailure {
  ok: false;
  reason: RegistrationFailureReason;
  /** Never contains the origin or challenge the client sent (design §7: ZITADEL echoes them). */
  detail: string;
}
