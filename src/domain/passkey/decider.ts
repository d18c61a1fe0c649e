// A passkey's life, as a security key's (../u2f/decider.ts): registration
// started (pending, with challenge and expiry) → verified (ready) → removed;
// or started → replaced, or simply expired. Each passkey is its own
// aggregate: two verifies of one registration, or two logins with one
// assertion, meet on its sequence and exactly one wins.
//
// What differs from a security key: a passkey is a first factor, so it is
// only ever stored and used with user verification (UV), and a login refuses
// every challenge the passkey has ever answered (its passkey.used events
// carry them): an authenticator whose counter stays at 0 (most synced
// passkeys) is then still single-use per assertion, whatever the login does
// with its challenge. The set is as long as the history the decider folds
// anyway (one entry per accepted login).
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';
import { isClonedCounter } from '../u2f/decider.js';
import { userDecider, type UserState } from '../user/decider.js';
import type { VerifiedCredential } from '../webauthn/index.js';
import { assertRegistrationVerifiable, NOT_STARTED, started, startPayload, stillPending, type PendingRegistration } from '../webauthn/registration.js';

type PasskeyEventType = EventTypeOf<'passkey'>;

/** The registration's pending part (../webauthn/registration.ts, as a security key's), then the passkey. */
export interface PasskeyState extends PendingRegistration {
  /** The passkey's name (verified or renamed). */
  name?: string;
  passkeyId: string;
  credentialId: string;
  publicKey: string;
  signCount: number;
  /** The challenges of every accepted login: none is accepted twice. */
  spentChallenges: ReadonlySet<string>;
}

export type PasskeyCommand =
  | { kind: 'start'; orgId: string; rpId: string; challenge: string; expiresAt: string; actor: string }
  | { kind: 'replace'; by: string; actor: string }
  | { kind: 'verify'; credential: VerifiedCredential; passkeyName: string; actor: string }
  | { kind: 'remove'; actor: string; ifPresent?: boolean }
  /** A login answered by this passkey: the assertion verified (with UV), its counter `signCount`, for `challenge`. */
  | { kind: 'use'; signCount: number; challenge: string; clientId: string; actor: string }
  /** A ready passkey's new name (the same name: nothing written). */
  | { kind: 'rename'; passkeyName: string; actor: string };

/** Why a registration can no longer be verified, checked before any WebAuthn work. */
export function assertPasskeyVerifiable(state: PasskeyState, userId: string, now: number): void {
  const reasons = { notFound: 'PASSKEY_NOT_FOUND', verified: 'PASSKEY_ALREADY_VERIFIED', replaced: 'PASSKEY_REGISTRATION_REPLACED', expired: 'PASSKEY_REGISTRATION_EXPIRED' } as const;
  assertRegistrationVerifiable(state, userId, now, reasons, { passkeyId: state.passkeyId });
}

/** The decider of passkey `passkeyId` of user `userId` (another user's passkey is "not found"). */
export function passkeyDecider(passkeyId: string, userId: string, now: () => number = Date.now): Decider<PasskeyState, PasskeyCommand, PasskeyEventType> {
  return {
    initialState: () => ({
      ...NOT_STARTED,
      passkeyId,
      credentialId: '',
      publicKey: '',
      signCount: 0,
      spentChallenges: new Set<string>(),
    }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'passkey.registration.started':
          return started(state, event);
        case 'passkey.registration.replaced':
          return { ...state, replaced: true };
        case 'passkey.verified':
          return { ...state, verified: true, name: event.payload.passkeyName, credentialId: event.payload.credentialId, publicKey: event.payload.publicKey, signCount: event.payload.signCount };
        case 'passkey.used':
          return { ...state, signCount: event.payload.signCount, spentChallenges: new Set([...state.spentChallenges, event.payload.challenge]) };
        case 'passkey.removed':
          return { ...state, exists: false };
        case 'passkey.renamed':
          return { ...state, name: event.payload.passkeyName };
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent<PasskeyEventType>[] => {
      const base = { aggregateType: 'passkey' as const, aggregateId: passkeyId, resourceOwner: state.orgId, creator: command.actor };
      switch (command.kind) {
        case 'start':
          return [{ ...base, resourceOwner: command.orgId, type: 'passkey.registration.started', payload: startPayload(state, passkeyId, userId, command) }];
        case 'replace':
          if (!stillPending(state, userId)) return [];
          return [{ ...base, type: 'passkey.registration.replaced', payload: { userId, by: command.by } }];
        case 'verify': {
          assertPasskeyVerifiable(state, userId, now());
          const c = command.credential;
          // The verification asked for UV; a credential without it is never a passkey.
          if (!c.userVerified) throw new KeyholdError('USER_NOT_VERIFIED', { passkeyId });
          return [
            {
              ...base,
              type: 'passkey.verified',
              payload: {
                userId,
                passkeyName: command.passkeyName,
                credentialId: c.credentialId,
                publicKey: Buffer.from(c.publicKey).toString('base64url'),
                algorithm: c.algorithm,
                format: c.format,
                aaguid: c.aaguid,
                signCount: c.signCount,
                transports: c.transports,
                backupEligible: c.backupEligible,
                backedUp: c.backedUp,
                rpId: c.rpId,
              },
            },
          ];
        }
        case 'remove':
          if (!state.exists || state.replaced || state.userId !== userId) {
            if (command.ifPresent) return [];
            throw new KeyholdError('PASSKEY_NOT_FOUND', { passkeyId });
          }
          return [{ ...base, type: 'passkey.removed', payload: { userId } }];
        case 'rename':
          if (!state.exists || state.replaced || !state.verified || state.userId !== userId) throw new KeyholdError('PASSKEY_NOT_FOUND', { passkeyId });
          return state.name === command.passkeyName ? [] : [{ ...base, type: 'passkey.renamed', payload: { userId, passkeyName: command.passkeyName } }];
        case 'use': {
          if (!state.exists || !state.verified || state.userId !== userId) throw new KeyholdError('PASSKEY_LOGIN_UNKNOWN_CREDENTIAL', { passkeyId });
          // An assertion for a challenge already answered (a counter of 0 would not tell).
          if (state.spentChallenges.has(command.challenge)) throw new KeyholdError('PASSKEY_LOGIN_REPLAYED', { passkeyId });
          if (isClonedCounter(state.signCount, command.signCount)) {
            return [
              {
                ...base,
                type: 'passkey.signcount.refused',
                payload: { userId, storedSignCount: state.signCount, presentedSignCount: command.signCount, clientId: command.clientId },
              },
            ];
          }
          return [{ ...base, type: 'passkey.used', payload: { userId, signCount: command.signCount, challenge: command.challenge, clientId: command.clientId } }];
        }
      }
    },
  };
}

/**
 * The user side of a passkey login, decided in the same runCommands as the
 * passkey's use: the user's own events (not the read model) say whether it
 * may sign in. Only a human, existing, active user, whose org's login policy
 * allows passkeys (`passkeysAllowed`, read by the command for the org the
 * events name): a refusal here refuses the whole run, so a passkey that may not
 * sign in records no use. It writes nothing.
 */
export function passkeyUserDecider(userId: string, passkeyId: string): Decider<UserState, { kind: 'signIn'; passkeysAllowed?: boolean }, EventTypeOf<'user'>> {
  const user = userDecider(userId);
  return {
    foldKey: user.foldKey,
    initialState: user.initialState,
    evolve: user.evolve,
    decide: (command, state) => {
      // A machine user's passkey (registered before machines were refused) is no passkey to sign in with.
      if (!state.exists || state.kind !== 'human') throw new KeyholdError('PASSKEY_LOGIN_UNKNOWN_CREDENTIAL', { passkeyId });
      if (state.state !== 'active') throw new KeyholdError('PASSKEY_LOGIN_USER_INACTIVE', { passkeyId });
      if (command.passkeysAllowed === false) throw new KeyholdError('PASSKEY_LOGIN_NOT_ALLOWED', { passkeyId });
      return [];
    },
  };
}
