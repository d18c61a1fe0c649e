// clientDataJSON is what the browser says about the ceremony: its type, the
// challenge it answered, and the origin of the page. Here it is only read and
// typed; check-client-data.ts and check-origin.ts judge it.
import { JsonRejection, readStrictJson } from '../json/strict-json.js';
import { reject } from './rejection.js';

export interface ClientData {
  type: string;
  challenge: string;
  origin: string;
  /** true when create() ran in an iframe not same-origin with its ancestors. */
  crossOrigin: boolean;
  /** Origin of the top-level page, present (WebAuthn L3) only for cross-origin calls. */
  topOrigin?: string;
}

// TokenBinding statuses WebAuthn ever defined (L1 had "not-supported"; later levels
// dropped the member's checks). SimpleWebAuthn refuses anything else, so Keyhold
// refuses it here first, where the refusal gets its proper reason.
const TOKEN_BINDING_STATUSES = new Set(['present', 'supported', 'not-supported']);

export function parseClientData(bytes: Uint8Array): ClientData {
  // The strict reader: a browser never repeats a member, so `{"type":"webauthn.get",
  // "type":"webauthn.create"}` is a forgery that two parsers would read differently.
  let parsed: unknown;
  try {
    parsed = readStrictJson(bytes);
  } catch (e) {
    if (!(e instanceof JsonRejection)) throw e;
    reject('CREDENTIAL_MALFORMED', `response.clientDataJSON ${e.description}${e.path ? ` (at clientDataJSON.${e.path})` : ''}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    reject('CREDENTIAL_MALFORMED', 'response.clientDataJSON is not a JSON object');
  }
  const data = parsed as Record<string, unknown>;

  for (const key of ['type', 'challenge', 'origin'] as const) {
    if (typeof data[key] !== 'string') {
      reject('CREDENTIAL_MALFORMED', `clientDataJSON.${key} is missing or not a string`);
    }
  }
  if (data.crossOrigin !== undefined && typeof data.crossOrigin !== 'boolean') {
    reject('CREDENTIAL_MALFORMED', 'clientDataJSON.crossOrigin is not a boolean');
  }
  if (data.topOrigin !== undefined && typeof data.topOrigin !== 'string') {
    reject('CREDENTIAL_MALFORMED', 'clientDataJSON.topOrigin is not a string');
  }
  const tokenBinding = data.tokenBinding;
  if (tokenBinding !== undefined) {
    if (typeof tokenBinding !== 'object' || tokenBinding === null || Array.isArray(tokenBinding)) {
      reject('CREDENTIAL_MALFORMED', 'clientDataJSON.tokenBinding is not an object');
    }
    const status = (tokenBinding as Record<string, unknown>).status;
    if (typeof status !== 'string' || !TOKEN_BINDING_STATUSES.has(status)) {
      reject('CREDENTIAL_MALFORMED', 'clientDataJSON.tokenBinding.status is not a known token binding status');
    }
  }

  return {
    type: data.type as string,
    challenge: data.challenge as string,
    origin: data.origin as string,
    crossOrigin: data.crossOrigin === true,
    ...(data.topOrigin !== undefined ? { topOrigin: data.topOrigin as string } : {}),
  };
}
