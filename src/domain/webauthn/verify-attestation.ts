// The attestation statement — signatures, certificate chains, format rules — is
// verified by SimpleWebAuthn, and only that: every ceremony check runs once, in
// Keyhold (verify-registration.ts), where each failure gets its precise reason.
// SimpleWebAuthn's public API verifies a whole response, so its own ceremony
// checks are switched off where it lets them be: no expected RP ID (its RP ID
// check is a SHA-256 through WebCrypto, a round trip through libuv's thread
// pool on the verification thread — Keyhold compares authData.rpIdHash itself,
// synchronously), user presence not required (checked), the challenge and the
// origin handed over as the ones Keyhold has already accepted. What it still
// repeats cannot be switched off through its API: the type, token binding and
// algorithm comparisons (a few string compares) and decoding the response
// (CBOR, JSON) — the format verifiers (verifyAttestationPacked …) are not
// exported. So whatever SimpleWebAuthn still refuses is the attestation itself.
import {
  PQCNotSupportedError,
  verifyRegistrationResponse,
  type AttestationFormat,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { Rejection, reject } from './rejection.js';
import { withTrustAnchors, type TrustAnchors } from './trust-anchors.js';

export interface AttestationCheck {
  response: RegistrationResponseJSON;
  fmt: AttestationFormat;
  /** The key's algorithm, already checked against the supported ones. */
  algorithm: number;
  trustAnchors?: TrustAnchors;
  /** The origin the client sent, which Keyhold has accepted (check-origin.ts). */
  origin: string;
  /**
   * The origin and challenge the client sent. SimpleWebAuthn quotes them in its own
   * origin/challenge errors; those cannot fire after Keyhold's checks, but details
   * never carry them (design §7), so they are cut out of any message regardless.
   */
  clientValues: string[];
}

const MAX_DETAIL_LENGTH = 200;

/**
 * A short line from a library error. Its messages can run on into PEM dumps after a
 * colon and newline; only the first line is kept, and it is capped in length.
 */
function summarise(error: unknown): string {
  const firstLine = (text: string): string => (text.split('\n')[0] ?? '').trim().replace(/:$/, '');
  let line = firstLine(error instanceof Error ? error.message : String(error));
  const cause = error instanceof Error && error.cause instanceof Error ? firstLine(error.cause.message) : '';
  if (cause && !line.includes(cause)) line += ` (${cause})`;
  if (line.length > MAX_DETAIL_LENGTH) line = `${line.slice(0, MAX_DETAIL_LENGTH - 1)}…`;
  // "Signature could not…" reads better after a colon as "signature could not…";
  // acronyms ("AAGUID …", "TPM …") keep their case.
  return /^[A-Z][a-z]/.test(line) ? line.charAt(0).toLowerCase() + line.slice(1) : line;
}

function redact(detail: string, clientValues: string[]): string {
  return clientValues.filter((v) => v.length > 0).reduce((text, v) => text.split(v).join('[redacted]'), detail);
}

function toRejection(error: unknown, check: AttestationCheck): Rejection {
  const summary = redact(summarise(error), check.clientValues);
  if (error instanceof PQCNotSupportedError) {
    // The key is of an allowed kind, but this runtime cannot check its signatures:
    // storing it would create a credential that can never be used to sign in.
    return new Rejection('ALGORITHM_NOT_ALLOWED', `this server cannot verify the credential's key algorithm (${summary})`);
  }
  return new Rejection('ATTESTATION_INVALID', `${check.fmt} attestation: ${summary}`);
}

export async function verifyAttestation(check: AttestationCheck): Promise<void> {
  let verified: boolean;
  try {
    const result = await withTrustAnchors(check.trustAnchors, () =>
      verifyRegistrationResponse({
        response: check.response,
        // Checked by Keyhold (check-ceremony.ts, check-origin.ts): accepted here as they are.
        expectedChallenge: () => true,
        expectedOrigin: check.origin,
        // No RP ID: Keyhold compared authData.rpIdHash (check-authenticator-data.ts).
        expectedType: 'webauthn.create',
        // Keyhold decided about UP and UV already (UV is optional for a second factor).
        requireUserPresence: false,
        requireUserVerification: false,
        supportedAlgorithmIDs: [check.algorithm],
        // A SafetyNet device that fails Android's compatibility test is not trusted.
        attestationSafetyNetEnforceCTSCheck: true,
      }),
    );
    verified = result.verified;
  } catch (error) {
    throw toRejection(error, check);
  }
  if (!verified) reject('ATTESTATION_INVALID', `${check.fmt} attestation: the attestation signature does not verify`);
}
