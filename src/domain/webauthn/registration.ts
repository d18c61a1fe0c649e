// A WebAuthn registration's pending part, alike for a security key
// (../u2f/decider.ts) and a passkey (../passkey/decider.ts): started (with
// its challenge and expiry, in the user's org) → verified; or replaced by a
// newer one of the user (the cap of pending ones), or simply expired. Each
// decider keeps these fields in its state and names its own reasons.
import { KeyholdError } from '../errors/keyhold-error.js';
import type { Reason } from '../errors/reasons.js';

export interface PendingRegistration {
  /** Ever started (an id is never used twice). */
  started: boolean;
  exists: boolean;
  userId: string;
  orgId: string;
  rpId: string;
  challenge: string;
  expiresAt: number;
  verified: boolean;
  /** Ended unverified by a newer registration (pendingToReplace). */
  replaced: boolean;
}

export const NOT_STARTED: PendingRegistration = { started: false, exists: false, userId: '', orgId: '', rpId: '', challenge: '', expiresAt: 0, verified: false, replaced: false };

/** What a registration's started event says of it. */
export interface StartedPayload {
  userId: string;
  rpId: string;
  challenge: string;
  expiresAt: string;
}

/** The state once its registration started (`resourceOwner`: the user's org). */
export const started = <S extends PendingRegistration>(state: S, event: { resourceOwner: string; payload: StartedPayload }): S => ({
  ...state,
  started: true,
  exists: true,
  userId: event.payload.userId,
  orgId: event.resourceOwner,
  rpId: event.payload.rpId,
  challenge: event.payload.challenge,
  expiresAt: Date.parse(event.payload.expiresAt),
});

/** The started event's payload of a new registration `id` of `userId`; an id started before is taken. */
export function startPayload(state: PendingRegistration, id: string, userId: string, command: { rpId: string; challenge: string; expiresAt: string }): StartedPayload {
  if (state.started) throw new KeyholdError('ID_TAKEN', { id });
  return { userId, rpId: command.rpId, challenge: command.challenge, expiresAt: command.expiresAt };
}

/** Whether a new registration still has this one to end: one that ended meanwhile (verified, replaced, removed) no longer counts against the cap. */
export const stillPending = (state: PendingRegistration, userId: string): boolean => state.exists && state.userId === userId && !state.verified && !state.replaced;

/** Each kind's reasons why a registration can no longer be verified. */
export interface NotVerifiable {
  notFound: Reason;
  verified: Reason;
  replaced: Reason;
  expired: Reason;
}

/** Why a registration can no longer be verified, checked before any WebAuthn work (`meta`: the id, as the kind names it). */
export function assertRegistrationVerifiable(state: PendingRegistration, userId: string, now: number, reasons: NotVerifiable, meta: Record<string, string>): void {
  if (!state.exists || state.userId !== userId) throw new KeyholdError(reasons.notFound, meta);
  if (state.verified) throw new KeyholdError(reasons.verified, meta);
  if (state.replaced) throw new KeyholdError(reasons.replaced, meta);
  if (now >= state.expiresAt) throw new KeyholdError(reasons.expired, meta);
}
