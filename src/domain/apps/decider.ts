// The application aggregate after creation: regenerating its client secret and
// removing it. Creation itself is AddOIDCApp's two events on a fresh id.
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { NewEvent } from '../../store/events.js';
import { needsClientSecret } from '../oidc/client-secret.js';

export interface AppState {
  appId: string;
  projectId: string;
  orgId: string;
  exists: boolean;
  authMethodType?: string;
}

export type AppCommand =
  | { kind: 'regenerateSecret'; appId: string; clientSecretHash: string; actor: string }
  | { kind: 'remove'; appId: string; actor: string };

export function appDecider(appId: string): Decider<AppState, AppCommand> {
  return {
    initialState: () => ({ appId, projectId: '', orgId: '', exists: false }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'app.added':
          return { ...state, exists: true, projectId: event.payload.projectId, orgId: event.resourceOwner };
        case 'app.oidc.config.added':
          return { ...state, authMethodType: String(event.payload.config.authMethodType) };
        case 'app.removed':
          return { ...state, exists: false };
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent[] => {
      if (!state.exists) throw new KeyholdError('APP_NOT_FOUND', { appId });
      const base = { aggregateType: 'app' as const, aggregateId: appId, resourceOwner: state.orgId, creator: command.actor };
      switch (command.kind) {
        case 'regenerateSecret':
          if (!state.authMethodType || !needsClientSecret(state.authMethodType)) {
            throw new KeyholdError('APP_NOT_OIDC_SECRET', { appId });
          }
          return [{ ...base, type: 'app.oidc.secret.changed', payload: { clientSecretHash: command.clientSecretHash } }];
        case 'remove':
          return [{ ...base, type: 'app.removed', payload: { projectId: state.projectId } }];
      }
    },
  };
}
