// The passkey login's options (WebAuthn L3 §5.5, JSON form): a discoverable
// ceremony — no allowCredentials, so the authenticator offers whichever
// passkeys it holds for the RP id, and the browser can offer them as autofill
// (mediation "conditional" is the page's choice, not part of the options).
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { encodeBase64Url } from './base64url.js';
import { loginRpIdsOf } from './relying-party.js';

const CHALLENGE_LENGTH = 32;

export function buildDiscoverableRequestOptions(input: { rpId: string; challenge: Uint8Array; timeoutMs: number }): PublicKeyCredentialRequestOptionsJSON {
  if (input.challenge.byteLength !== CHALLENGE_LENGTH) {
    throw new RangeError(`challenge must be ${CHALLENGE_LENGTH} bytes, got ${input.challenge.byteLength}`);
  }
  if (!Number.isInteger(input.timeoutMs) || input.timeoutMs <= 0) throw new RangeError('timeoutMs must be a positive integer');
  return {
    challenge: encodeBase64Url(input.challenge),
    rpId: input.rpId,
    timeout: input.timeoutMs,
    allowCredentials: [],
    userVerification: 'required',
  };
}

/**
 * The options of the login page's passkey ceremony at `issuer`: under the
 * first RP id the page can use (loginRpIdsOf), or undefined when it can use
 * none (the issuer's origin is no configured WebAuthn origin, or its host is
 * under no configured RP id) — the page then offers no passkey.
 */
export function passkeyLoginOptions(input: {
  issuer: string;
  rpIds: readonly string[];
  origins: readonly string[];
  challenge: Uint8Array;
  timeoutMs: number;
}): { options: PublicKeyCredentialRequestOptionsJSON; rpIds: string[] } | undefined {
  const rpIds = loginRpIdsOf(input.issuer, input.rpIds, input.origins);
  const rpId = rpIds[0];
  if (rpId === undefined) return undefined;
  return { options: buildDiscoverableRequestOptions({ rpId, challenge: input.challenge, timeoutMs: input.timeoutMs }), rpIds };
}
