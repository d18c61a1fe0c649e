// UsePasskey: the discoverable login's one step. The browser's assertion for
// this login's challenge names a credential; the passkey holding it is found
// by the credential id alone (no username was given), its user must be the
// one the assertion's userHandle names and must be active, the signature is
// checked with user verification required, and the passkey's new counter is
// stored (passkey.used) — or, a counter that went back (a cloned
// authenticator), the login is refused and that is recorded
// (passkey.signcount.refused), by the same rule as the security-key step
// (isClonedCounter, ../u2f/use-u2f.ts).
//
// Single use: the login spends its challenge; here the passkey's own
// aggregate is appended at the sequence it was decided on, so of N
// concurrent uses of one assertion one is accepted, the others are decided
// again on it and refused (its counter, or the same challenge again).
//
// Not caller-authorized: the OpenID Provider's login runs it before anyone is
// authenticated. Every refusal is one PASSKEY_LOGIN_* reason; the login
// should show them all alike to the browser (docs/security.md: enumeration).
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import type { Reason } from '../../domain/errors/reasons.js';
import { passkeyDecider } from '../../domain/passkey/decider.js';
import { assertionCredentialId, assertionUserHandle, assertionUserVerified, verifyAssertion } from '../../domain/webauthn/verify-authentication.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';

export interface UsePasskeyInput {
  /** The browser's AuthenticationResponseJSON, as parsed JSON; anything else is refused, never thrown on. */
  response: unknown;
  /** The challenge this login handed out (base64url), still unspent. */
  expectedChallenge: string;
  /** The app the login is for (kept in the events). */
  clientId: string;
  /** The RP ids the login page can use (loginRpIdsOf); a passkey under another is refused as WRONG_ORIGIN. Absent: any configured. */
  rpIds?: readonly string[];
}

export type PasskeyLoginReason = Extract<Reason, `PASSKEY_LOGIN_${string}`>;

/** amr (RFC 8176) and acr of a passkey login: docs/decisions.md. */
export const PASSKEY_AMR = ['hwk', 'user', 'mfa'] as const;

export type UsePasskeyResult =
  | { ok: true; userId: string; orgId: string; passkeyId: string; amr: string[] }
  | { ok: false; reason: PasskeyLoginReason };

const isLoginReason = (reason: string): reason is PasskeyLoginReason => reason.startsWith('PASSKEY_LOGIN_');

/** The security-key assertion failures, as a passkey login names them. */
const PASSKEY_REASON = {
  U2F_LOGIN_WRONG_ORIGIN: 'PASSKEY_LOGIN_WRONG_ORIGIN',
  U2F_LOGIN_REPLAYED: 'PASSKEY_LOGIN_REPLAYED',
  U2F_LOGIN_INVALID: 'PASSKEY_LOGIN_INVALID',
} as const;

export async function usePasskey(ports: Ports, input: UsePasskeyInput): Promise<UsePasskeyResult> {
  const credentialId = assertionCredentialId(input.response);
  if (!credentialId) return { ok: false, reason: 'PASSKEY_LOGIN_INVALID' };
  const handle = assertionUserHandle(input.response);
  // A discoverable credential always returns its user handle: without one the assertion names nobody.
  if (handle === undefined) return { ok: false, reason: 'PASSKEY_LOGIN_INVALID' };
  const held = await ports.lookups.webauthnCredential(credentialId);
  // A security key's credential is no passkey, whoever holds it.
  if (!held || held.kind !== 'passkey') return { ok: false, reason: 'PASSKEY_LOGIN_UNKNOWN_CREDENTIAL' };
  if (held.userId !== handle) return { ok: false, reason: 'PASSKEY_LOGIN_OTHER_USER' };
  const user = await ports.lookups.userFacts(held.userId);
  if (!user) return { ok: false, reason: 'PASSKEY_LOGIN_UNKNOWN_CREDENTIAL' };
  if (user.state !== 'active') return { ok: false, reason: 'PASSKEY_LOGIN_USER_INACTIVE' };
  if (assertionUserVerified(input.response) !== true) return { ok: false, reason: 'PASSKEY_LOGIN_USER_NOT_VERIFIED' };
  const passkeyId = held.tokenId;
  try {
    const events = await runCommand(ports.events, { type: 'passkey', id: passkeyId }, passkeyDecider(passkeyId, user.id, () => ports.clock.now()), async (state) => {
      if (!state.verified || state.credentialId !== credentialId) throw new KeyholdError('PASSKEY_LOGIN_UNKNOWN_CREDENTIAL', { passkeyId });
      if (input.rpIds && !input.rpIds.includes(state.rpId)) throw new KeyholdError('PASSKEY_LOGIN_WRONG_ORIGIN', { passkeyId });
      const checked = await verifyAssertion({
        response: input.response,
        expectedChallenge: input.expectedChallenge,
        origins: ports.webauthn().origins,
        rpId: state.rpId,
        credentialId,
        publicKey: state.publicKey,
        requireUserVerification: true,
      });
      if (!checked.ok) throw new KeyholdError(PASSKEY_REASON[checked.reason], { passkeyId });
      return { kind: 'use' as const, signCount: checked.signCount, challenge: input.expectedChallenge, clientId: input.clientId, actor: user.id };
    });
    if (events.some((e) => e.type === 'passkey.signcount.refused')) return { ok: false, reason: 'PASSKEY_LOGIN_CLONED' };
    return { ok: true, userId: user.id, orgId: user.orgId, passkeyId, amr: [...PASSKEY_AMR] };
  } catch (e) {
    if (e instanceof KeyholdError && isLoginReason(e.reason)) return { ok: false, reason: e.reason };
    throw e;
  }
}
