// The shapes verifyRegistration takes and returns.
import type { RegistrationFailure } from './reasons.js';
import type { TrustAnchors } from './trust-anchors.js';

export interface RegistrationVerificationInput {
  /** The parsed RegistrationResponseJSON the client sent; anything else is refused, never thrown on. */
  credential: unknown;
  /** base64url of the challenge this registration issued. */
  expectedChallenge: string;
  /** Origins a registration may come from (KEYHOLD_WEBAUTHN_ORIGINS). */
  expectedOrigins: readonly string[];
  /** The RP ID the options named; authData.rpIdHash must be its SHA-256. */
  expectedRpId: string;
  /** Default false: a security key is a second factor (design §7, userVerification "discouraged"). */
  requireUserVerification?: boolean;
  /** COSE algorithm ids accepted; default ES256, EdDSA, RS256 — the ones buildCreationOptions offers. */
  supportedAlgorithmIDs?: readonly number[];
  /** Root certificates per attestation format; formats left out keep SimpleWebAuthn's defaults. */
  trustAnchors?: TrustAnchors;
  /** Accept credentials created in a cross-origin iframe (clientData.crossOrigin). Default false. */
  allowCrossOrigin?: boolean;
  /** When cross-origin is allowed: the embedding top-level origins accepted (default: any). */
  allowedTopOrigins?: readonly string[];
}

/** What Keyhold stores for a verified security key (design §7). */
export interface VerifiedCredential {
  /** base64url of the credential id, as in the response's id and in authData. */
  credentialId: string;
  /** The COSE_Key exactly as the authenticator put it in authData. */
  publicKey: Uint8Array;
  /** COSE algorithm id of publicKey (e.g. -7 ES256). */
  algorithm: number;
  /** Attestation statement format, e.g. "none", "packed", "fido-u2f". */
  format: string;
  /** Authenticator model id as a UUID string; all zeros for U2F keys and most "none" attestations. */
  aaguid: string;
  signCount: number;
  /** Known AuthenticatorTransport values the client reported, in its order. */
  transports: string[];
  backupEligible: boolean;
  backedUp: boolean;
  userVerified: boolean;
  rpId: string;
}

export type RegistrationVerificationResult = { ok: true; credential: VerifiedCredential } | RegistrationFailure;
