// A login with a passkey, decided by the passkey decider (kind 'use') and
// the user side of it (passkeyUserDecider): every challenge a passkey has
// answered is refused again, and only an existing, active human signs in.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../../src/domain/events/index.js';
import { passkeyDecider, passkeyUserDecider, type PasskeyCommand } from '../../../src/domain/passkey/decider.js';
import { decide, refusal } from '../../support/deciders.js';
import { verifiedPayload } from '../../support/events.js';

const decider = passkeyDecider('p1', 'u1');
const own = { aggregateType: 'passkey', aggregateId: 'p1', resourceOwner: 'org', creator: 'u1' } as const;
const started: NewEvent = { ...own, type: 'passkey.registration.started', payload: { userId: 'u1', rpId: 'localhost', challenge: 'c', expiresAt: '2999-01-01T00:00:00Z' } };
const verified: NewEvent = { ...own, type: 'passkey.verified', payload: { ...verifiedPayload({ userId: 'u1', signCount: 0 }), passkeyName: 'Laptop' } } as NewEvent;
const used = (challenge: string): NewEvent => ({ ...own, type: 'passkey.used', payload: { userId: 'u1', signCount: 0, challenge, clientId: 'app' } });
const use = (challenge: string): PasskeyCommand => ({ kind: 'use', signCount: 0, challenge, clientId: 'app', actor: 'u1' });

describe('passkey decider: a login with the passkey', () => {
  it('a counter-0 passkey: every challenge already answered is refused, not only the last', () => {
    expect(decide(decider, [started, verified], use('a'))[0]!.type).toBe('passkey.used');
    expect(refusal(decider, [started, verified, used('a'), used('b')], use('a')).reason).toBe('PASSKEY_LOGIN_REPLAYED');
    expect(refusal(decider, [started, verified, used('a'), used('b')], use('b')).reason).toBe('PASSKEY_LOGIN_REPLAYED');
    expect(decide(decider, [started, verified, used('a'), used('b')], use('c'))[0]!.type).toBe('passkey.used');
  });
});

describe('passkeyUserDecider: the user side of a passkey login', () => {
  const user = passkeyUserDecider('u1', 'p1');
  const u = { aggregateType: 'user', aggregateId: 'u1', resourceOwner: 'org', creator: 'admin' } as const;
  const human: NewEvent = { ...u, type: 'user.human.added', payload: { username: 'ada', givenName: 'A', familyName: 'L', displayName: 'A L', email: 'a@example.com' } };
  const machine: NewEvent = { ...u, type: 'user.machine.added', payload: { username: 'bot', name: 'bot', description: '' } };

  it('an active human: nothing written, nothing refused', () => {
    expect(decide(user, [human], { kind: 'signIn' })).toEqual([]);
  });

  it('a machine user, a removed user, nobody: no passkey to sign in with; a locked or deactivated human: inactive', () => {
    expect(refusal(user, [machine], { kind: 'signIn' }).reason).toBe('PASSKEY_LOGIN_UNKNOWN_CREDENTIAL');
    expect(refusal(user, [human, { ...u, type: 'user.removed', payload: {} }], { kind: 'signIn' }).reason).toBe('PASSKEY_LOGIN_UNKNOWN_CREDENTIAL');
    expect(refusal(user, [], { kind: 'signIn' }).reason).toBe('PASSKEY_LOGIN_UNKNOWN_CREDENTIAL');
    expect(refusal(user, [human, { ...u, type: 'user.locked', payload: { maxAttempts: 3 } }], { kind: 'signIn' }).reason).toBe('PASSKEY_LOGIN_USER_INACTIVE');
    expect(refusal(user, [human, { ...u, type: 'user.deactivated', payload: {} }], { kind: 'signIn' }).reason).toBe('PASSKEY_LOGIN_USER_INACTIVE');
  });
});
