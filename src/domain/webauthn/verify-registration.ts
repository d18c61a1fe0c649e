// VerifyU2FRegistration's core (design §7): decide whether a registration response
// creates a credential, and if so, what to store.
//
// Order matters only for which reason a response with several faults gets, and is
// fixed: first everything that makes it malformed (shape, base64url, JSON, CBOR,
// authenticator data, id ≠ attested id), then the ceremony in the order of
// WebAuthn §7.1 — type, challenge, origin, RP ID, user presence, user
// verification, key algorithm, attestation format — and last the attestation
// statement itself, the only expensive step (and the only one SimpleWebAuthn
// does: verify-attestation.ts).
import { checkAlgorithm, DEFAULT_ALGORITHMS, readCoseAlgorithm } from './algorithms.js';
import { formatAaguid } from './aaguid.js';
import { checkAttestationFormat } from './attestation-formats.js';
import { parseAttestationObject } from './attestation-object.js';
import { parseAuthenticatorData } from './authenticator-data.js';
import { encodeBase64Url } from './base64url.js';
import { checkAuthenticatorData } from './check-authenticator-data.js';
import { checkCeremony } from './check-ceremony.js';
import { checkCredentialId } from './check-credential-id.js';
import { checkOrigin } from './check-origin.js';
import { checkSelfAttestationAlgorithm } from './check-self-attestation.js';
import { parseClientData } from './client-data.js';
import { readCredentialShape } from './credential-shape.js';
import { Rejection } from './rejection.js';
import { knownTransports } from './transports.js';
import type { RegistrationVerificationInput, RegistrationVerificationResult, VerifiedCredential } from './types.js';
import { verifyAttestation } from './verify-attestation.js';

async function verifyOrReject(input: RegistrationVerificationInput): Promise<VerifiedCredential> {
  // 1. Well-formed?
  const shape = readCredentialShape(input.credential);
  const clientData = parseClientData(shape.clientDataJSON);
  const attestation = parseAttestationObject(shape.attestationObject);
  const authData = parseAuthenticatorData(attestation.authData);
  checkCredentialId(shape.claimedId, authData.credentialId);
  const algorithm = readCoseAlgorithm(authData.coseKey);

  // 2. The ceremony.
  checkCeremony(clientData, input.expectedChallenge);
  checkOrigin(clientData, {
    expectedOrigins: input.expectedOrigins,
    allowCrossOrigin: input.allowCrossOrigin ?? false,
    allowedTopOrigins: input.allowedTopOrigins,
  });
  checkAuthenticatorData(authData, input.expectedRpId, input.requireUserVerification ?? false);
  const supportedAlgorithmIDs = [...(input.supportedAlgorithmIDs ?? DEFAULT_ALGORITHMS)];
  checkAlgorithm(algorithm, supportedAlgorithmIDs);
  const fmt = checkAttestationFormat(attestation.fmt);

  // 3. The attestation statement.
  checkSelfAttestationAlgorithm(attestation, algorithm);
  await verifyAttestation({
    response: shape.response,
    fmt,
    algorithm,
    origin: clientData.origin,
    trustAnchors: input.trustAnchors,
    clientValues: [clientData.origin, clientData.challenge],
  });

  return {
    credentialId: encodeBase64Url(authData.credentialId),
    publicKey: authData.credentialPublicKey,
    algorithm,
    format: fmt,
    aaguid: formatAaguid(authData.aaguid),
    signCount: authData.signCount,
    transports: knownTransports(shape.transports),
    backupEligible: authData.flags.be,
    backedUp: authData.flags.bs,
    userVerified: authData.flags.uv,
    rpId: input.expectedRpId,
  };
}

/**
 * Verifies a WebAuthn registration response. Resolves to the credential to store,
 * or to the reason it is refused; it does not throw for anything in `credential`.
 */
export async function verifyRegistration(input: RegistrationVerificationInput): Promise<RegistrationVerificationResult> {
  try {
    return { ok: true, credential: await verifyOrReject(input) };
  } catch (error) {
    if (error instanceof Rejection) return { ok: false, reason: error.reason, detail: error.detail };
    throw error;
  }
}
