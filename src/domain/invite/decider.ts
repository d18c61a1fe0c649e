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
// - A code works only for what it was made for while that is still what the
//   user needs: the command hands in the purpose the user's credentials call
//   for now, and whether whoever made the code could still make it (the
//   permission and containment, decided again at use). A code made for a first
//   credential does nothing once the user has one; a key invitation does
//   nothing once the user has a second factor.
// - Retired, in the same append as the change that makes it stale: a new
//   password, a verified authenticator app, another address (the mail went to
//   the old one), a lock or a deactivation. A retired code stays retired when
//   the user is reactivated: the administrator sends a new one.
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
  /** The address the user's mail goes to (a change retires the code mailed to the old one). */
  email: string;
  /** The current code (absent: none was handed out, or the user was removed). `used`: spent or retired. */
  code?: { hash: string; expiresAt: number; purpose: InvitePurpose; delivery: InviteDelivery; used: boolean; createdBy: string };
}

/** What the command layer found out about the user and the code's maker just before a use (facts outside this stream). */
export interface InviteUseFacts {
  /** What an invitation of this user is for now (from all its credentials), or undefined: none. */
  purposeNow: InvitePurpose | undefined;
  /** Whether the code's maker still holds the permission and containment to make it. */
  makerMayStill: boolean;
}

export type InviteCommand =
  | { kind: 'create'; codeHash: string; expiresAt: number; purpose: InvitePurpose; delivery: InviteDelivery; actor: string }
  /** `now` (ms): the code's expiry is decided against it; `password`: the first password, set in the same append. */
  | { kind: 'use'; typed: string; now: number; purpose?: InvitePurpose; password?: { passwordHash: string }; facts: InviteUseFacts; actor: string };

/** Why a typed code did not work (never which of them to a guesser: the page and the API say one thing). */
export type InviteRefusal = 'INVITE_CODE_WRONG' | 'INVITE_CODE_MALFORMED';

/** Whether the user has an invitation that still works (not used, not expired). */
export const openInvite = (state: InviteState, now: number) => Boolean(state.code && !state.code.used && now <= state.code.expiresAt);

/** A code that can no longer be used (a retirement is not an event of its own: the change that causes it is). */
const retired = (state: InviteState): InviteState => (state.code && !state.code.used ? { ...state, code: { ...state.code, used: true } } : state);

/** Whether `typed` is the user's open code, made for what the user needs now by someone who may still make it. */
export function inviteWorks(state: InviteState, userId: string, typed: string, now: number, facts: InviteUseFacts, purpose?: InvitePurpose): boolean {
  const code = state.code;
  if (!code || !openInvite(state, now) || !inviteCodeMatches(userId, typed, code.hash)) return false;
  if (purpose && purpose !== code.purpose) return false;
  return facts.purposeNow === code.purpose && facts.makerMayStill;
}

export function inviteDecider(userId: string): Decider<InviteState, InviteCommand, EventTypeOf<'user'>> {
  return {
    initialState: () => ({ exists: false, human: false, active: false, orgId: '', email: '' }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'user.human.added':
          return { ...state, exists: true, human: true, active: true, orgId: event.resourceOwner, email: event.payload.email };
        case 'user.machine.added':
          return { ...state, exists: true, human: false, active: true, orgId: event.resourceOwner };
        case 'user.removed':
          return { ...state, exists: false, code: undefined };
        case 'user.deactivated':
        case 'user.locked':
          return { ...retired(state), active: false };
        case 'user.reactivated':
        case 'user.unlocked':
          return { ...state, active: true };
        case 'user.human.changed':
          return event.payload.email === state.email ? state : { ...retired(state), email: event.payload.email };
        case 'user.password.changed':
        case 'user.totp.verified':
          return retired(state);
        case 'user.invite.code.added': {
          const { codeHash, expiresAt, purpose, delivery } = event.payload;
          return { ...state, code: { hash: codeHash, expiresAt: Date.parse(expiresAt), purpose, delivery, used: false, createdBy: event.creator } };
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
          // One answer for wrong, used, expired, stale or of another purpose: a guesser learns nothing from which.
          if (!inviteWorks(state, userId, command.typed, command.now, command.facts, command.purpose)) return [{ ...own, type: 'user.invite.code.check.failed', payload: {} }];
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
