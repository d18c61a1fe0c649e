// Public surface of the OIDC application domain: pure rules, no I/O.
export * from './types.js';
export { OIDC_BOUNDS } from './bounds.js';
export {
  validateOidcApp,
  validateAppName,
  describeViolation,
  OIDC_DEFAULTS,
  RESPONSE_TYPE_GRANTS,
  type CodedViolation,
  type OidcViolationFacts,
  type OidcValidationResult,
} from './validate.js';
export {
  complianceProblems,
  localizeCompliance,
  isNoneCompliant,
  COMPLIANCE_KEY_PREFIX,
  type ComplianceProblem,
  type ComplianceInput,
  type LocalizedCompliance,
} from './compliance.js';
export {
  needsClientSecret,
  generateClientSecret,
  hashClientSecret,
  verifyClientSecret,
  CLIENT_SECRET_LENGTH,
} from './client-secret.js';
export { nextDevicePoll, SLOW_DOWN_STEP_SECONDS, POLL_TOLERANCE, type DevicePollState } from './device-poll.js';
