// UsePasskey: the discoverable login's one step. The browser's assertion for
// this login's challenge names a credential; the passkey holding it is found
// by the credential id alone (no username was given). In this order: the
// signature is checked with user verification required; only then the RP id,
// whether the assertion's userHandle names the passkey's user, and whether
// that user is a human, active user — so a known credential id with guessed
// handles learns nothing about owners or account states without a signature.
// The passkey's new counter is stored (passkey.used) — or, a counter that went
// back (a cloned authenticator), the login is refused and that is recorded
// (passkey.signcount.refused), by the same rule as the security-key step
// (isClonedCounter, ../u2f/use-u2f.ts).
//
// Single use, by this command alone: the passkey refuses every challenge it
// has ever answered (domain/passkey/decider.ts), decided and appended at the
// passkey's sequence, so of N concurrent uses of one assertion one is
// accepted and the others, decided again, are refused — even with a counter
// that stays 0 and a caller that did not spend its challenge.
//
// The user's state is decided in the same run, on the user's events (not the
// read model): a lock, deactivation or removal committed before it refuses
// the login, and so does the user's org forbidding passkeys (nothing recorded); in this process it is queued with the user's other commands.
// The append writes nothing to the user, so another process's lock racing
// the append itself is caught by the login's recordLogin (user.login.succeeded,
// refused for a user not active), which every login finishes with.
//
// Not caller-authorized: the OpenID Provider's login runs it before anyone is
// authenticated. Every refusal is one PASSKEY_LOGIN_* reason; the login
// should show them all alike to the browser (docs/security.md: enumeration).
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import type { Reason } from '../../domain/errors/reasons.js';
import { passkeyDecider, passkeyUserDecider, type PasskeyState } from '../../domain/passkey/decider.js';
import { assertionCredentialId, assertionUserHandle, assertionUserVerified, verifyAssertion } from '../../domain/webauthn/verify-authentication.js';
import type { Ports } from '../ports.js';
import { runCommands, target } from '../run.js';

export interface UsePasskeyInput {
  /** The browser's AuthenticationResponseJSON, as parsed JSON; anything else is refused, never thrown on. */
  response: unknown;
  /** The challenge this login handed out (base64url), still unspent. */
  expectedChallenge: string;
  /** The app the login is for (kept in the events). */
  clientId: string;
  /** The RP ids the login page can use (loginRpIdsOf); a passkey under another is refused as WRONG_ORIGIN. Absent: any configured. */
  rpIds?: readonly string[];
  /** Whether the login policy of the user's org (`orgId`, as the user's events name it) lets passkeys sign in; refused (PASSKEY_LOGIN_NOT_ALLOWED) before anything is recorded. Absent: allowed. */
  passkeysAllowed?: (orgId: string) => Promise<boolean>;
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
  // What the assertion says of itself tells nothing of any account: answered at once.
  const credentialId = assertionCredentialId(input.response);
  if (!credentialId) return { ok: false, reason: 'PASSKEY_LOGIN_INVALID' };
  const handle = assertionUserHandle(input.response);
  // A discoverable credential always returns its user handle: without one the assertion names nobody.
  if (handle === undefined) return { ok: false, reason: 'PASSKEY_LOGIN_INVALID' };
  if (assertionUserVerified(input.response) !== true) return { ok: false, reason: 'PASSKEY_LOGIN_USER_NOT_VERIFIED' };
  const held = await ports.lookups.webauthnCredential(credentialId);
  // Before the signature one answer for every credential that is no passkey: unknown, or a security key's.
  if (!held || held.kind !== 'passkey') return { ok: false, reason: 'PASSKEY_LOGIN_UNKNOWN_CREDENTIAL' };
  const { tokenId: passkeyId, userId } = held;
  const now = () => ports.clock.now();
  try {
    const events = await runCommands(ports.events, [
      target({ type: 'passkey', id: passkeyId }, passkeyDecider(passkeyId, userId, now), async (state: PasskeyState) => {
        if (!state.exists || !state.verified || state.credentialId !== credentialId) throw new KeyholdError('PASSKEY_LOGIN_UNKNOWN_CREDENTIAL', { passkeyId });
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
        // Only a signed assertion learns more: its RP id, whose handle it carries (then the user's state, below).
        if (input.rpIds && !input.rpIds.includes(state.rpId)) throw new KeyholdError('PASSKEY_LOGIN_WRONG_ORIGIN', { passkeyId });
        if (handle !== userId) throw new KeyholdError('PASSKEY_LOGIN_OTHER_USER', { passkeyId });
        return { kind: 'use' as const, signCount: checked.signCount, challenge: input.expectedChallenge, clientId: input.clientId, actor: userId };
      }),
      // Decided after the passkey (so only for a signed assertion), on the user's events in this same run;
      // the org's policy too, so a passkey the policy refuses records no use.
      target({ type: 'user', id: userId }, passkeyUserDecider(userId, passkeyId), async (user: { exists: boolean; orgId: string }) => ({
        kind: 'signIn' as const,
        passkeysAllowed: input.passkeysAllowed && user.exists ? await input.passkeysAllowed(user.orgId) : undefined,
      })),
    ]);
    if (events.some((e) => e.type === 'passkey.signcount.refused')) return { ok: false, reason: 'PASSKEY_LOGIN_CLONED' };
    const orgId = events.find((e) => e.aggregateType === 'passkey')?.resourceOwner;
    if (!orgId) return { ok: false, reason: 'PASSKEY_LOGIN_UNKNOWN_CREDENTIAL' };
    return { ok: true, userId, orgId, passkeyId, amr: [...PASSKEY_AMR] };
  } catch (e) {
    if (e instanceof KeyholdError && isLoginReason(e.reason)) return { ok: false, reason: e.reason };
    throw e;
  }
}
