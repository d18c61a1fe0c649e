// A provider's life: added (with its settings, per instance or per org) →
// changed → removed. The client secret is not the decider's: the command
// seals it apart in the same run. An org's provider is changed and removed
// only through its org (another org's is "not found", as if it did not exist).
import type { Decider } from '../decider.js';
import { invalidRequest, KeyholdError, violation } from '../errors/keyhold-error.js';
import { INSTANCE_ID, type EventTypeOf, type IdpSettings } from '../events/index.js';
import { settingsViolations } from './settings.js';

type IdpEventType = EventTypeOf<'idp'>;

export interface IdpState {
  exists: boolean;
  removed: boolean;
  orgId?: string;
  settings?: IdpSettings;
}

/** `orgId` undefined: the instance's providers (admin API); else that org's (management API). */
export type IdpCommand =
  | { kind: 'add'; orgId?: string; settings: IdpSettings; actor: string }
  | { kind: 'change'; orgId?: string; settings: IdpSettings; actor: string }
  | { kind: 'remove'; orgId?: string; actor: string };

export function idpDecider(idpId: string): Decider<IdpState, IdpCommand, IdpEventType> {
  return {
    initialState: () => ({ exists: false, removed: false }),
    evolve(state, event) {
      switch (event.type) {
        case 'idp.added':
          return { exists: true, removed: false, orgId: event.payload.orgId, settings: event.payload.settings };
        case 'idp.changed':
          return { ...state, settings: event.payload.settings };
        case 'idp.removed':
          return { ...state, exists: false, removed: true };
      }
    },
    decide(command, state) {
      const own = { aggregateType: 'idp' as const, aggregateId: idpId, resourceOwner: command.orgId ?? INSTANCE_ID, creator: command.actor };
      if (command.kind === 'add') {
        if (state.exists || state.removed) throw new KeyholdError('IDP_ALREADY_EXISTS', { idpId });
        const violations = settingsViolations(command.settings);
        if (violations.length) throw invalidRequest(violations);
        return [{ ...own, type: 'idp.added', payload: { ...(command.orgId ? { orgId: command.orgId } : {}), settings: command.settings } }];
      }
      // Another scope's provider is not told apart from none.
      if (!state.exists || state.orgId !== command.orgId) throw new KeyholdError('IDP_NOT_FOUND', { idpId });
      if (command.kind === 'remove') return [{ ...own, type: 'idp.removed', payload: {} }];
      // A preset's provider by its own call only: another call would keep the preset's name on other endpoints.
      if (command.settings.kind !== state.settings?.kind || (command.settings.preset ?? '') !== (state.settings?.preset ?? '')) throw invalidRequest([settingsKindViolation()]);
      const violations = settingsViolations(command.settings);
      if (violations.length) throw invalidRequest(violations);
      return [{ ...own, type: 'idp.changed', payload: { settings: command.settings } }];
    },
  };
}

const settingsKindViolation = () => violation('id', { en: 'names a provider of another kind (OpenID Connect and OAuth 2.0 providers, and each preset such as Google, are updated by their own call)', de: 'nennt einen Anbieter anderer Art (OpenID-Connect- und OAuth-2.0-Anbieter sowie jede Vorlage wie Google werden mit ihrem eigenen Aufruf geändert)' });
