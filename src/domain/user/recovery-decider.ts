// A user's recovery codes (for a lost key), decided on the user's own
// aggregate: a set generated (hashes only), codes used one by one, the set
// removed with the keys (RemoveAllU2F). Its own decider, beside the user's
// (./decider.ts), folding only the user events it needs, so that the user's
// decider stays about the user.
//
// - generate: a new set replaces the old one entirely (old codes stop working).
//   A first strong factor's set is generated only if no set was generated
//   since its command counted them (ifGenerations): decided here, in the
//   factor's own append, so two first factors verified at once bring one set.
// - use: the typed code is matched against the unused codes of the current
//   set; a match is `user.recovery.code.used` (that index never works again),
//   anything else a recorded failure (`user.recovery.code.check.failed`, the
//   throttle counts them). Input that is no code at all is refused
//   (RECOVERY_CODE_MALFORMED) without an event: it tried nothing.
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';
import { matchRecoveryCode, normalizeRecoveryCode } from './recovery-codes.js';

type RecoveryEventType = Extract<EventTypeOf<'user'>, `user.recovery.${string}`>;

export interface RecoveryState {
  exists: boolean;
  orgId: string;
  /** The current set's hashes (empty: no codes). */
  hashes: readonly string[];
  /** Indexes of `hashes` already used. */
  used: readonly number[];
  /** How many sets were ever generated (a first factor's set is decided on it). */
  generations: number;
}

export type RecoveryCommand =
  /**
   * `ifGenerations`: a first factor's set, generated only if no set was generated since the
   * command counted `ifGenerations` — of two first factors verified at once, only one brings codes.
   */
  | { kind: 'generate'; codeHashes: readonly string[]; actor: string; ifGenerations?: number }
  | { kind: 'use'; typed: string; clientId: string; actor: string }
  | { kind: 'remove'; actor: string };

/** Indexes of the codes that still work. */
export const unusedIndexes = (state: RecoveryState): number[] => state.hashes.map((_, i) => i).filter((i) => !state.used.includes(i));

export function recoveryDecider(userId: string): Decider<RecoveryState, RecoveryCommand, EventTypeOf<'user'>> {
  return {
    initialState: () => ({ exists: false, orgId: '', hashes: [], used: [], generations: 0 }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'user.human.added':
        case 'user.machine.added':
          return { ...state, exists: true, orgId: event.resourceOwner };
        case 'user.removed':
          return { ...state, exists: false, hashes: [], used: [] };
        case 'user.recovery.codes.generated':
          return { ...state, hashes: [...event.payload.codeHashes], used: [], generations: state.generations + 1 };
        case 'user.recovery.code.used':
          return { ...state, used: [...state.used, event.payload.index] };
        case 'user.recovery.codes.removed':
          return { ...state, hashes: [], used: [] };
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent<RecoveryEventType>[] => {
      if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
      const own = { aggregateType: 'user' as const, aggregateId: userId, resourceOwner: state.orgId, creator: command.actor };
      switch (command.kind) {
        case 'generate':
          if (command.ifGenerations !== undefined && state.generations !== command.ifGenerations) return [];
          return [{ ...own, type: 'user.recovery.codes.generated', payload: { codeHashes: [...command.codeHashes] } }];
        case 'use': {
          if (!normalizeRecoveryCode(command.typed)) throw new KeyholdError('RECOVERY_CODE_MALFORMED', { userId });
          const index = matchRecoveryCode(userId, command.typed, state.hashes, unusedIndexes(state));
          return index < 0
            ? [{ ...own, type: 'user.recovery.code.check.failed', payload: { clientId: command.clientId } }]
            : [{ ...own, type: 'user.recovery.code.used', payload: { index, clientId: command.clientId } }];
        }
        case 'remove':
          // No set: nothing to remove (RemoveAllU2F of a user without codes writes only the keys' removals).
          return state.hashes.length ? [{ ...own, type: 'user.recovery.codes.removed', payload: {} }] : [];
      }
    },
  };
}
