// RegisterU2F's options (design §7): PublicKeyCredentialCreationOptions in their
// JSON form (WebAuthn L3 §5.4, binary members as base64url). Browsers take them
// via PublicKeyCredential.parseCreationOptionsFromJSON, @simplewebauthn/browser's
// startRegistration({ optionsJSON }) takes them as they are.
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { DEFAULT_ALGORITHMS } from './algorithms.js';
import { decodeBase64Url, encodeBase64Url } from './base64url.js';

export interface CreationOptionsInput {
  rpId: string;
  rpName: string;
  /** Keyhold's user id; its UTF-8 bytes become user.id (the user handle). */
  userId: string;
  userName: string;
  userDisplayName: string;
  /** Fresh random bytes from the caller, exactly 32 (design §7). */
  challenge: Uint8Array;
  timeoutMs: number;
  /** The user's verified credentials for this RP ID, base64url, so a key is not registered twice. */
  excludeCredentialIds: readonly string[];
  attestation: 'none' | 'direct';
  /**
   * A passkey (a first factor): a discoverable credential with user
   * verification, optionally on this kind of authenticator. Absent: a
   * security key (second factor).
   */
  passkey?: { attachment?: 'platform' | 'cross-platform' };
}

const CHALLENGE_LENGTH = 32;
// WebAuthn §5.4.3: user.id is at most 64 bytes.
const MAX_USER_HANDLE_LENGTH = 64;

/** Builds the options; throws (a programming error, not a client's) on invalid input. */
export function buildCreationOptions(input: CreationOptionsInput): PublicKeyCredentialCreationOptionsJSON {
  if (input.challenge.byteLength !== CHALLENGE_LENGTH) {
    throw new RangeError(`challenge must be ${CHALLENGE_LENGTH} bytes, got ${input.challenge.byteLength}`);
  }
  const userHandle = new TextEncoder().encode(input.userId);
  if (userHandle.byteLength === 0 || userHandle.byteLength > MAX_USER_HANDLE_LENGTH) {
    throw new RangeError(`userId must be 1..${MAX_USER_HANDLE_LENGTH} bytes of UTF-8`);
  }
  if (!Number.isInteger(input.timeoutMs) || input.timeoutMs <= 0) {
    throw new RangeError('timeoutMs must be a positive integer');
  }
  for (const id of input.excludeCredentialIds) {
    try {
      decodeBase64Url(id, 'excludeCredentialIds[]');
    } catch {
      throw new RangeError('excludeCredentialIds must be base64url credential ids');
    }
  }

  return {
    rp: { id: input.rpId, name: input.rpName },
    user: { id: encodeBase64Url(userHandle), name: input.userName, displayName: input.userDisplayName },
    challenge: encodeBase64Url(input.challenge),
    pubKeyCredParams: DEFAULT_ALGORITHMS.map((alg) => ({ type: 'public-key' as const, alg })),
    timeout: input.timeoutMs,
    excludeCredentials: input.excludeCredentialIds.map((id) => ({ id, type: 'public-key' as const })),
    authenticatorSelection: input.passkey
      ? // A passkey signs in alone: it must be found without a username (resident)
        // and must verify the person (PIN, biometrics) each time.
        {
          residentKey: 'required',
          requireResidentKey: true,
          userVerification: 'required',
          ...(input.passkey.attachment ? { authenticatorAttachment: input.passkey.attachment } : {}),
        }
      : // A security key as a second factor: no PIN prompt, no discoverable credential
        // filling the key's limited storage.
        { userVerification: 'discouraged', residentKey: 'discouraged' },
    attestation: input.attestation,
  };
}
