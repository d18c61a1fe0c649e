// A security key's life: registration started (pending, with challenge and
// expiry) → verified (ready) → removed; or started → replaced (the user started
// too many others) or simply expired. Each token is its own aggregate, so two
// verifies of one registration meet on its sequence and exactly one wins.
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';
import type { VerifiedCredential } from '../webauthn/index.js';
import { assertRegistrationVerifiable, NOT_STARTED, started, startPayload, stillPending, type PendingRegistration } from '../webauthn/registration.js';

type U2fEventType = EventTypeOf<'u2f'>;

/** The registration's pending part (../webauthn/registration.ts), then the key. */
export interface U2fState extends PendingRegistration {
  /** The key's name (verified or renamed). */
  name?: string;
  u2fId: string;
  /** Once verified: the credential a login checks an assertion against (base64url). */
  credentialId: string;
  publicKey: string;
  /** The signature counter last seen (registration, then each login). */
  signCount: number;
}

export type U2fCommand =
  /** RegisterU2F: a new registration of the decider's user, in `orgId`. */
  | { kind: 'start'; orgId: string; rpId: string; challenge: string; expiresAt: string; actor: string }
  /** RegisterU2F at the cap: end this pending registration of the user, for the new one `by`. */
  | { kind: 'replace'; by: string; actor: string }
  | { kind: 'verify'; credential: VerifiedCredential; tokenName: string; actor: string }
  /** `ifPresent` (RemoveAllU2F): a key removed or replaced meanwhile is nothing to do, not U2F_NOT_FOUND. */
  | { kind: 'remove'; actor: string; ifPresent?: boolean }
  /** A login answered by this key (use-u2f): the assertion verified, with the authenticator's counter `signCount`. */
  | { kind: 'use'; signCount: number; clientId: string; actor: string }
  /** A ready key's new name (the same name: nothing written). */
  | { kind: 'rename'; tokenName: string; actor: string };

/**
 * WebAuthn §6.1.1: a counter that does not increase, where the key reports
 * counters (either value non-zero), means two copies of the key exist — a
 * cloned key. ZITADEL refuses such a login, go-webauthn only warns; Keyhold refuses.
 */
export function isClonedCounter(stored: number, presented: number): boolean {
  return (stored > 0 || presented > 0) && presented <= stored;
}

/** Why a registration can no longer be verified, checked before any WebAuthn work. */
export function assertVerifiable(state: U2fState, userId: string, now: number): void {
  const reasons = { notFound: 'U2F_NOT_FOUND', verified: 'U2F_ALREADY_VERIFIED', replaced: 'U2F_REGISTRATION_REPLACED', expired: 'U2F_REGISTRATION_EXPIRED' } as const;
  assertRegistrationVerifiable(state, userId, now, reasons, { u2fId: state.u2fId });
}

/** The decider of registration `u2fId` of user `userId` (a registration of another user is "not found"). */
export function u2fDecider(u2fId: string, userId: string, now: () => number = Date.now): Decider<U2fState, U2fCommand, U2fEventType> {
  return {
    initialState: () => ({ ...NOT_STARTED, u2fId, credentialId: '', publicKey: '', signCount: 0 }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'u2f.registration.started':
          return started(state, event);
        case 'u2f.registration.replaced':
          return { ...state, replaced: true };
        case 'u2f.verified':
          return { ...state, verified: true, name: event.payload.tokenName, credentialId: event.payload.credentialId, publicKey: event.payload.publicKey, signCount: event.payload.signCount };
        case 'u2f.used':
          return { ...state, signCount: event.payload.signCount };
        case 'u2f.removed':
          return { ...state, exists: false };
        case 'u2f.renamed':
          return { ...state, name: event.payload.tokenName };
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent<U2fEventType>[] => {
      const base = { aggregateType: 'u2f' as const, aggregateId: u2fId, resourceOwner: state.orgId, creator: command.actor };
      switch (command.kind) {
        case 'start':
          return [{ ...base, resourceOwner: command.orgId, type: 'u2f.registration.started', payload: startPayload(state, u2fId, userId, command) }];
        case 'replace':
          if (!stillPending(state, userId)) return [];
          return [{ ...base, type: 'u2f.registration.replaced', payload: { userId, by: command.by } }];
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
          // A replaced registration is gone from the user's list: nothing to remove.
          if (!state.exists || state.replaced || state.userId !== userId) {
            if (command.ifPresent) return [];
            throw new KeyholdError('U2F_NOT_FOUND', { u2fId });
          }
          return [{ ...base, type: 'u2f.removed', payload: { userId } }];
        case 'rename':
          if (!state.exists || state.replaced || !state.verified || state.userId !== userId) throw new KeyholdError('U2F_NOT_FOUND', { u2fId });
          return state.name === command.tokenName ? [] : [{ ...base, type: 'u2f.renamed', payload: { userId, tokenName: command.tokenName } }];
        case 'use': {
          // A removed key, a pending registration, another user's key: none answers a login.
          if (!state.exists || !state.verified || state.userId !== userId) throw new KeyholdError('U2F_LOGIN_UNKNOWN_CREDENTIAL', { u2fId });
          if (isClonedCounter(state.signCount, command.signCount)) {
            return [
              {
                ...base,
                type: 'u2f.signcount.refused',
                payload: { userId, storedSignCount: state.signCount, presentedSignCount: command.signCount, clientId: command.clientId },
              },
            ];
          }
          return [{ ...base, type: 'u2f.used', payload: { userId, signCount: command.signCount, clientId: command.clientId } }];
        }
      }
    },
  };
}

/**
 * Pending registrations one user may have at once, by default. A user (any
 * authenticated one, for itself) could otherwise start registrations without
 * end; a person needs one at a time, a few with several tabs or keys.
 */
export const DEFAULT_MAX_PENDING_PER_USER = 5;

/**
 * Which of a user's pending registrations (oldest first) a new one replaces:
 * the oldest, so that with the new one at most `maxPending` remain.
 */
export function pendingToReplace<T>(pendingOldestFirst: readonly T[], maxPending: number): T[] {
  return pendingOldestFirst.slice(0, Math.max(0, pendingOldestFirst.length - (maxPending - 1)));
}

/** What a client sees of a token: a pending registration past its expiry is expired (no date to compare). */
export function shownState(state: 'pending' | 'ready', expiresAt: Date, now: number): 'pending' | 'ready' | 'expired' {
  return state === 'pending' && now >= expiresAt.getTime() ? 'expired' : state;
}
