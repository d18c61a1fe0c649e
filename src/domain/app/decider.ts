// An OIDC application's life: added with its configuration (AddOIDCApp: two
// events on a new aggregate), renamed, its configuration replaced, its client
// secret regenerated, deactivated and reactivated, allowed or not to obtain
// tokens for Keyhold's own API (an instance administrator's call), removed (alone
// or with its project). Every
// command names the project the caller addressed: an app of another project is
// "not found", as for no app at all.
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { AppKeyType, AppSecretAfterChange, PublicJwk } from '../events/app.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';
import { needsClientSecret } from '../oidc/client-secret.js';
import type { OidcAuthMethodType, OidcConfig } from '../oidc/types.js';

type AppEventType = EventTypeOf<'app'>;

export interface AppState {
  /** Ever created (an id is never used twice, not even after removal). */
  created: boolean;
  exists: boolean;
  projectId: string;
  orgId: string;
  name: string;
  active: boolean;
  authMethodType?: OidcAuthMethodType;
  /** A client secret's hash is stored. */
  hasSecret: boolean;
  /** The OIDC client id (app.oidc.config.added); '' before. */
  clientId: string;
  /** Ids of the app's keys not removed (AddAppKey; expired ones included). */
  keys: readonly string[];
  /** May obtain access tokens for Keyhold's API (SetAppAPIAccess); off until allowed. */
  apiAccess: boolean;
  /** SetAppAPIAccess was ever decided (the console's app is allowed once, not again after a refusal). */
  apiAccessDecided: boolean;
}

/**
 * On commands that change who the app is, where its codes and tokens go or how
 * it authenticates: the caller holds app.api.access.write (absent: it does not).
 * An app allowed Keyhold's API gets tokens that act as whoever signs in, so
 * whoever could re-point it (a new redirect URI, a secret, a key, a trusted
 * name) could take them: once allowed, those writes are the instance
 * administrator's.
 */
interface ApiGuard {
  apiGuardian?: boolean;
}

const API_GUARDED: ReadonlySet<AppCommand['kind']> = new Set<AppCommand['kind']>(['rename', 'changeOidcConfig', 'regenerateSecret', 'addKey']);

export type AppCommand =
  | {
      kind: 'add';
      projectId: string;
      orgId: string;
      /** Validated and normalized (domain/oidc validateOidcApp). */
      config: OidcConfig;
      clientId: string;
      /** Only for auth methods with a secret (needsClientSecret); else null. */
      clientSecretHash: string | null;
      actor: string;
    }
  | ({ kind: 'regenerateSecret'; projectId: string; clientSecretHash: string; actor: string } & ApiGuard)
  | ({ kind: 'rename'; projectId: string; /** Validated (validateAppName). */ name: string; actor: string } & ApiGuard)
  | ({
      kind: 'changeOidcConfig';
      projectId: string;
      /** Validated and normalized; its `name` is ignored (the app keeps its own). */
      config: OidcConfig;
      actor: string;
    } & ApiGuard)
  | { kind: 'deactivate'; projectId: string; actor: string }
  | { kind: 'reactivate'; projectId: string; actor: string }
  | { kind: 'remove'; projectId: string; actor: string }
  /** RemoveProject: the app goes with its project (nothing when it is gone already). */
  | { kind: 'removeWithProject'; projectId: string; actor: string }
  /** AddAppKey: the public half of a key made for the app (its private half goes to the caller only). */
  | ({ kind: 'addKey'; projectId: string; keyId: string; type: AppKeyType; publicKey: PublicJwk; expiresAt: string; actor: string } & ApiGuard)
  | { kind: 'removeKey'; projectId: string; keyId: string; actor: string }
  /**
   * SetAppAPIAccess. `unlessDecided`: nothing is written when the access was
   * ever set (how every start allows the console's own app without undoing an
   * administrator's later refusal).
   */
  | { kind: 'setApiAccess'; projectId: string; allowed: boolean; actor: string; unlessDecided?: boolean };

/** What becomes of the stored secret when the auth method changes to `next`. */
export function secretAfterChange(hasSecret: boolean, next: OidcAuthMethodType): AppSecretAfterChange {
  if (needsClientSecret(next)) return hasSecret ? 'kept' : 'needed';
  return hasSecret ? 'dropped' : 'none';
}

export function appDecider(appId: string): Decider<AppState, AppCommand, AppEventType> {
  return {
    initialState: () => ({
      created: false,
      exists: false,
      projectId: '',
      orgId: '',
      name: '',
      active: false,
      hasSecret: false,
      clientId: '',
      keys: [],
      apiAccess: false,
      apiAccessDecided: false,
    }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'app.added':
          return {
            ...state,
            created: true,
            exists: true,
            active: true,
            projectId: event.payload.projectId,
            orgId: event.resourceOwner,
            name: event.payload.name,
          };
        case 'app.oidc.config.added':
          return { ...state, authMethodType: event.payload.config.authMethodType, hasSecret: event.payload.clientSecretHash !== null, clientId: event.payload.clientId };
        case 'app.oidc.secret.changed':
          return { ...state, hasSecret: true };
        case 'app.changed':
          return { ...state, name: event.payload.name };
        case 'app.oidc.config.changed':
          return {
            ...state,
            authMethodType: event.payload.config.authMethodType,
            hasSecret: event.payload.clientCredential === 'kept',
          };
        case 'app.deactivated':
          return { ...state, active: false };
        case 'app.reactivated':
          return { ...state, active: true };
        case 'app.key.added':
          return { ...state, keys: [...state.keys, event.payload.keyId] };
        case 'app.key.removed':
          return { ...state, keys: state.keys.filter((k) => k !== event.payload.keyId) };
        case 'app.api.access.changed':
          return { ...state, apiAccess: event.payload.allowed, apiAccessDecided: true };
        case 'app.removed':
          return { ...state, exists: false, keys: [] };
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent<AppEventType>[] => {
      if (command.kind === 'add') {
        if (state.created) throw new KeyholdError('ID_TAKEN', { id: appId });
        const own = { aggregateType: 'app' as const, aggregateId: appId, resourceOwner: command.orgId, creator: command.actor };
        return [
          { ...own, type: 'app.added', payload: { projectId: command.projectId, name: command.config.name } },
          {
            ...own,
            type: 'app.oidc.config.added',
            payload: { clientId: command.clientId, clientSecretHash: command.clientSecretHash, config: { ...command.config } },
          },
        ];
      }
      if (command.kind === 'removeWithProject' && !state.exists) return [];
      if (!state.exists || state.projectId !== command.projectId) throw new KeyholdError('APP_NOT_FOUND', { appId });
      if (state.apiAccess && API_GUARDED.has(command.kind) && (command as ApiGuard).apiGuardian !== true) {
        throw new KeyholdError('APP_API_ACCESS_PROTECTED', { appId });
      }
      const base = { aggregateType: 'app' as const, aggregateId: appId, resourceOwner: state.orgId, creator: command.actor };
      switch (command.kind) {
        case 'regenerateSecret':
          if (!state.authMethodType || !needsClientSecret(state.authMethodType)) {
            throw new KeyholdError('APP_NOT_OIDC_SECRET', { appId });
          }
          return [{ ...base, type: 'app.oidc.secret.changed', payload: { clientSecretHash: command.clientSecretHash } }];
        case 'rename':
          return [{ ...base, type: 'app.changed', payload: { name: command.name } }];
        case 'changeOidcConfig': {
          const config = { ...command.config, name: state.name };
          const clientCredential = secretAfterChange(state.hasSecret, config.authMethodType);
          return [{ ...base, type: 'app.oidc.config.changed', payload: { config, clientCredential } }];
        }
        case 'deactivate':
          if (!state.active) throw new KeyholdError('APP_NOT_ACTIVE', { appId });
          return [{ ...base, type: 'app.deactivated', payload: {} }];
        case 'reactivate':
          if (state.active) throw new KeyholdError('APP_NOT_INACTIVE', { appId });
          return [{ ...base, type: 'app.reactivated', payload: {} }];
        case 'remove':
        case 'removeWithProject':
          return [{ ...base, type: 'app.removed', payload: { projectId: state.projectId } }];
        case 'addKey': {
          if (state.authMethodType !== 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT') throw new KeyholdError('APP_KEY_NEEDS_PRIVATE_KEY_JWT', { appId });
          if (state.keys.includes(command.keyId)) throw new KeyholdError('ID_TAKEN', { id: command.keyId });
          const { keyId, type, publicKey, expiresAt } = command;
          return [{ ...base, type: 'app.key.added', payload: { keyId, type, publicKey: { ...publicKey }, expiresAt } }];
        }
        case 'removeKey':
          if (!state.keys.includes(command.keyId)) throw new KeyholdError('APP_KEY_NOT_FOUND', { appId, keyId: command.keyId });
          return [{ ...base, type: 'app.key.removed', payload: { keyId: command.keyId } }];
        case 'setApiAccess':
          if (command.unlessDecided && state.apiAccessDecided) return [];
          return [{ ...base, type: 'app.api.access.changed', payload: { allowed: command.allowed } }];
      }
    },
  };
}
