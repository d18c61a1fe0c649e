// A user's invitation, decided on the user's own aggregate (beside the user's
// decider, as the recovery codes are): a code handed out (its hash), used once,
// and wrong codes recorded.
//
// - create: a new code replaces any earlier one (the earlier stops working).
//   Only for an active human user.
// - use: the typed code against the current one — not used, not expired. A
//   match is `user.invite.code.used`, in the same append as what the
//   invitation was for when that is a password (`user.password.changed`): of
//   concurrent uses the runner's sequence check lets exactly one append, the
//   others are decided again, find the code used and are refused. Anything
//   else is a recorded failure (`user.invite.code.check.failed`; the attempt
//   budgets count them). Input that is no code at all is refused without an
//   event: it tried nothing.
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';
import type { InviteEventPayloads } from '../events/invite.js';
import { inviteCodeMatches, normalizeInviteCode } from './codes.js';

type Added = InviteEventPayloads['user.invite.code.added'];
export type InvitePurpose = Added['purpose'];
export type InviteDelivery = Added['delivery'];

export interface InviteState {
  exists: boolean;
  human: boolean;
  active: boolean;
  orgId: string;
  /** The current code (absent: none was handed out, or the user was removed). */
  code?: { hash: string; expiresAt: number; purpose: InvitePurpose; delivery: InviteDelivery; used: boolean };
}

export type InviteCommand =
  | { kind: 'create'; codeHash: string; expiresAt: number; purpose: InvitePurpose; delivery: InviteDelivery; actor: string }
  /** `now` (ms): the code's expiry is decided against it; `password`: the first password, set in the same append. */
  | { kind: 'use'; typed: string; now: number; purpose?: InvitePurpose; password?: { passwordHash: string }; actor: string };

/** Why a typed code did not work (never which of them to a guesser: the page and the API say one thing). */
export type InviteRefusal = 'INVITE_CODE_WRONG' | 'INVITE_CODE_MALFORMED';

/** Whether the user has an invitation that still works (not used, not expired). */
export const openInvite = (state: InviteState, now: number) => Boolean(state.code && !state.code.used && now <= state.code.expiresAt);

export function inviteDecider(userId: string): Decider<InviteState, InviteCommand, EventTypeOf<'user'>> {
  return {
    initialState: () => ({ exists: false, human: false, active: false, orgId: '' }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'user.human.added':
          return { ...state, exists: true, human: true, active: true, orgId: event.resourceOwner };
        case 'user.machine.added':
          return { ...state, exists: true, human: false, active: true, orgId: event.resourceOwner };
        case 'user.removed':
          return { ...state, exists: false, code: undefined };
        case 'user.deactivated':
        case 'user.locked':
          return { ...state, active: false };
        case 'user.reactivated':
        case 'user.unlocked':
          return { ...state, active: true };
        case 'user.invite.code.added': {
          const { codeHash, expiresAt, purpose, delivery } = event.payload;
          return { ...state, code: { hash: codeHash, expiresAt: Date.parse(expiresAt), purpose, delivery, used: false } };
        }
        case 'user.invite.code.used':
          return state.code ? { ...state, code: { ...state.code, used: true } } : state;
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent<EventTypeOf<'user'>>[] => {
      if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
      if (!state.human) throw new KeyholdError('USER_NOT_HUMAN', { userId });
      const own = { aggregateType: 'user' as const, aggregateId: userId, resourceOwner: state.orgId, creator: command.actor };
      switch (command.kind) {
        case 'create': {
          if (!state.active) throw new KeyholdError('USER_NOT_ACTIVE', { userId });
          const { codeHash, purpose, delivery } = command;
          return [{ ...own, type: 'user.invite.code.added', payload: { codeHash, expiresAt: new Date(command.expiresAt).toISOString(), purpose, delivery } }];
        }
        case 'use': {
          if (!normalizeInviteCode(command.typed)) throw new KeyholdError('INVITE_CODE_MALFORMED', { userId });
          const code = state.code;
          // One answer for wrong, used, expired or of another purpose: a guesser learns nothing from which.
          const works = code && openInvite(state, command.now) && (!command.purpose || command.purpose === code.purpose) && inviteCodeMatches(userId, command.typed, code.hash);
          if (!works) return [{ ...own, type: 'user.invite.code.check.failed', payload: {} }];
          // A locked or deactivated user takes no credential through its invitation.
          if (!state.active) throw new KeyholdError('USER_NOT_ACTIVE', { userId });
          const used = { ...own, type: 'user.invite.code.used' as const, payload: {} };
          if (!command.password) return [used];
          return [used, { ...own, type: 'user.password.changed' as const, payload: { passwordHash: command.password.passwordHash, changeRequired: false } }];
        }
      }
    },
  };
}
