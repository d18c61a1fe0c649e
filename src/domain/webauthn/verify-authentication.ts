// A login's WebAuthn assertion (authentication ceremony, §7.2) checked against
// one stored key: where it ran (origin, RP ID), that it answers this login's
// challenge, and the signature under the key's public key — by SimpleWebAuthn's
// verifyAuthenticationResponse. The counter rule (a cloned key) is the u2f
// decider's (isClonedCounter), so the counter is handed back, not judged here.
import { verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import { normaliseConfiguredOrigin } from './check-origin.js';

/** Why an assertion fails, as the login names it (U2F_LOGIN_* reasons). */
export type AssertionFailure = 'U2F_LOGIN_WRONG_ORIGIN' | 'U2F_LOGIN_REPLAYED' | 'U2F_LOGIN_INVALID';

export type AssertionResult = { ok: true; signCount: number } | { ok: false; reason: AssertionFailure; detail: string };

/** What the browser said about the ceremony, read without judging it; undefined when unreadable. */
export function assertionClientData(response: unknown): { type: string; challenge: string; origin: string } | undefined {
  const encoded = (response as { response?: { clientDataJSON?: unknown } } | null)?.response?.clientDataJSON;
  if (typeof encoded !== 'string' || encoded.length > 8192) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof parsed.type !== 'string' || typeof parsed.challenge !== 'string' || typeof parsed.origin !== 'string') return undefined;
    return { type: parsed.type, challenge: parsed.challenge, origin: parsed.origin };
  } catch {
    return undefined;
  }
}

/** The credential id an assertion names (base64url), when it is shaped as one. */
export function assertionCredentialId(response: unknown): string | undefined {
  const r = response as { id?: unknown; rawId?: unknown; type?: unknown } | null;
  if (!r || typeof r.id !== 'string' || r.id.length === 0 || r.id.length > 1400 || r.type !== 'public-key') return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(r.id)) return undefined;
  return r.id;
}

/**
 * The user handle an assertion carries (response.userHandle: base64url of
 * the user.id the registration set, Keyhold's user id in UTF-8); undefined
 * when absent or not shaped as one.
 */
export function assertionUserHandle(response: unknown): string | undefined {
  const handle = (response as { response?: { userHandle?: unknown } } | null)?.response?.userHandle;
  if (typeof handle !== 'string' || handle.length === 0 || handle.length > 88 || !/^[A-Za-z0-9_-]+$/.test(handle)) return undefined;
  return Buffer.from(handle, 'base64url').toString('utf8');
}

/**
 * Whether the authenticator data sets user verification (UV, flags bit 2),
 * read without judging the rest; undefined when unreadable. A passkey login
 * refuses an assertion without it with its own reason before the signature
 * is checked.
 */
export function assertionUserVerified(response: unknown): boolean | undefined {
  const encoded = (response as { response?: { authenticatorData?: unknown } } | null)?.response?.authenticatorData;
  if (typeof encoded !== 'string' || encoded.length > 8192) return undefined;
  const bytes = Buffer.from(encoded, 'base64url');
  // rpIdHash (32 bytes), then the flags byte.
  if (bytes.length < 37) return undefined;
  return (bytes[32]! & 0x04) !== 0;
}

export async function verifyAssertion(input: {
  response: unknown;
  expectedChallenge: string;
  origins: readonly string[];
  rpId: string;
  credentialId: string;
  /** base64url COSE key, as stored at registration */
  publicKey: string;
  /** A passkey (a first factor): the UV flag must be set. Default false: a second factor. */
  requireUserVerification?: boolean;
}): Promise<AssertionResult> {
  const clientData = assertionClientData(input.response);
  if (!clientData || clientData.type !== 'webauthn.get') return { ok: false, reason: 'U2F_LOGIN_INVALID', detail: 'clientDataJSON is not an assertion' };
  if (!input.origins.map(normaliseConfiguredOrigin).includes(clientData.origin)) {
    return { ok: false, reason: 'U2F_LOGIN_WRONG_ORIGIN', detail: 'origin not configured' };
  }
  if (clientData.challenge !== input.expectedChallenge) return { ok: false, reason: 'U2F_LOGIN_REPLAYED', detail: 'challenge of another ceremony' };
  try {
    const result = await verifyAuthenticationResponse({
      response: input.response as AuthenticationResponseJSON,
      expectedChallenge: input.expectedChallenge,
      expectedOrigin: input.origins.map(normaliseConfiguredOrigin),
      expectedRPID: input.rpId,
      expectedType: 'webauthn.get',
      // The counter is judged by the decider (isClonedCounter): 0 here skips the library's own check.
      credential: { id: input.credentialId, publicKey: Buffer.from(input.publicKey, 'base64url'), counter: 0 },
      // A second factor: presence is enough (userVerification "discouraged"); a passkey needs UV.
      requireUserVerification: input.requireUserVerification ?? false,
    });
    if (!result.verified) return { ok: false, reason: 'U2F_LOGIN_INVALID', detail: 'signature not verified' };
    return { ok: true, signCount: result.authenticationInfo.newCounter };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // SimpleWebAuthn names the RP ID hash mismatch in its message.
    if (/rp ?id/i.test(message)) return { ok: false, reason: 'U2F_LOGIN_WRONG_ORIGIN', detail: 'RP ID hash differs' };
    return { ok: false, reason: 'U2F_LOGIN_INVALID', detail: message.slice(0, 200) };
  }
}
