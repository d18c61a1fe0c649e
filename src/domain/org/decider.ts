// An organization's life: added (optionally with its first admins), members
// granted roles in it.
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';

type OrgEventType = EventTypeOf<'org'>;

export interface OrgState {
  exists: boolean;
}

export interface OrgAdmin {
  userId: string;
  /** Empty: ORG_OWNER (adminRoles). */
  roles: readonly string[];
}

export type OrgCommand =
  /** `name` in its stored form (domain/identity checkDisplayName). */
  | { kind: 'add'; name: string; admins: readonly OrgAdmin[]; actor: string }
  /** A grant replaces the roles the user held in the org. */
  | { kind: 'addMember'; userId: string; roles: readonly string[]; actor: string };

/** The roles an admin of a new org gets: those named, else ORG_OWNER. */
export function adminRoles(roles: readonly string[]): string[] {
  return roles.length ? [...new Set(roles)] : ['ORG_OWNER'];
}

export function orgDecider(orgId: string): Decider<OrgState, OrgCommand, OrgEventType> {
  const own = (actor: string) => ({ aggregateType: 'org' as const, aggregateId: orgId, resourceOwner: orgId, creator: actor });
  return {
    initialState: () => ({ exists: false }),
    evolve: (state, event) => (event.type === 'org.added' ? { exists: true } : state),
    decide: (command, state): NewEvent<OrgEventType>[] => {
      switch (command.kind) {
        case 'add':
          if (state.exists) throw new KeyholdError('ID_TAKEN', { id: orgId });
          return [
            { ...own(command.actor), type: 'org.added', payload: { name: command.name } },
            ...command.admins.map((a): NewEvent<OrgEventType> => ({
              ...own(command.actor),
              type: 'org.member.added',
              payload: { userId: a.userId, roles: adminRoles(a.roles) },
            })),
          ];
        case 'addMember':
          if (!state.exists) throw new KeyholdError('ORG_NOT_FOUND', { orgId });
          return [{ ...own(command.actor), type: 'org.member.added', payload: { userId: command.userId, roles: [...new Set(command.roles)] } }];
      }
    },
  };
}
