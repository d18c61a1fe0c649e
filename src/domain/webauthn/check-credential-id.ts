// The id the client reports must be the id the authenticator attested. Otherwise a
// client could register one key under another key's id, and Keyhold would store
// an id that no assertion will ever carry (design §7; SimpleWebAuthn does not
// compare them, go-webauthn does).
import { timingSafeEqual } from 'node:crypto';
import { reject } from './rejection.js';

export function checkCredentialId(claimedId: Uint8Array, attestedId: Uint8Array): void {
  const same = claimedId.byteLength === attestedId.byteLength && timingSafeEqual(claimedId, attestedId);
  if (!same) reject('CREDENTIAL_MALFORMED', 'id does not match the credential id in the authenticator data');
}
