// What the authenticator itself vouches for: which RP the credential is scoped to
// (rpIdHash) and whether a person was there (UP) or verified (UV).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuthenticatorData } from './authenticator-data.js';
import { reject } from './rejection.js';

export function checkAuthenticatorData(
  authData: AuthenticatorData,
  expectedRpId: string,
  requireUserVerification: boolean,
): void {
  const expectedHash = createHash('sha256').update(expectedRpId, 'utf8').digest();
  if (!timingSafeEqual(expectedHash, authData.rpIdHash)) {
    reject('RP_ID_MISMATCH', 'authData.rpIdHash is not the SHA-256 of this registration\'s RP ID');
  }
  // Always required: a security key registered without a touch proves nothing.
  if (!authData.flags.up) reject('USER_NOT_PRESENT', 'the authenticator did not set the user-present (UP) flag');
  if (requireUserVerification && !authData.flags.uv) {
    reject('USER_NOT_VERIFIED', 'user verification is required but the user-verified (UV) flag is not set');
  }
}
