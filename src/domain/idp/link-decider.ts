// A link of an external identity to a user: one aggregate per (provider,
// upstream subject), its id derived from both (linkIdOf), so the identity is
// linked to at most one user whoever links it concurrently: the second
// `add` finds it linked (IDP_LINK_TAKEN), or meets the first on the
// aggregate's sequence. Removed, it may be linked again (to anyone who signs
// in to an account with its own factors, or by an administrator).
import { createHash } from 'node:crypto';
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf } from '../events/index.js';

type LinkEventType = EventTypeOf<'idplink'>;

/** The link aggregate's id of (provider, subject): a hash, so a subject of any shape makes a safe id (the provider id's length first: no two pairs run together). */
export const linkIdOf = (idpId: string, subject: string): string => createHash('sha256').update(`${idpId.length}:${idpId}:${subject}`).digest('base64url');

export interface LinkState {
  userId?: string;
  orgId?: string;
}

export type LinkCommand =
  /** `linkedUserGone`: the command found the user the identity is linked to removed (its link is then free). */
  | { kind: 'add'; idpId: string; subject: string; userId: string; orgId: string; how: 'creation' | 'login' | 'admin'; actor: string; linkedUserGone?: boolean }
  /** `userId`: the link must be this user's (an administrator or the user naming it). */
  | { kind: 'remove'; idpId: string; subject: string; userId: string; actor: string }
  | { kind: 'use'; idpId: string; userId: string; clientId: string; amr: string[]; actor: string };

export function linkDecider(linkId: string): Decider<LinkState, LinkCommand, LinkEventType> {
  return {
    initialState: () => ({}),
    evolve(state, event) {
      switch (event.type) {
        case 'idplink.added':
          return { userId: event.payload.userId, orgId: event.resourceOwner };
        case 'idplink.removed':
          return {};
        case 'idplink.used':
          return state;
      }
    },
    decide(command, state) {
      const own = { aggregateType: 'idplink' as const, aggregateId: linkId, creator: command.actor };
      switch (command.kind) {
        case 'add':
          if (state.userId === command.userId) return [];
          if (state.userId && !command.linkedUserGone) throw new KeyholdError('IDP_LINK_TAKEN', { idpId: command.idpId });
          return [{ ...own, resourceOwner: command.orgId, type: 'idplink.added', payload: { idpId: command.idpId, subject: command.subject, userId: command.userId, how: command.how } }];
        case 'remove':
          if (!state.userId || state.userId !== command.userId) throw new KeyholdError('IDP_LINK_NOT_FOUND', { idpId: command.idpId, userId: command.userId });
          return [{ ...own, resourceOwner: state.orgId ?? '', type: 'idplink.removed', payload: { idpId: command.idpId, subject: command.subject, userId: command.userId } }];
        case 'use':
          // Unlinked (or linked to another) since the sign-in looked the link up: no login.
          if (state.userId !== command.userId) throw new KeyholdError('IDP_LINK_NOT_FOUND', { idpId: command.idpId, userId: command.userId });
          return [{ ...own, resourceOwner: state.orgId ?? '', type: 'idplink.used', payload: { idpId: command.idpId, userId: command.userId, clientId: command.clientId, amr: command.amr } }];
      }
    },
  };
}
