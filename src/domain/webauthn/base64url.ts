// Strict base64url (RFC 4648 §5, no padding), the only binary encoding WebAuthn's
// JSON forms use. Node's Buffer decoder is lenient: it silently accepts '+', '/'
// and '=', and skips characters it does not know, so standard base64 would decode
// to different bytes without any error (and so does SimpleWebAuthn's). Keyhold
// refuses such input with a message that says what is wrong instead.
import { reject } from './rejection.js';

const ALPHABET = /^[A-Za-z0-9_-]*$/;

/**
 * Decodes `value`, naming `field` (a JSON path such as "response.clientDataJSON") in
 * the CREDENTIAL_MALFORMED detail if it is not canonical, unpadded base64url.
 */
export function decodeBase64Url(value: string, field: string): Uint8Array {
  if (/[+/=]/.test(value)) {
    reject(
      'CREDENTIAL_MALFORMED',
      `${field} is standard base64 ('+', '/' or '=' found); WebAuthn JSON uses unpadded base64url`,
    );
  }
  if (!ALPHABET.test(value)) {
    reject('CREDENTIAL_MALFORMED', `${field} contains characters outside the base64url alphabet`);
  }
  // 4n+1 characters cannot come from any byte string.
  if (value.length % 4 === 1) {
    reject('CREDENTIAL_MALFORMED', `${field} has a length no base64url encoding can have`);
  }
  const bytes = Buffer.from(value, 'base64url');
  // Unused low bits of the last character must be zero. Otherwise several strings
  // spell the same bytes, and a credential id could be stored under two spellings.
  if (bytes.toString('base64url') !== value) {
    reject('CREDENTIAL_MALFORMED', `${field} is not canonical base64url (its last character carries stray bits)`);
  }
  // A copy with its own ArrayBuffer: small Buffers are views into a shared pool.
  return Uint8Array.from(bytes);
}

/** Unpadded base64url of `bytes`. */
export function encodeBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}
