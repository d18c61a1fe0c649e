// First gate: the registration response must have the JSON shape of WebAuthn's
// RegistrationResponseJSON, with every binary member in base64url. Nothing past
// this point has to ask "is this a string?" again.
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { decodeBase64Url } from './base64url.js';
import { reject } from './rejection.js';

export interface CredentialShape {
  /** The response as SimpleWebAuthn expects it (same object, now known to be well-typed). */
  response: RegistrationResponseJSON;
  /** The credential id the client claims (decoded id, equal to decoded rawId). */
  claimedId: Uint8Array;
  clientDataJSON: Uint8Array;
  attestationObject: Uint8Array;
  /** Transports as sent, unfiltered (strings only). */
  transports: string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireString(owner: Record<string, unknown>, key: string, path: string): string {
  const value = owner[key];
  if (typeof value !== 'string') reject('CREDENTIAL_MALFORMED', `${path} is missing or not a string`);
  if (value.length === 0) reject('CREDENTIAL_MALFORMED', `${path} is empty`);
  return value;
}

export function readCredentialShape(credential: unknown): CredentialShape {
  if (!isObject(credential)) reject('CREDENTIAL_MALFORMED', 'the credential is not a JSON object');

  const type = requireString(credential, 'type', 'type');
  if (type !== 'public-key') reject('CREDENTIAL_MALFORMED', 'type is not "public-key"');

  const id = requireString(credential, 'id', 'id');
  const rawId = requireString(credential, 'rawId', 'rawId');
  const claimedId = decodeBase64Url(id, 'id');
  decodeBase64Url(rawId, 'rawId');
  // Both are base64url of the same bytes by definition; with canonical encoding
  // that means equal strings, which SimpleWebAuthn also insists on.
  if (id !== rawId) reject('CREDENTIAL_MALFORMED', 'id and rawId name different credentials');

  const response = credential.response;
  if (!isObject(response)) reject('CREDENTIAL_MALFORMED', 'response is missing or not an object');
  const clientDataJSON = decodeBase64Url(
    requireString(response, 'clientDataJSON', 'response.clientDataJSON'),
    'response.clientDataJSON',
  );
  const attestationObject = decodeBase64Url(
    requireString(response, 'attestationObject', 'response.attestationObject'),
    'response.attestationObject',
  );

  // Optional in the JSON form (older clients lack getTransports()), but when it is
  // there it must be a list of strings: it is stored and sent back as a hint.
  const rawTransports = response.transports;
  let transports: string[] = [];
  if (rawTransports !== undefined) {
    if (!Array.isArray(rawTransports) || !rawTransports.every((t) => typeof t === 'string')) {
      reject('CREDENTIAL_MALFORMED', 'response.transports is not a list of strings');
    }
    transports = rawTransports as string[];
  }

  return {
    response: credential as unknown as RegistrationResponseJSON,
    claimedId,
    clientDataJSON,
    attestationObject,
    transports,
  };
}
