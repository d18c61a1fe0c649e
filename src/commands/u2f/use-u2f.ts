// UseU2F: the login's second factor. The browser's assertion for
// this login's challenge is checked against the user's key it names; the key's
// new signature counter is stored (u2f.used), or — a counter that went back, a
// cloned key — the login is refused and that is recorded (u2f.signcount.refused).
// Not caller-authorized: the OpenID Provider's login runs it for the user who
// has just given the right password (the actor). Load (the key's events),
// decide (u2f decider, kind 'use'), append.
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import type { Reason } from '../../domain/errors/reasons.js';
import { u2fDecider } from '../../domain/u2f/decider.js';
import { assertionCredentialId, verifyAssertion } from '../../domain/webauthn/verify-authentication.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';

export interface UseU2fInput {
  userId: string;
  /** The app the login is for (kept in the events). */
  clientId: string;
  /** The browser's AuthenticationResponseJSON, as parsed JSON; anything else is refused, never thrown on. */
  response: unknown;
  /** The challenge this login handed out (base64url), still unspent. */
  expectedChallenge: string;
}

export type U2fLoginReason = Extract<Reason, `U2F_LOGIN_${string}`>;

export type UseU2fResult = { ok: true; u2fId: string } | { ok: false; reason: U2fLoginReason };

const isLoginReason = (reason: string): reason is U2fLoginReason => reason.startsWith('U2F_LOGIN_');

export async function useU2f(ports: Ports, input: UseU2fInput): Promise<UseU2fResult> {
  const credentialId = assertionCredentialId(input.response);
  if (!credentialId) return { ok: false, reason: 'U2F_LOGIN_INVALID' };
  const token = await ports.lookups.u2fByCredentialId(credentialId);
  if (!token) return { ok: false, reason: 'U2F_LOGIN_UNKNOWN_CREDENTIAL' };
  if (token.userId !== input.userId) return { ok: false, reason: 'U2F_LOGIN_OTHER_USER' };
  try {
    const events = await runCommand(ports.events, { type: 'u2f', id: token.id }, u2fDecider(token.id, input.userId, () => ports.clock.now()), async (state) => {
      if (!state.verified || state.credentialId !== credentialId) throw new KeyholdError('U2F_LOGIN_UNKNOWN_CREDENTIAL', { u2fId: token.id });
      const checked = await verifyAssertion({
        response: input.response,
        expectedChallenge: input.expectedChallenge,
        origins: ports.webauthn().origins,
        rpId: state.rpId,
        credentialId,
        publicKey: state.publicKey,
      });
      if (!checked.ok) throw new KeyholdError(checked.reason, { u2fId: token.id });
      return { kind: 'use' as const, signCount: checked.signCount, clientId: input.clientId, actor: input.userId };
    });
    if (events.some((e) => e.type === 'u2f.signcount.refused')) return { ok: false, reason: 'U2F_LOGIN_CLONED' };
    return { ok: true, u2fId: token.id };
  } catch (e) {
    if (e instanceof KeyholdError && isLoginReason(e.reason)) return { ok: false, reason: e.reason };
    throw e;
  }
}
