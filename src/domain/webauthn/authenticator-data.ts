// Authenticator data (WebAuthn §6.1), the bytes the authenticator signs:
//
//   rpIdHash(32) flags(1) signCount(4)
//   [AT] aaguid(16) credentialIdLength(2) credentialId(L) credentialPublicKey(COSE, CBOR)
//   [ED] extensions(CBOR map)
//
// Parsed here by hand so that every structural fault has its own message, and so
// that rpIdHash, the flags and the credential id can be checked before any
// attestation work is spent.
import { readCborItem } from './cbor-item.js';
import { reject } from './rejection.js';

export interface AuthenticatorFlags {
  /** User Present (bit 0). */
  up: boolean;
  /** User Verified (bit 2). */
  uv: boolean;
  /** Backup Eligible (bit 3). */
  be: boolean;
  /** Backup State (bit 4). */
  bs: boolean;
  /** Attested credential data included (bit 6). */
  at: boolean;
  /** Extension data included (bit 7). */
  ed: boolean;
}

export interface AuthenticatorData {
  rpIdHash: Uint8Array;
  flags: AuthenticatorFlags;
  signCount: number;
  aaguid: Uint8Array;
  credentialId: Uint8Array;
  /** The COSE_Key bytes exactly as they appear in authData. */
  credentialPublicKey: Uint8Array;
  /** The decoded COSE_Key (CBOR map with integer labels). */
  coseKey: Map<unknown, unknown>;
}

const HEADER_LENGTH = 37; // rpIdHash + flags + signCount
const ATTESTED_HEADER_LENGTH = 18; // aaguid + credentialIdLength
// WebAuthn L3 §7.1 step "credentialId ≤ 1023 bytes": longer ids must fail registration.
const MAX_CREDENTIAL_ID_LENGTH = 1023;

function readFlags(byte: number): AuthenticatorFlags {
  return {
    up: (byte & 0x01) !== 0,
    uv: (byte & 0x04) !== 0,
    be: (byte & 0x08) !== 0,
    bs: (byte & 0x10) !== 0,
    at: (byte & 0x40) !== 0,
    ed: (byte & 0x80) !== 0,
  };
}

export function parseAuthenticatorData(authData: Uint8Array): AuthenticatorData {
  if (authData.byteLength < HEADER_LENGTH) {
    reject('CREDENTIAL_MALFORMED', `authenticator data is ${authData.byteLength} bytes, shorter than its 37-byte header`);
  }
  const view = new DataView(authData.buffer, authData.byteOffset, authData.byteLength);
  const rpIdHash = authData.slice(0, 32);
  const flags = readFlags(authData[32]);
  const signCount = view.getUint32(33, false);

  // A registration is the one ceremony that must carry the new credential.
  if (!flags.at) reject('CREDENTIAL_MALFORMED', 'authenticator data carries no attested credential data (AT flag unset)');
  // WebAuthn §6.1.3: a credential that is not backup eligible cannot be backed up.
  if (flags.bs && !flags.be) {
    reject('CREDENTIAL_MALFORMED', 'authenticator data says backed up (BS) but not backup eligible (BE)');
  }

  let offset = HEADER_LENGTH;
  if (authData.byteLength < offset + ATTESTED_HEADER_LENGTH) {
    reject('CREDENTIAL_MALFORMED', 'attested credential data is truncated before the credential id');
  }
  const aaguid = authData.slice(offset, offset + 16);
  const idLength = view.getUint16(offset + 16, false);
  offset += ATTESTED_HEADER_LENGTH;
  if (idLength === 0 || idLength > MAX_CREDENTIAL_ID_LENGTH) {
    reject('CREDENTIAL_MALFORMED', `the credential id length ${idLength} is outside 1..${MAX_CREDENTIAL_ID_LENGTH} bytes`);
  }
  if (authData.byteLength < offset + idLength) {
    reject('CREDENTIAL_MALFORMED', 'attested credential data is truncated inside the credential id');
  }
  const credentialId = authData.slice(offset, offset + idLength);
  offset += idLength;

  const key = readCborItem(authData.subarray(offset), 'the credential public key');
  if (!(key.value instanceof Map)) reject('CREDENTIAL_MALFORMED', 'the credential public key is not a COSE_Key map');
  const credentialPublicKey = authData.slice(offset, offset + key.length);
  offset += key.length;

  if (flags.ed) {
    const extensions = readCborItem(authData.subarray(offset), 'authenticator extension data');
    if (!(extensions.value instanceof Map)) {
      reject('CREDENTIAL_MALFORMED', 'authenticator extension data is not a CBOR map');
    }
    offset += extensions.length;
  }
  if (offset !== authData.byteLength) {
    reject('CREDENTIAL_MALFORMED', `authenticator data has ${authData.byteLength - offset} unexpected trailing bytes`);
  }

  return { rpIdHash, flags, signCount, aaguid, credentialId, credentialPublicKey, coseKey: key.value };
}
