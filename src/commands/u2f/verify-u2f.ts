// VerifyU2FRegistration (seed spec §3, design §7): check the browser's answer
// to a pending registration and make it a security key. The hot path of the
// user API: decided on this process's copy of the registration when it has one
// (the U2F commands' event store keeps them, ../recent-copies.ts).
//
// The user's FIRST key (no other ready one) brings a set of recovery codes
// (for a lost key), written in the same transaction and answered once —
// but only when the user verifies the key themself: the codes are self-only
// (../users/recovery-codes.ts), so a key an administrator enrolls for another
// user brings none; that user generates them (GenerateRecoveryCodes).
import { invalidRequest, KeyholdError, violation, type FieldViolation } from '../../domain/errors/keyhold-error.js';
import { requiredId, requiredText } from '../../domain/identity/text-rules.js';
import { assertVerifiable, u2fDecider, type U2fCommand } from '../../domain/u2f/decider.js';
import { userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommands, target } from '../run.js';
import { hasOtherStrongFactor } from '../strong-factors.js';
import { firstFactorCodes, firstFactorGenerations } from '../users/recovery-codes.js';
import { written, type Written } from '../written.js';

/** Seed spec §2.3: the credential's JSON serialization is 55..1048576 characters. */
export const CREDENTIAL_JSON_MIN = 55;
export const CREDENTIAL_JSON_MAX = 1_048_576;

export interface VerifyU2fInput {
  userId: string;
  u2fId: string;
  /** The RegistrationResponseJSON as parsed JSON; anything else is refused, never thrown on. */
  credential: unknown;
  tokenName: string;
}

export function credentialViolations(credential: unknown): FieldViolation[] {
  if (credential === undefined) return [violation('publicKeyCredential', { en: 'is required', de: 'ist erforderlich' })];
  const length = JSON.stringify(credential).length;
  if (length < CREDENTIAL_JSON_MIN || length > CREDENTIAL_JSON_MAX) {
    return [
      violation('publicKeyCredential', {
        en: `must serialize to ${CREDENTIAL_JSON_MIN} to ${CREDENTIAL_JSON_MAX} characters of JSON (got ${length})`,
        de: `muss als JSON ${CREDENTIAL_JSON_MIN} bis ${CREDENTIAL_JSON_MAX} Zeichen lang sein (sind ${length})`,
      }),
    ];
  }
  return [];
}

export async function verifyU2fRegistration(ports: Ports, { caller }: Call, input: VerifyU2fInput): Promise<{ written: Written; recoveryCodes: string[] }> {
  const violations = [
    ...requiredId('userId', input.userId),
    ...requiredId('u2fId', input.u2fId),
    ...credentialViolations(input.credential),
    ...requiredText('tokenName', input.tokenName, 200),
  ];
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  const { u2fId } = input;
  const tokenName = input.tokenName.trim();
  const now = () => ports.clock.now();
  // A missing token, or one of another user, is U2F_NOT_FOUND from its events
  // (assertVerifiable, first thing below): no separate read-model lookup.
  // Self only, and only for the first strong factor (no other ready key or
  // passkey; this registration is still pending, so not among them).
  const generations = await firstFactorGenerations(ports, user.id, caller.userId);
  const first = generations !== undefined && !(await hasOtherStrongFactor(ports, user.id, u2fId));
  const set = first ? await firstFactorCodes(ports, user.id, caller.userId, generations) : undefined;
  const events = await runCommands(
    ports.events,
    [
      target({ type: 'u2f', id: u2fId }, u2fDecider(u2fId, user.id, now), async (state): Promise<U2fCommand> => {
        // State first (already verified, expired), then the credential itself.
        assertVerifiable(state, user.id, now());
        const result = await ports.verifyRegistration({
          credential: input.credential,
          expectedChallenge: state.challenge,
          expectedOrigins: ports.webauthn().origins,
          expectedRpId: state.rpId,
        });
        if (!result.ok) throw new KeyholdError(result.reason, { u2fId, detail: result.detail });
        return { kind: 'verify', credential: result.credential, tokenName, actor: caller.userId };
      }),
      ...(set ? [set.target] : []),
    ],
    { conflictMetadata: { u2fId } },
  );
  return { written: written(events, u2fId), recoveryCodes: set?.codesOf(events) ?? [] };
}
