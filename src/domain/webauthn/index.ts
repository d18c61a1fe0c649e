// Keyhold's WebAuthn registration logic: pure functions, no I/O of their own.
export { buildCreationOptions, type CreationOptionsInput } from './creation-options.js';
export { verifyRegistration } from './verify-registration.js';
export { DEFAULT_ALGORITHMS, COSE_ALG } from './algorithms.js';
export { SUPPORTED_ATTESTATION_FORMATS } from './attestation-formats.js';
export { REGISTRATION_FAILURE_REASONS, type RegistrationFailure, type RegistrationFailureReason } from './reasons.js';
export type { TrustAnchors } from './trust-anchors.js';
export type { RegistrationVerificationInput, RegistrationVerificationResult, VerifiedCredential } from './types.js';
