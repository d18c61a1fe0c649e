// The OpenID Provider's audit trail at the user decider: given the user's
// events → recordOidc → the event as given, on the user's org; refused for a
// user that does not exist (a removed user has no trail to add to).
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../../src/domain/events/index.js';
import { userDecider, type OidcAuditEvent } from '../../../src/domain/user/decider.js';
import { decide, refusal } from '../../support/deciders.js';

const decider = userDecider('u1');
const added: NewEvent = { aggregateType: 'user', aggregateId: 'u1', resourceOwner: 'org', creator: 'admin', type: 'user.human.added', payload: { username: 'ada', givenName: 'A', familyName: 'L', displayName: 'A L', email: 'a@example.com' } };
const removed: NewEvent = { ...added, type: 'user.removed', payload: {} };
const samples: OidcAuditEvent[] = [
  { type: 'user.login.throttled', payload: { clientId: 'app', by: 'account', waitSeconds: 5 } },
  { type: 'user.oidc.grant.saved', payload: { grantId: 'g1', clientId: 'app', scope: 'openid offline_access' } },
  { type: 'user.oidc.grant.revoked', payload: { grantId: 'g1', clientId: 'app', reason: 'reuse' } },
  { type: 'user.oidc.token.revoked', payload: { grantId: 'g1', clientId: 'app', tokenType: 'access_token' } },
];

describe('user decider: the OpenID Provider’s audit trail', () => {
  it('records each event on the user, in its org, by the user', () => {
    for (const event of samples) {
      expect(decide(decider, [added], { kind: 'recordOidc', event, actor: 'u1' })).toEqual([{ aggregateType: 'user', aggregateId: 'u1', resourceOwner: 'org', creator: 'u1', ...event }]);
    }
  });

  it('refuses a user that does not exist or was removed', () => {
    expect(refusal(decider, [], { kind: 'recordOidc', event: samples[1]!, actor: 'u1' }).reason).toBe('USER_NOT_FOUND');
    expect(refusal(decider, [added, removed], { kind: 'recordOidc', event: samples[2]!, actor: 'u1' }).reason).toBe('USER_NOT_FOUND');
  });
});

describe('instance decider: the login’s per-IP throttle for unknown names', () => {
  it('records it on the instance, in the default org, by the login', async () => {
    const { instanceDecider, LOGIN_ACTOR } = await import('../../../src/domain/instance/decider.js');
    const booted: NewEvent[] = [{ aggregateType: 'instance', aggregateId: 'default', resourceOwner: 'org0', creator: 'admin', type: 'instance.added', payload: { defaultOrgId: 'org0' } }];
    const command = { kind: 'recordThrottle' as const, clientId: 'app', clientIp: '203.0.113.7', waitSeconds: 5, actor: LOGIN_ACTOR };
    expect(decide(instanceDecider, booted, command)).toEqual([
      { aggregateType: 'instance', aggregateId: 'default', resourceOwner: 'org0', creator: 'keyhold-login', type: 'instance.login.throttled', payload: { clientId: 'app', clientIp: '203.0.113.7', waitSeconds: 5 } },
    ]);
    expect(() => decide(instanceDecider, [], command)).toThrow();
  });
});
