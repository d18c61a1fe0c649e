// The attestationObject is one CBOR map: { fmt, attStmt, authData }. This reads
// it without judging the statement (that is SimpleWebAuthn's job, later).
import { readCborItem } from './cbor-item.js';
import { reject } from './rejection.js';

export interface AttestationObject {
  fmt: string;
  attStmt: Map<unknown, unknown>;
  authData: Uint8Array;
}

export function parseAttestationObject(bytes: Uint8Array): AttestationObject {
  const { value, length } = readCborItem(bytes, 'response.attestationObject');
  if (length !== bytes.byteLength) {
    reject('CREDENTIAL_MALFORMED', 'response.attestationObject is not exactly one canonical CBOR map');
  }
  if (!(value instanceof Map)) reject('CREDENTIAL_MALFORMED', 'response.attestationObject is not a CBOR map');
  const fmt = value.get('fmt');
  const attStmt = value.get('attStmt');
  const authData = value.get('authData');
  if (typeof fmt !== 'string' || fmt.length === 0) {
    reject('CREDENTIAL_MALFORMED', 'attestationObject.fmt is missing or not a text string');
  }
  if (!(attStmt instanceof Map)) reject('CREDENTIAL_MALFORMED', 'attestationObject.attStmt is missing or not a map');
  if (!(authData instanceof Uint8Array)) {
    reject('CREDENTIAL_MALFORMED', 'attestationObject.authData is missing or not a byte string');
  }
  return { fmt, attStmt, authData };
}
