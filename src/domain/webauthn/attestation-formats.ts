// Attestation statement formats Keyhold verifies: the seven WebAuthn defines and
// SimpleWebAuthn implements (design §7). Anything else is refused up front with
// its own reason, rather than as a generic attestation failure.
import type { AttestationFormat } from '@simplewebauthn/server';
import { reject } from './rejection.js';

export const SUPPORTED_ATTESTATION_FORMATS: readonly AttestationFormat[] = [
  'none',
  'packed',
  'fido-u2f',
  'tpm',
  'android-key',
  'android-safetynet',
  'apple',
];

export function checkAttestationFormat(fmt: string): AttestationFormat {
  if (!(SUPPORTED_ATTESTATION_FORMATS as readonly string[]).includes(fmt)) {
    // Not echoed: fmt is client-chosen text of any length.
    reject('ATTESTATION_FORMAT_UNSUPPORTED', 'the attestation statement format is not one this server verifies');
  }
  return fmt as AttestationFormat;
}
