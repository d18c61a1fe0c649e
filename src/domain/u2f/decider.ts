// A security key's life: registration started (pending, with challenge and
// expiry) → verified (ready) → removed. Each token is its own aggregate, so two
// verifies of one registration meet on its sequence and exactly one wins.
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { NewEvent } from '../../store/events.js';
import type { VerifiedCredential } from '../webauthn/index.js';

export interface U2fState {
  u2fId: string;
  exists: boolean;
  userId: string;
  orgId: string;
  rpId: string;
  challenge: string;
  expiresAt: number;
  verified: boolean;
}

export type U2fCommand =
  | { kind: 'verify'; credential: VerifiedCredential; tokenName: string; actor: string }
  | { kind: 'remove'; actor: string };

/** Why a registration can no longer be verified, checked before any WebAuthn work. */
export function assertVerifiable(state: U2fState, userId: string, now: number): void {
  if (!state.exists || state.userId !== userId) throw new KeyholdError('U2F_NOT_FOUND', { u2fId: state.u2fId });
  if (state.verified) throw new KeyholdError('U2F_ALREADY_VERIFIED', { u2fId: state.u2fId });
  if (now >= state.expiresAt) throw new KeyholdError('U2F_REGISTRATION_EXPIRED', { u2fId: state.u2fId });
}

export function u2fDecider(u2fId: string, userId: string, now: () => number = Date.now): Decider<U2fState, U2fCommand> {
  return {
    initialState: () => ({ u2fId, exists: false, userId: '', orgId: '', rpId: '', challenge: '', expiresAt: 0, verified: false }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'u2f.registration.started':
          return {
            ...state,
            exists: true,
            userId: event.payload.userId,
            orgId: event.resourceOwner,
            rpId: event.payload.rpId,
            challenge: event.payload.challenge,
            expiresAt: Date.parse(event.payload.expiresAt),
          };
        case 'u2f.verified':
          return { ...state, verified: true };
        case 'u2f.removed':
          return { ...state, exists: false };
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent[] => {
      const base = { aggregateType: 'u2f' as const, aggregateId: u2fId, resourceOwner: state.orgId, creator: command.actor };
      switch (command.kind) {
        case 'verify': {
          assertVerifiable(state, userId, now());
          const c = command.credential;
          return [
            {
              ...base,
              type: 'u2f.verified',
              payload: {
                userId,
                tokenName: command.tokenName,
                credentialId: c.credentialId,
                publicKey: Buffer.from(c.publicKey).toString('base64url'),
                algorithm: c.algorithm,
                format: c.format,
                aaguid: c.aaguid,
                signCount: c.signCount,
                transports: c.transports,
                backupEligible: c.backupEligible,
                backedUp: c.backedUp,
                userVerified: c.userVerified,
                rpId: c.rpId,
              },
            },
          ];
        }
        case 'remove':
          if (!state.exists || state.userId !== userId) throw new KeyholdError('U2F_NOT_FOUND', { u2fId });
          return [{ ...base, type: 'u2f.removed', payload: { userId } }];
      }
    },
  };
}
