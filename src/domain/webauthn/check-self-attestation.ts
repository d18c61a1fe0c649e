// Packed self attestation (WebAuthn §8.2, no x5c) is signed with the credential's
// own key, and the spec requires its `alg` to be that key's algorithm.
// SimpleWebAuthn only uses `alg` to pick the hash, so an ES256 key with a
// statement claiming RS256 (both SHA-256) would pass there; Keyhold checks it.
import type { AttestationObject } from './attestation-object.js';
import { reject } from './rejection.js';

export function checkSelfAttestationAlgorithm(attestation: AttestationObject, keyAlgorithm: number): void {
  if (attestation.fmt !== 'packed' || attestation.attStmt.has('x5c')) return;
  if (attestation.attStmt.get('alg') !== keyAlgorithm) {
    reject('ATTESTATION_INVALID', "packed attestation: the self-attestation alg is not the credential key's algorithm");
  }
}
