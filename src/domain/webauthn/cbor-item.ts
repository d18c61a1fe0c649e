// Reads the first CBOR data item of a byte string and how many bytes it spans.
//
// Decoding is SimpleWebAuthn's own (isoCBOR, tiny-cbor), so Keyhold accepts exactly
// the CBOR the attestation verifier will later parse again. tiny-cbor does not
// report the length it consumed, so the item is re-encoded and measured: WebAuthn
// requires CTAP2 canonical CBOR, for which re-encoding reproduces the bytes, and
// this is how SimpleWebAuthn itself walks authenticator data. A non-canonical item
// therefore measures wrong and shows up as leftover bytes, i.e. as malformed.
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { reject } from './rejection.js';

export interface CborItem {
  value: unknown;
  length: number;
}

export function readCborItem(bytes: Uint8Array, what: string): CborItem {
  if (bytes.byteLength === 0) reject('CREDENTIAL_MALFORMED', `${what} is missing`);
  let value: unknown;
  let length: number;
  try {
    // (The cast only narrows the buffer type; decodeFirst copies the bytes.)
    value = isoCBOR.decodeFirst<unknown>(bytes as Uint8Array<ArrayBuffer>);
    length = isoCBOR.encode(value as Parameters<typeof isoCBOR.encode>[0]).byteLength;
  } catch {
    reject('CREDENTIAL_MALFORMED', `${what} is not valid CBOR`);
  }
  return { value, length };
}
