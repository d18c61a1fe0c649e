// The user's side of removing a security key or passkey. The factors live on
// aggregates of their own (each key, each passkey) or on the user (the
// authenticator app), so no single decider sees them all; the command counts
// them from the read model. What makes that count hold is this event on the
// user, written with every removal: two removals at once both write the user's
// next sequence, the append lets one through, and the other is decided again on
// a count that already misses the first (../../commands/users/remove-factor.ts).
// Only the user's own removal while its org requires a second factor is refused
// when none would stay; an administrator's is never refused, but is written
// here all the same, so that it meets a user's removal running at that moment.
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf } from '../events/index.js';

export interface FactorGuardState {
  exists: boolean;
  orgId: string;
}

export interface FactorGuardCommand {
  kind: 'u2f' | 'passkey';
  id: string;
  /** The rule applies (the user removing its own factor while its org requires one); else the event only serializes. */
  keepOne: boolean;
  /** Whether a ready factor stays after this removal (another ready one, or this one was not ready), counted after this state was loaded. */
  anotherStays: boolean;
  actor: string;
}

export function factorGuardDecider(userId: string): Decider<FactorGuardState, FactorGuardCommand, EventTypeOf<'user'>> {
  return {
    // A user's history grows with its logins: keep the fold, read only what came after it.
    foldKey: 'user.factor-guard',
    initialState: () => ({ exists: false, orgId: '' }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'user.human.added':
        case 'user.machine.added':
          return { exists: true, orgId: event.resourceOwner };
        case 'user.removed':
          return { ...state, exists: false };
        default:
          return state;
      }
    },
    decide: (command, state) => {
      if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
      if (command.keepOne && !command.anotherStays) throw new KeyholdError('LAST_SECOND_FACTOR', { userId });
      return [{ aggregateType: 'user', aggregateId: userId, resourceOwner: state.orgId, creator: command.actor, type: 'user.factor.removed', payload: { kind: command.kind, id: command.id } }];
    },
  };
}
