// The OIDC application's rules (src/domain/app/decider.ts): AddOIDCApp,
// RegenerateOIDCClientSecret, RemoveApp — given events, a command, the events decided.
import { describe, expect, it } from 'vitest';
import { appDecider, type AppCommand } from '../../../src/domain/app/decider.js';
import type { NewEvent } from '../../../src/domain/events/index.js';
import { validateOidcApp, type OidcConfig } from '../../../src/domain/oidc/index.js';
import { decide, refusal } from '../../support/deciders.js';
import { request } from '../oidc/helpers.js';

const APP = 'app-1';
const decider = appDecider(APP);

function config(overrides: Parameters<typeof request>[0] = {}): OidcConfig {
  const result = validateOidcApp(request(overrides));
  if (!result.ok) throw new Error('invalid test config');
  return result.config;
}

const add = (c: OidcConfig = config(), hash: string | null = 'secret-hash'): AppCommand => ({
  kind: 'add',
  projectId: 'p1',
  orgId: 'org',
  config: c,
  clientId: 'client-1',
  clientSecretHash: hash,
  actor: 'admin',
});
const added = (c: OidcConfig = config(), hash: string | null = 'secret-hash') => decide(decider, [], add(c, hash));

describe('app decider', () => {
  it('AddOIDCApp on a new id: app.added, then the config with the secret only as its hash', () => {
    const c = config();
    expect(added(c)).toEqual([
      { aggregateType: 'app', aggregateId: APP, type: 'app.added', payload: { projectId: 'p1', name: 'Shop' }, resourceOwner: 'org', creator: 'admin' },
      {
        aggregateType: 'app',
        aggregateId: APP,
        type: 'app.oidc.config.added',
        payload: { clientId: 'client-1', clientSecretHash: 'secret-hash', config: c },
        resourceOwner: 'org',
        creator: 'admin',
      },
    ]);
  });

  it('AddOIDCApp on an id in use, even a removed app’s: ID_TAKEN', () => {
    expect(refusal(decider, added(), add())).toEqual({ reason: 'ID_TAKEN', metadata: { id: APP } });
    const removed = [...added(), ...decide(decider, added(), { kind: 'remove', projectId: 'p1', actor: 'admin' })];
    expect(refusal(decider, removed, add()).reason).toBe('ID_TAKEN');
  });

  it('RegenerateOIDCClientSecret: the new hash, owned by the app’s org', () => {
    expect(decide(decider, added(), { kind: 'regenerateSecret', projectId: 'p1', clientSecretHash: 'h2', actor: 'someone' })).toEqual([
      { aggregateType: 'app', aggregateId: APP, type: 'app.oidc.secret.changed', payload: { clientSecretHash: 'h2' }, resourceOwner: 'org', creator: 'someone' },
    ]);
  });

  it('RegenerateOIDCClientSecret for an app without a secret (NONE): APP_NOT_OIDC_SECRET', () => {
    const none = config({ authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE' });
    expect(refusal(decider, added(none, null), { kind: 'regenerateSecret', projectId: 'p1', clientSecretHash: 'h2', actor: 'a' })).toEqual({
      reason: 'APP_NOT_OIDC_SECRET',
      metadata: { appId: APP },
    });
  });

  it('RemoveApp: app.removed naming its project; then the app is gone for every command', () => {
    const removal = decide(decider, added(), { kind: 'remove', projectId: 'p1', actor: 'a' });
    expect(removal).toEqual([{ aggregateType: 'app', aggregateId: APP, type: 'app.removed', payload: { projectId: 'p1' }, resourceOwner: 'org', creator: 'a' }]);
    const history: NewEvent[] = [...added(), ...removal];
    expect(refusal(decider, history, { kind: 'remove', projectId: 'p1', actor: 'a' }).reason).toBe('APP_NOT_FOUND');
    expect(refusal(decider, history, { kind: 'regenerateSecret', projectId: 'p1', clientSecretHash: 'h', actor: 'a' }).reason).toBe('APP_NOT_FOUND');
  });

  it('RemoveProject: the app goes with its project; one removed already: nothing, not a refusal of the whole removal', () => {
    const removal = decide(decider, added(), { kind: 'removeWithProject', projectId: 'p1', actor: 'a' });
    expect(removal).toMatchObject([{ type: 'app.removed', payload: { projectId: 'p1' } }]);
    expect(decide(decider, [...added(), ...removal], { kind: 'removeWithProject', projectId: 'p1', actor: 'a' })).toEqual([]);
  });

  it('an app that does not exist, or is of another project: APP_NOT_FOUND, the same answer', () => {
    expect(refusal(decider, [], { kind: 'remove', projectId: 'p1', actor: 'a' })).toEqual({ reason: 'APP_NOT_FOUND', metadata: { appId: APP } });
    expect(refusal(decider, added(), { kind: 'remove', projectId: 'p2', actor: 'a' })).toEqual({ reason: 'APP_NOT_FOUND', metadata: { appId: APP } });
    expect(refusal(decider, added(), { kind: 'regenerateSecret', projectId: 'p2', clientSecretHash: 'h', actor: 'a' }).reason).toBe('APP_NOT_FOUND');
  });

  it('UpdateApp: app.changed with the new name; the next config change keeps it', () => {
    const renamed = [...added(), ...decide(decider, added(), { kind: 'rename', projectId: 'p1', name: 'Shop 2', actor: 'a' })];
    expect(renamed.at(-1)).toMatchObject({ type: 'app.changed', payload: { name: 'Shop 2' }, resourceOwner: 'org', creator: 'a' });
    const [changed] = decide(decider, renamed, { kind: 'changeOidcConfig', projectId: 'p1', config: config({ name: 'ignored' }), actor: 'a' });
    expect(changed).toMatchObject({ type: 'app.oidc.config.changed', payload: { config: { name: 'Shop 2' } } });
  });

  const change = (c: OidcConfig): AppCommand => ({ kind: 'changeOidcConfig', projectId: 'p1', config: c, actor: 'a' });
  const credentialAfter = (history: NewEvent[], c: OidcConfig) => {
    const [e] = decide(decider, history, change(c));
    return e!.type === 'app.oidc.config.changed' ? e!.payload.clientCredential : undefined;
  };
  const none = () => config({ authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE' });
  const post = () => config({ authMethodType: 'OIDC_AUTH_METHOD_TYPE_POST' });
  const pkjwt = () => config({ authMethodType: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' });

  it('UpdateOIDCAppConfig: BASIC→POST keeps the secret, →NONE/PRIVATE_KEY_JWT drops it, NONE→BASIC needs one', () => {
    expect(credentialAfter(added(), post())).toBe('kept');
    expect(credentialAfter(added(), none())).toBe('dropped');
    expect(credentialAfter(added(), pkjwt())).toBe('dropped');
    const publicApp = added(none(), null);
    expect(credentialAfter(publicApp, pkjwt())).toBe('none');
    expect(credentialAfter(publicApp, config())).toBe('needed');
    // After the drop, a switch back needs a new secret; a regenerated one is then kept.
    const dropped = [...added(), ...decide(decider, added(), change(none()))];
    expect(credentialAfter(dropped, post())).toBe('needed');
    const needed = [...dropped, ...decide(decider, dropped, change(post()))];
    expect(refusal(decider, dropped, { kind: 'regenerateSecret', projectId: 'p1', clientSecretHash: 'h', actor: 'a' }).reason).toBe('APP_NOT_OIDC_SECRET');
    const regenerated = [...needed, ...decide(decider, needed, { kind: 'regenerateSecret', projectId: 'p1', clientSecretHash: 'h3', actor: 'a' })];
    expect(credentialAfter(regenerated, config())).toBe('kept');
  });

  it('DeactivateApp / ReactivateApp: each only from the other state', () => {
    const deactivation = decide(decider, added(), { kind: 'deactivate', projectId: 'p1', actor: 'a' });
    expect(deactivation).toEqual([{ aggregateType: 'app', aggregateId: APP, type: 'app.deactivated', payload: {}, resourceOwner: 'org', creator: 'a' }]);
    const inactive = [...added(), ...deactivation];
    expect(refusal(decider, inactive, { kind: 'deactivate', projectId: 'p1', actor: 'a' })).toEqual({ reason: 'APP_NOT_ACTIVE', metadata: { appId: APP } });
    expect(refusal(decider, added(), { kind: 'reactivate', projectId: 'p1', actor: 'a' })).toEqual({ reason: 'APP_NOT_INACTIVE', metadata: { appId: APP } });
    expect(decide(decider, inactive, { kind: 'reactivate', projectId: 'p1', actor: 'a' })[0]!.type).toBe('app.reactivated');
    // An inactive app can still be edited (to be fixed before it is reactivated).
    expect(decide(decider, inactive, { kind: 'rename', projectId: 'p1', name: 'X', actor: 'a' })[0]!.type).toBe('app.changed');
  });

  it('the new commands on a removed app or one of another project: APP_NOT_FOUND', () => {
    const removed = [...added(), ...decide(decider, added(), { kind: 'remove', projectId: 'p1', actor: 'a' })];
    for (const command of [
      { kind: 'rename', projectId: 'p1', name: 'X', actor: 'a' },
      change(config()),
      { kind: 'deactivate', projectId: 'p1', actor: 'a' },
      { kind: 'reactivate', projectId: 'p1', actor: 'a' },
      { kind: 'setApiAccess', projectId: 'p1', allowed: true, actor: 'a' },
    ] as AppCommand[]) {
      expect(refusal(decider, removed, command).reason).toBe('APP_NOT_FOUND');
      expect(refusal(decider, added(), { ...command, projectId: 'p2' }).reason).toBe('APP_NOT_FOUND');
    }
  });

  it('SetAppAPIAccess: off until allowed; each call one event; unlessDecided writes only when it was never set', () => {
    const allow = (extra: Partial<AppCommand> = {}) => ({ kind: 'setApiAccess', projectId: 'p1', allowed: true, actor: 'iam', ...extra }) as AppCommand;
    const allowed = decide(decider, added(), allow());
    expect(allowed).toEqual([{ aggregateType: 'app', aggregateId: APP, type: 'app.api.access.changed', payload: { allowed: true }, resourceOwner: 'org', creator: 'iam' }]);
    // Once allowed, the console's start-up allowance writes nothing; a refusal that follows is kept.
    expect(decide(decider, [...added(), ...allowed], allow({ unlessDecided: true }))).toEqual([]);
    const refused = [...added(), ...allowed, ...decide(decider, [...added(), ...allowed], allow({ allowed: false }))];
    expect(decide(decider, refused, allow({ unlessDecided: true }))).toEqual([]);
    // Never decided: the allowance is written.
    expect(decide(decider, added(), allow({ unlessDecided: true }))[0]!.payload).toEqual({ allowed: true });
    // A repeated call writes again, as the app's other settings do.
    expect(decide(decider, [...added(), ...allowed], allow())).toHaveLength(1);
  });

  it('an app allowed the API: only a caller holding app.api.access.write renames, reconfigures, regenerates its secret or adds a key', () => {
    const allowed = [...added(), ...decide(decider, added(), { kind: 'setApiAccess', projectId: 'p1', allowed: true, actor: 'iam' })];
    const guarded: AppCommand[] = [
      { kind: 'rename', projectId: 'p1', name: 'Trusted name', actor: 'owner' },
      { kind: 'changeOidcConfig', projectId: 'p1', config: config(), actor: 'owner' },
      { kind: 'regenerateSecret', projectId: 'p1', clientSecretHash: 'h', actor: 'owner' },
    ];
    for (const command of guarded) {
      expect(refusal(decider, allowed, command)).toEqual({ reason: 'APP_API_ACCESS_PROTECTED', metadata: { appId: APP } });
      expect(refusal(decider, allowed, { ...command, apiGuardian: false } as AppCommand).reason).toBe('APP_API_ACCESS_PROTECTED');
      expect(decide(decider, allowed, { ...command, apiGuardian: true } as AppCommand)).toHaveLength(1);
      // Not allowed (or no longer): the app's owners as before.
      expect(decide(decider, added(), command)).toHaveLength(1);
    }
    // Taking access away stays theirs: deactivate and remove.
    expect(decide(decider, allowed, { kind: 'deactivate', projectId: 'p1', actor: 'owner' })[0]!.type).toBe('app.deactivated');
    expect(decide(decider, allowed, { kind: 'remove', projectId: 'p1', actor: 'owner' })[0]!.type).toBe('app.removed');
  });
});
