// A user's authenticator app (TOTP), decided on the user's own aggregate so a
// registration, its verification and its removal are ordered with everything
// else the user's stream holds (the runner's expected sequence). At most one
// TOTP per user: pending (registered, not yet confirmed by a code) or ready.
//
// - add: a new pending registration; it replaces a pending one. Refused
//   while a ready one exists (remove it first: nobody swaps a user's second
//   factor in one call).
// - verify: the pending registration becomes ready. The code was checked by
//   the command against the sealed secret (the secret never reaches a
//   decider); a first second factor may bring the user's recovery codes, in
//   the same append.
// - remove: the TOTP (pending or ready) goes.
// - use: the login's outcome, recorded (used or check.failed); the one-use
//   rule itself is the store's conditional update (src/store/totp-secrets.ts).
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';

type TotpEventType = Extract<EventTypeOf<'user'>, `user.totp.${string}` | 'user.recovery.codes.generated'>;

export interface TotpState {
  exists: boolean;
  human: boolean;
  orgId: string;
  totp: { id: string; ready: boolean } | undefined;
}

export type TotpCommand =
  | { kind: 'add'; totpId: string; actor: string }
  | { kind: 'verify'; totpId: string; actor: string; recoveryCodeHashes?: readonly string[] }
  | { kind: 'remove'; actor: string }
  | { kind: 'use'; totpId: string; accepted: boolean; clientId: string; actor: string };

export function totpDecider(userId: string): Decider<TotpState, TotpCommand, EventTypeOf<'user'>> {
  return {
    initialState: () => ({ exists: false, human: false, orgId: '', totp: undefined }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'user.human.added':
          return { ...state, exists: true, human: true, orgId: event.resourceOwner };
        case 'user.machine.added':
          return { ...state, exists: true, human: false, orgId: event.resourceOwner };
        case 'user.removed':
          return { ...state, exists: false, totp: undefined };
        case 'user.totp.added':
          return { ...state, totp: { id: event.payload.totpId, ready: false } };
        case 'user.totp.verified':
          return state.totp?.id === event.payload.totpId ? { ...state, totp: { id: event.payload.totpId, ready: true } } : state;
        case 'user.totp.removed':
          return state.totp?.id === event.payload.totpId ? { ...state, totp: undefined } : state;
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent<TotpEventType>[] => {
      if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
      const own = { aggregateType: 'user' as const, aggregateId: userId, resourceOwner: state.orgId, creator: command.actor };
      switch (command.kind) {
        case 'add':
          if (!state.human) throw new KeyholdError('USER_NOT_HUMAN', { userId });
          if (state.totp?.ready) throw new KeyholdError('TOTP_ALREADY_READY', { userId });
          return [{ ...own, type: 'user.totp.added', payload: { totpId: command.totpId } }];
        case 'verify': {
          if (!state.totp) throw new KeyholdError('TOTP_NOT_REGISTERED', { userId });
          if (state.totp.ready) throw new KeyholdError('TOTP_ALREADY_READY', { userId });
          // Replaced by a newer registration since the code was checked: that code was for the old secret.
          if (state.totp.id !== command.totpId) throw new KeyholdError('TOTP_CODE_WRONG', { userId });
          const codes: NewEvent<TotpEventType>[] = command.recoveryCodeHashes?.length
            ? [{ ...own, type: 'user.recovery.codes.generated', payload: { codeHashes: [...command.recoveryCodeHashes] } }]
            : [];
          return [{ ...own, type: 'user.totp.verified', payload: { totpId: command.totpId } }, ...codes];
        }
        case 'remove':
          if (!state.totp) throw new KeyholdError('TOTP_NOT_REGISTERED', { userId });
          return [{ ...own, type: 'user.totp.removed', payload: { totpId: state.totp.id } }];
        case 'use':
          return [
            command.accepted
              ? { ...own, type: 'user.totp.used', payload: { totpId: command.totpId, clientId: command.clientId } }
              : { ...own, type: 'user.totp.check.failed', payload: { totpId: command.totpId, clientId: command.clientId } },
          ];
      }
    },
  };
}
