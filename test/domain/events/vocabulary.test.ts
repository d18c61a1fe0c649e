// The event vocabulary (src/domain/events): every event type belongs to one
// aggregate, and the one rule that marks secret payload fields (SECRET_FIELDS,
// for the audit log) leaves out every hash of a secret.
import { describe, expect, it } from 'vitest';
import {
  AGGREGATE_OF,
  AGGREGATE_TYPES,
  SECRET_FIELDS,
  withoutSecrets,
  type EventPayloads,
  type EventTypeName,
} from '../../../src/domain/events/index.js';
import { OIDC_DEFAULTS } from '../../../src/domain/oidc/index.js';
import { verifiedPayload } from '../../support/events.js';

/** One payload per event type (the compiler insists on every type). */
const SAMPLES: { [K in EventTypeName]: EventPayloads[K] } = {
  'instance.added': { defaultOrgId: 'org' },
  'instance.member.added': { userId: 'u', roles: ['IAM_OWNER'] },
  'instance.login.throttled': { clientId: 'c', clientIp: '203.0.113.7', waitSeconds: 5 },
  'instance.owners.ended': { orgId: 'o', userIds: ['u'] },
  'org.added': { name: 'Org' },
  'org.changed': { name: 'Org 2' },
  'org.deactivated': {},
  'org.reactivated': {},
  'org.removed': {},
  'org.member.added': { userId: 'u', roles: ['ORG_OWNER'] },
  'org.member.changed': { userId: 'u', roles: ['ORG_OWNER'] },
  'org.member.removed': { userId: 'u' },
  'org.owner.suspended': { userId: 'u' },
  'org.login.policy.added': { forceMfa: true },
  'org.login.policy.changed': { forceMfa: false },
  'org.lockout.policy.added': { maxAttempts: 3 },
  'org.lockout.policy.changed': { maxAttempts: 0 },
  'project.added': { name: 'P', projectRoleCheck: true, hasProjectCheck: false },
  'project.role.added': { roleKey: 'editor', displayName: 'Editor', group: '' },
  'project.changed': { name: 'P', projectRoleCheck: true, hasProjectCheck: false },
  'project.deactivated': {},
  'project.reactivated': {},
  'project.removed': {},
  'project.grant.added': { grantId: 'pg1', grantedOrgId: 'o2', roleKeys: ['editor'] },
  'project.grant.changed': { grantId: 'pg1', roleKeys: [] },
  'project.grant.deactivated': { grantId: 'pg1' },
  'project.grant.reactivated': { grantId: 'pg1' },
  'project.grant.removed': { grantId: 'pg1', grantedOrgId: 'o2' },
  'project.role.changed': { roleKey: 'editor', displayName: 'Editor', group: 'g' },
  'project.role.removed': { roleKey: 'editor' },
  'project.member.added': { userId: 'u', roles: ['PROJECT_OWNER'] },
  'project.member.changed': { userId: 'u', roles: ['PROJECT_OWNER'] },
  'project.member.removed': { userId: 'u' },
  'user.human.added': { username: 'ada', givenName: 'Ada', familyName: 'L', displayName: 'Ada L', email: 'ada@example.com' },
  'user.machine.added': { username: 'bot', name: 'Bot', description: '' },
  'user.pat.added': { tokenId: 't', tokenHash: 'pat-hash', expiresAt: null },
  'user.password.changed': { passwordHash: 'password-hash', changeRequired: false },
  'user.password.reset.requested': { delivery: 'mail' },
  'user.login.succeeded': { clientId: 'c', amr: ['pwd'] },
  'user.password.check.failed': { clientId: 'c' },
  'user.pat.removed': { tokenId: 't' },
  'user.human.changed': { username: 'ada', givenName: 'Ada', familyName: 'L', displayName: 'Ada L', email: 'ada@example.com' },
  'user.deactivated': {},
  'user.reactivated': {},
  'user.locked': {},
  'user.login.throttled': { clientId: 'c', by: 'ip', clientIp: '203.0.113.7', waitSeconds: 5 },
  'user.oidc.grant.saved': { grantId: 'g', clientId: 'c', scope: 'openid' },
  'user.oidc.grant.revoked': { grantId: 'g', clientId: 'c', reason: 'revocation' },
  'user.oidc.token.revoked': { grantId: 'g', clientId: 'c', tokenType: 'refresh_token' },
  'user.unlocked': {},
  'user.removed': {},
  'user.sessions.ended': {},
  'user.session.ended': { sessionId: 's' },
  'user.machine.secret.set': { clientId: 'machine-c', clientSecretHash: 'machine-secret-hash' },
  'user.machine.secret.removed': {},
  'user.recovery.codes.generated': { codeHashes: ['recovery-hash'] },
  'user.recovery.code.used': { index: 0, clientId: 'c' },
  'user.recovery.code.check.failed': { clientId: 'c' },
  'user.recovery.codes.removed': {},
  'user.factor.removed': { kind: 'passkey', id: 'pk' },
  'user.metadata.set': { key: 'department', value: 'c2FsZXM=' },
  'user.metadata.removed': { key: 'department' },
  'user.totp.added': { totpId: 't' },
  'user.totp.verified': { totpId: 't' },
  'user.totp.removed': { totpId: 't' },
  'user.totp.used': { totpId: 't', clientId: 'c' },
  'user.totp.check.failed': { totpId: 't', clientId: 'c' },
  'user.invite.code.added': { codeHash: 'h', expiresAt: '2030-01-01T00:00:00.000Z', purpose: 'credential', delivery: 'mail' },
  'user.invite.code.used': {},
  'user.invite.code.check.failed': {},
  'user.self.registered': { verificationRequired: true },
  'user.email.code.added': { codeHash: 'h', email: 'a@example.com', expiresAt: '2030-01-01T00:00:00.000Z', delivery: 'mail' },
  'user.email.verified': { email: 'a@example.com', by: 'code' },
  'user.email.code.check.failed': {},
  'app.added': { projectId: 'p', name: 'App' },
  'app.oidc.config.added': {
    clientId: 'c',
    clientSecretHash: 'secret-hash',
    config: {
      ...OIDC_DEFAULTS,
      name: 'App',
      redirectUris: ['https://a.example/cb'],
      responseTypes: [...OIDC_DEFAULTS.responseTypes],
      grantTypes: [...OIDC_DEFAULTS.grantTypes],
      postLogoutRedirectUris: [],
      devMode: false,
      accessTokenRoleAssertion: false,
      idTokenRoleAssertion: false,
      idTokenUserinfoAssertion: false,
      additionalOrigins: [],
      skipNativeAppSuccessPage: false,
    },
  },
  'app.oidc.secret.changed': { clientSecretHash: 'new-secret-hash' },
  'app.removed': { projectId: 'p' },
  'app.changed': { name: 'New name' },
  'app.oidc.config.changed': { config: { ...OIDC_DEFAULTS, name: 'App', redirectUris: [], responseTypes: [...OIDC_DEFAULTS.responseTypes], grantTypes: [...OIDC_DEFAULTS.grantTypes], postLogoutRedirectUris: [], devMode: false, accessTokenRoleAssertion: false, idTokenRoleAssertion: false, idTokenUserinfoAssertion: false, additionalOrigins: [], skipNativeAppSuccessPage: false }, clientCredential: 'dropped' },
  'app.deactivated': {},
  'app.reactivated': {},
  'app.key.added': { keyId: 'k', type: 'KEY_TYPE_JSON', publicKey: { kty: 'RSA', kid: 'k', n: 'modulus', e: 'AQAB' }, expiresAt: new Date(0).toISOString() },
  'app.key.removed': { keyId: 'k' },
  'app.api.access.changed': { allowed: true },
  'u2f.registration.started': { userId: 'u', rpId: 'localhost', challenge: 'c', expiresAt: new Date(0).toISOString() },
  'u2f.registration.replaced': { userId: 'u', by: 'other' },
  'u2f.verified': verifiedPayload({ userId: 'u' }),
  'u2f.removed': { userId: 'u' },
  'u2f.renamed': { userId: 'u', tokenName: 'Desk key' },
  'u2f.used': { userId: 'u', signCount: 3, clientId: 'app' },
  'u2f.signcount.refused': { userId: 'u', storedSignCount: 3, presentedSignCount: 2, clientId: 'app' },
  'passkey.registration.started': { userId: 'u', rpId: 'localhost', challenge: 'c', expiresAt: new Date(0).toISOString() },
  'passkey.registration.replaced': { userId: 'u', by: 'other' },
  'passkey.verified': {
    userId: 'u',
    passkeyName: 'Laptop',
    credentialId: 'Y3JlZA',
    publicKey: 'a2V5',
    algorithm: -7,
    format: 'none',
    aaguid: '00000000-0000-0000-0000-000000000000',
    signCount: 0,
    transports: ['internal'],
    backupEligible: true,
    backedUp: true,
    rpId: 'localhost',
  },
  'passkey.removed': { userId: 'u' },
  'passkey.renamed': { userId: 'u', passkeyName: 'Phone' },
  'passkey.used': { userId: 'u', signCount: 4, challenge: 'c', clientId: 'app' },
  'passkey.signcount.refused': { userId: 'u', storedSignCount: 3, presentedSignCount: 2, clientId: 'app' },
  'usergrant.added': { userId: 'u', projectId: 'p', roleKeys: ['editor'] },
  'usergrant.cascade.changed': { removedRoleKey: 'viewer', roleKeys: ['editor'] },
  'usergrant.cascade.removed': {},
  'usergrant.changed': { roleKeys: ['viewer'] },
  'usergrant.deactivated': {},
  'usergrant.reactivated': {},
  'usergrant.removed': { userId: 'u', projectId: 'p' },
  'idp.added': { orgId: 'o', settings: { kind: 'oidc', name: 'Corp', issuer: 'https://idp.example.com', clientId: 'c', scopes: ['openid'], options: { isLinkingAllowed: true, isCreationAllowed: true, isAutoCreation: false, isAutoUpdate: false }, trust: { emailVerified: false, upstreamAmr: false } } },
  'idp.changed': { settings: { kind: 'oauth', name: 'GitHub', authorizationEndpoint: 'https://a', tokenEndpoint: 'https://t', userinfoEndpoint: 'https://u', mapping: { id: 'id' }, clientId: 'c', scopes: [], options: { isLinkingAllowed: false, isCreationAllowed: false, isAutoCreation: false, isAutoUpdate: false }, trust: { emailVerified: false, upstreamAmr: false } } },
  'idp.removed': {},
  'idplink.added': { idpId: 'i', subject: 's', userId: 'u', how: 'login' },
  'idplink.removed': { idpId: 'i', subject: 's', userId: 'u' },
  'idplink.used': { idpId: 'i', userId: 'u', clientId: 'app', amr: ['fed'] },
};

const types = Object.keys(SAMPLES) as EventTypeName[];

describe('event vocabulary', () => {
  it('names an aggregate type for every event type, each prefixed by it', () => {
    for (const type of types) {
      expect(AGGREGATE_TYPES).toContain(AGGREGATE_OF[type]);
      expect(type.startsWith(`${AGGREGATE_OF[type]}.`), type).toBe(true);
    }
  });

  it('leaves out the PAT hash, the password hash and the client-secret hashes, and nothing of events without secrets', () => {
    expect(withoutSecrets('user.pat.added', SAMPLES['user.pat.added'])).toEqual({ tokenId: 't', expiresAt: null });
    const config = withoutSecrets('app.oidc.config.added', SAMPLES['app.oidc.config.added']);
    expect(config).not.toHaveProperty('clientSecretHash');
    expect(config).toMatchObject({ clientId: 'c' });
    expect(withoutSecrets('app.oidc.secret.changed', SAMPLES['app.oidc.secret.changed'])).toEqual({});
    expect(withoutSecrets('user.human.added', SAMPLES['user.human.added'])).toEqual(SAMPLES['user.human.added']);
    expect(withoutSecrets('user.password.changed', SAMPLES['user.password.changed'])).toEqual({ changeRequired: false });
    expect(withoutSecrets('user.machine.secret.set', SAMPLES['user.machine.secret.set'])).toEqual({ clientId: 'machine-c' });
  });

  it('marks every payload field whose name says secret, hash or password (a new one must be marked or renamed)', () => {
    const looksSecret = /secret|hash|password/i;
    for (const type of types) {
      const marked: readonly PropertyKey[] = SECRET_FIELDS[type];
      for (const field of Object.keys(SAMPLES[type])) {
        if (looksSecret.test(field)) expect(marked, `${type}.${field}`).toContain(field);
      }
      const left = JSON.stringify(withoutSecrets(type, SAMPLES[type] as never));
      expect(left, type).not.toMatch(/secret-hash|pat-hash|password-hash/);
    }
  });
});
