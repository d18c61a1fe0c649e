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
//   the same append — only if no set was generated since the command counted
//   them (ifGenerations), so of several first factors verified at once one
//   brings codes. The code's time step is spent by it.
// - remove: the TOTP (pending or ready) goes.
// - use: the login's outcome, decided here: a matched time step is claimed
//   (user.totp.used with its step) only when it is newer than every step
//   spent before — the events' and the floor the command read from the
//   secrets table (steps spent before the events carried them) — else
//   check.failed. Two uses of one code at once meet on the append's expected
//   sequence: the second is decided again and finds the step spent.
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';

type TotpEventType = Extract<EventTypeOf<'user'>, `user.totp.${string}` | 'user.recovery.codes.generated'>;

export interface TotpState {
  exists: boolean;
  human: boolean;
  orgId: string;
  totp: { id: string; ready: boolean; lastStep: number } | undefined;
  /** How many recovery-code sets were generated (a first factor's set is decided against it). */
  generations: number;
}

export type TotpCommand =
  | { kind: 'add'; totpId: string; actor: string }
  | { kind: 'verify'; totpId: string; step: number; actor: string; recoveryCodeHashes?: readonly string[]; ifGenerations?: number }
  | { kind: 'remove'; actor: string }
  /** `step`: the time step the typed code matched (none: a wrong code); `floor`: the newest step the secrets table holds as spent. */
  | { kind: 'use'; totpId: string; step: number | undefined; floor: number; clientId: string; actor: string };

/** Whether a code that matched `step` may be accepted: the app is the ready one and the step newer than every spent one. */
export function totpStepFree(state: TotpState, totpId: string, step: number | undefined, floor: number): boolean {
  return step !== undefined && state.totp?.ready === true && state.totp.id === totpId && step > Math.max(floor, state.totp.lastStep);
}

export function totpDecider(userId: string): Decider<TotpState, TotpCommand, EventTypeOf<'user'>> {
  return {
    initialState: () => ({ exists: false, human: false, orgId: '', totp: undefined, generations: 0 }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'user.human.added':
          return { ...state, exists: true, human: true, orgId: event.resourceOwner };
        case 'user.machine.added':
          return { ...state, exists: true, human: false, orgId: event.resourceOwner };
        case 'user.removed':
          return { ...state, exists: false, totp: undefined };
        case 'user.totp.added':
          return { ...state, totp: { id: event.payload.totpId, ready: false, lastStep: -1 } };
        case 'user.totp.verified':
          return state.totp?.id === event.payload.totpId ? { ...state, totp: { id: event.payload.totpId, ready: true, lastStep: event.payload.step ?? state.totp.lastStep } } : state;
        case 'user.totp.used':
          return state.totp?.id === event.payload.totpId && event.payload.step !== undefined ? { ...state, totp: { ...state.totp, lastStep: Math.max(state.totp.lastStep, event.payload.step) } } : state;
        case 'user.recovery.codes.generated':
          return { ...state, generations: state.generations + 1 };
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
          // A first factor's set, unless another set was generated since the command counted them.
          const stillFirst = command.ifGenerations === undefined || command.ifGenerations === state.generations;
          const codes: NewEvent<TotpEventType>[] = command.recoveryCodeHashes?.length && stillFirst
            ? [{ ...own, type: 'user.recovery.codes.generated', payload: { codeHashes: [...command.recoveryCodeHashes] } }]
            : [];
          return [{ ...own, type: 'user.totp.verified', payload: { totpId: command.totpId, step: command.step } }, ...codes];
        }
        case 'remove':
          if (!state.totp) throw new KeyholdError('TOTP_NOT_REGISTERED', { userId });
          return [{ ...own, type: 'user.totp.removed', payload: { totpId: state.totp.id } }];
        case 'use':
          return [
            totpStepFree(state, command.totpId, command.step, command.floor)
              ? { ...own, type: 'user.totp.used', payload: { totpId: command.totpId, clientId: command.clientId, step: command.step! } }
              : { ...own, type: 'user.totp.check.failed', payload: { totpId: command.totpId, clientId: command.clientId } },
          ];
      }
    },
  };
}
