// VerifyPasskeyRegistration: check the browser's answer to a pending passkey
// registration and make it a passkey. User verification (UV) is required, and
// presence (UP) as ever: a credential without either is refused with its
// reason (USER_NOT_VERIFIED, USER_NOT_PRESENT). A credential id already held
// by any user, as a passkey or a security key, is refused
// (CREDENTIAL_ALREADY_REGISTERED, from webauthn_credentials in the append's
// transaction).
//
// The user's FIRST strong factor (no other ready passkey or security key)
// brings a set of recovery codes, as the first security key does
// (../u2f/verify-u2f.ts): self only, written in the same transaction, answered once.
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { requiredId, requiredText } from '../../domain/identity/text-rules.js';
import { assertPasskeyVerifiable, passkeyDecider, type PasskeyCommand } from '../../domain/passkey/decider.js';
import { userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommands, target } from '../run.js';
import { hasOtherStrongFactor } from '../strong-factors.js';
import { credentialViolations } from '../u2f/verify-u2f.js';
import { firstFactorCodes, firstFactorGenerations } from '../users/recovery-codes.js';
import { written, type Written } from '../written.js';

export interface VerifyPasskeyInput {
  userId: string;
  passkeyId: string;
  /** The RegistrationResponseJSON as parsed JSON; anything else is refused, never thrown on. */
  credential: unknown;
  passkeyName: string;
}

export async function verifyPasskeyRegistration(ports: Ports, { caller }: Call, input: VerifyPasskeyInput): Promise<{ written: Written; recoveryCodes: string[] }> {
  const violations = [
    ...requiredId('userId', input.userId),
    ...requiredId('passkeyId', input.passkeyId),
    ...credentialViolations(input.credential),
    ...requiredText('passkeyName', input.passkeyName, 200),
  ];
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  // A registration started before machines were refused does not become a passkey either.
  if ((await ports.lookups.userFacts(user.id))?.kind !== 'human') throw new KeyholdError('USER_NOT_HUMAN', { userId: user.id });
  const { passkeyId } = input;
  const passkeyName = input.passkeyName.trim();
  const now = () => ports.clock.now();
  const generations = await firstFactorGenerations(ports, user.id, caller.userId);
  const first = generations !== undefined && !(await hasOtherStrongFactor(ports, user.id, passkeyId));
  const set = first ? await firstFactorCodes(ports, user.id, caller.userId, generations) : undefined;
  const events = await runCommands(
    ports.events,
    [
      target({ type: 'passkey', id: passkeyId }, passkeyDecider(passkeyId, user.id, now), async (state): Promise<PasskeyCommand> => {
        assertPasskeyVerifiable(state, user.id, now());
        const result = await ports.verifyRegistration({
          credential: input.credential,
          expectedChallenge: state.challenge,
          expectedOrigins: ports.webauthn().origins,
          expectedRpId: state.rpId,
          requireUserVerification: true,
        });
        if (!result.ok) throw new KeyholdError(result.reason, { passkeyId, detail: result.detail });
        return { kind: 'verify', credential: result.credential, passkeyName, actor: caller.userId };
      }),
      ...(set ? [set.target] : []),
    ],
    { conflictMetadata: { passkeyId } },
  );
  return { written: written(events, passkeyId), recoveryCodes: set?.codesOf(events) ?? [] };
}
