// Keys of private_key_jwt apps (src/domain/app/decider.ts): AddAppKey
// only for PRIVATE_KEY_JWT apps, only the public key in the event; RemoveAppKey.
import { describe, expect, it } from 'vitest';
import { appDecider, type AppCommand } from '../../../src/domain/app/decider.js';
import type { NewEvent } from '../../../src/domain/events/index.js';
import { validateOidcApp, type OidcConfig } from '../../../src/domain/oidc/index.js';
import { decide, refusal } from '../../support/deciders.js';
import { request } from '../oidc/helpers.js';

const decider = appDecider('app-1');

function config(overrides: Parameters<typeof request>[0] = {}): OidcConfig {
  const result = validateOidcApp(request(overrides));
  if (!result.ok) throw new Error('invalid test config');
  return result.config;
}
const add = (c: OidcConfig): AppCommand => ({ kind: 'add', projectId: 'p1', orgId: 'org', config: c, clientId: 'client-1', clientSecretHash: null, actor: 'admin' });
const jwk = { kty: 'RSA', kid: 'k1', n: 'modulus', e: 'AQAB' };
const addKey = (keyId = 'k1', projectId = 'p1'): AppCommand => ({ kind: 'addKey', projectId, keyId, type: 'KEY_TYPE_JSON', publicKey: { ...jwk, kid: keyId }, expiresAt: '2030-01-01T00:00:00.000Z', actor: 'admin' });
const removeKey = (keyId = 'k1'): AppCommand => ({ kind: 'removeKey', projectId: 'p1', keyId, actor: 'admin' });

const keyApp = (): NewEvent[] => decide(decider, [], add(config({ authMethodType: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' })));

describe('app keys', () => {
  it('AddAppKey on a PRIVATE_KEY_JWT app: app.key.added with the public JWK and the expiry', () => {
    const events = decide(decider, keyApp(), addKey());
    expect(events).toEqual([
      { aggregateType: 'app', aggregateId: 'app-1', resourceOwner: 'org', creator: 'admin', type: 'app.key.added', payload: { keyId: 'k1', type: 'KEY_TYPE_JSON', publicKey: jwk, expiresAt: '2030-01-01T00:00:00.000Z' } },
    ]);
    expect(JSON.stringify(events)).not.toMatch(/"d"|PRIVATE/);
  });

  it('refuses a key for an app with another auth method (APP_KEY_NEEDS_PRIVATE_KEY_JWT), of another project or no app (APP_NOT_FOUND)', () => {
    const basic = decide(decider, [], add(config({ authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC' })));
    expect(refusal(decider, basic, addKey())).toEqual({ reason: 'APP_KEY_NEEDS_PRIVATE_KEY_JWT', metadata: { appId: 'app-1' } });
    expect(refusal(decider, keyApp(), addKey('k1', 'other')).reason).toBe('APP_NOT_FOUND');
    expect(refusal(decider, [], addKey()).reason).toBe('APP_NOT_FOUND');
  });

  it('RemoveAppKey: app.key.removed for a key of the app; then, or for an unknown key, APP_KEY_NOT_FOUND', () => {
    const history = [...keyApp(), ...decide(decider, keyApp(), addKey())];
    const removal = decide(decider, history, removeKey());
    expect(removal.map((e) => [e.type, e.payload])).toEqual([['app.key.removed', { keyId: 'k1' }]]);
    expect(refusal(decider, [...history, ...removal], removeKey())).toEqual({ reason: 'APP_KEY_NOT_FOUND', metadata: { appId: 'app-1', keyId: 'k1' } });
    expect(refusal(decider, history, removeKey('k2')).reason).toBe('APP_KEY_NOT_FOUND');
  });
});
