// The user's rules (src/domain/user/decider.ts): AddHumanUser, AddMachineUser
// (with its first token at bootstrap), AddPersonalAccessToken, passwords
// (AddHumanUser's initial one, SetPassword).
import { describe, expect, it } from 'vitest';
import { userDecider, type UserCommand } from '../../../src/domain/user/decider.js';
import { decide, refusal } from '../../support/deciders.js';

const decider = userDecider('u1');
const own = { aggregateType: 'user', aggregateId: 'u1', resourceOwner: 'org' } as const;
const human: UserCommand = { kind: 'addHuman', orgId: 'org', username: 'ada', givenName: 'Ada', familyName: 'Lovelace', displayName: '', email: 'ada@example.com', actor: 'admin' };
const machine: UserCommand = { kind: 'addMachine', orgId: 'org', username: 'bot', name: 'Bot', description: 'd', actor: 'admin' };
const pat: UserCommand = { kind: 'addPat', tokenId: 't1', tokenHash: 'hash', expiresAt: null, actor: 'admin' };

describe('user decider', () => {
  it('AddHumanUser: the profile, the display name made of the names when none is given', () => {
    expect(decide(decider, [], human)).toEqual([
      {
        ...own,
        type: 'user.human.added',
        payload: { username: 'ada', givenName: 'Ada', familyName: 'Lovelace', displayName: 'Ada Lovelace', email: 'ada@example.com' },
        creator: 'admin',
      },
    ]);
    expect(decide(decider, [], { ...human, displayName: 'Countess' })[0]!.payload).toMatchObject({ displayName: 'Countess' });
  });

  it('AddHumanUser or AddMachineUser on an id in use (a caller-chosen one): USER_ID_TAKEN', () => {
    const history = decide(decider, [], machine);
    expect(refusal(decider, history, human)).toEqual({ reason: 'USER_ID_TAKEN', metadata: { userId: 'u1' } });
    expect(refusal(decider, history, machine).reason).toBe('USER_ID_TAKEN');
  });

  it('a removed user’s id stays spent: adding a user under it again is USER_ID_TAKEN', () => {
    const removed = [...decide(decider, [], human), ...decide(decider, decide(decider, [], human), { kind: 'remove', actor: 'admin' })];
    expect(removed.map((e) => e.type)).toEqual(['user.human.added', 'user.removed']);
    expect(refusal(decider, removed, human).reason).toBe('USER_ID_TAKEN');
    expect(refusal(decider, removed, machine).reason).toBe('USER_ID_TAKEN');
  });

  it('AddMachineUser, and at bootstrap with its first token in the same write', () => {
    expect(decide(decider, [], machine)).toEqual([{ ...own, type: 'user.machine.added', payload: { username: 'bot', name: 'Bot', description: 'd' }, creator: 'admin' }]);
    expect(decide(decider, [], { ...machine, token: { tokenId: 't0', tokenHash: 'h0', expiresAt: null } }).map((e) => [e.type, e.payload])).toEqual([
      ['user.machine.added', { username: 'bot', name: 'Bot', description: 'd' }],
      ['user.pat.added', { tokenId: 't0', tokenHash: 'h0', expiresAt: null }],
    ]);
  });

  it('AddPersonalAccessToken for a machine: the token’s hash and expiry, owned by the user’s org', () => {
    const history = decide(decider, [], machine);
    expect(decide(decider, history, { ...pat, expiresAt: '2030-01-01T00:00:00.000Z' })).toEqual([
      { ...own, type: 'user.pat.added', payload: { tokenId: 't1', tokenHash: 'hash', expiresAt: '2030-01-01T00:00:00.000Z' }, creator: 'admin' },
    ]);
  });

  it('AddPersonalAccessToken for a human: PAT_ONLY_FOR_MACHINE_USERS; for no user: USER_NOT_FOUND', () => {
    expect(refusal(decider, decide(decider, [], human), pat)).toEqual({ reason: 'PAT_ONLY_FOR_MACHINE_USERS', metadata: { userId: 'u1' } });
    expect(refusal(decider, [], pat)).toEqual({ reason: 'USER_NOT_FOUND', metadata: { userId: 'u1' } });
  });

  it('AddHumanUser with a password: the user and its password’s hash in one write', () => {
    const events = decide(decider, [], { ...human, password: { passwordHash: '$argon2id$h1', changeRequired: true } });
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      ['user.human.added', { username: 'ada', givenName: 'Ada', familyName: 'Lovelace', displayName: 'Ada Lovelace', email: 'ada@example.com' }],
      ['user.password.changed', { passwordHash: '$argon2id$h1', changeRequired: true }],
    ]);
    expect(events[1]).toMatchObject({ ...own, creator: 'admin' });
  });

  it('SetPassword for a human: the new hash, owned by the user’s org, by the actor', () => {
    const history = decide(decider, [], { ...human, password: { passwordHash: 'old', changeRequired: true } });
    expect(decide(decider, history, { kind: 'setPassword', passwordHash: 'new', changeRequired: false, actor: 'u1' })).toEqual([
      { ...own, type: 'user.password.changed', payload: { passwordHash: 'new', changeRequired: false }, creator: 'u1' },
    ]);
  });

  it('SetPassword for a machine: PASSWORD_ONLY_FOR_HUMAN_USERS; for no user: USER_NOT_FOUND', () => {
    const set: UserCommand = { kind: 'setPassword', passwordHash: 'h', changeRequired: false, actor: 'admin' };
    expect(refusal(decider, decide(decider, [], machine), set)).toEqual({ reason: 'PASSWORD_ONLY_FOR_HUMAN_USERS', metadata: { userId: 'u1' } });
    expect(refusal(decider, [], set)).toEqual({ reason: 'USER_NOT_FOUND', metadata: { userId: 'u1' } });
  });

  it('RemovePersonalAccessToken: user.pat.removed for a token the user holds; then, or for an unknown one, PAT_NOT_FOUND', () => {
    const history = [...decide(decider, [], machine), ...decide(decider, decide(decider, [], machine), pat)];
    const remove: UserCommand = { kind: 'removePat', tokenId: 't1', actor: 'admin' };
    const removal = decide(decider, history, remove);
    expect(removal).toEqual([{ ...own, type: 'user.pat.removed', payload: { tokenId: 't1' }, creator: 'admin' }]);
    expect(refusal(decider, [...history, ...removal], remove)).toEqual({ reason: 'PAT_NOT_FOUND', metadata: { userId: 'u1', tokenId: 't1' } });
    expect(refusal(decider, history, { ...remove, tokenId: 'other' }).reason).toBe('PAT_NOT_FOUND');
    expect(refusal(decider, [], remove).reason).toBe('USER_NOT_FOUND');
  });

  it('the lifecycle: deactivate/reactivate, lock/unlock, each from its state only; remove ends everything', () => {
    const history = decide(decider, [], machine);
    const step = (h: typeof history, kind: 'deactivate' | 'reactivate' | 'lock' | 'unlock' | 'remove') => [...h, ...decide(decider, h, { kind, actor: 'admin' })];
    const inactive = step(history, 'deactivate');
    expect(inactive.at(-1)).toEqual({ ...own, type: 'user.deactivated', payload: {}, creator: 'admin' });
    expect(refusal(decider, inactive, { kind: 'deactivate', actor: 'a' }).reason).toBe('USER_ALREADY_INACTIVE');
    expect(refusal(decider, inactive, { kind: 'lock', actor: 'a' }).reason).toBe('USER_NOT_ACTIVE');
    expect(refusal(decider, history, { kind: 'reactivate', actor: 'a' }).reason).toBe('USER_NOT_INACTIVE');
    expect(refusal(decider, history, { kind: 'unlock', actor: 'a' }).reason).toBe('USER_NOT_LOCKED');
    expect(step(inactive, 'reactivate').at(-1)!.type).toBe('user.reactivated');
    const locked = step(history, 'lock');
    expect(step(locked, 'unlock').at(-1)!.type).toBe('user.unlocked');
    expect(step(locked, 'deactivate').at(-1)!.type).toBe('user.deactivated');
    const removed = step(locked, 'remove');
    expect(removed.at(-1)).toEqual({ ...own, type: 'user.removed', payload: {}, creator: 'admin' });
    for (const kind of ['remove', 'deactivate', 'unlock'] as const) expect(refusal(decider, removed, { kind, actor: 'a' }).reason).toBe('USER_NOT_FOUND');
    expect(refusal(decider, removed, pat).reason).toBe('USER_NOT_FOUND');
  });

  it('UpdateHumanUser: the new profile (display name made of the names when empty); a machine: USER_NOT_HUMAN', () => {
    const update: UserCommand = { kind: 'updateHuman', username: 'ada2', givenName: 'Ada', familyName: 'King', displayName: '', email: 'a@example.com', actor: 'admin' };
    expect(decide(decider, decide(decider, [], human), update)).toEqual([
      { ...own, type: 'user.human.changed', payload: { username: 'ada2', givenName: 'Ada', familyName: 'King', displayName: 'Ada King', email: 'a@example.com' }, creator: 'admin' },
    ]);
    expect(refusal(decider, decide(decider, [], machine), update).reason).toBe('USER_NOT_HUMAN');
  });

  it('SetPassword: a locked or deactivated user sets none of its own; an administrator still may', () => {
    const history = decide(decider, [], human);
    const own = (kind: 'lock' | 'deactivate') => [...history, ...decide(decider, history, { kind, actor: 'admin' })];
    const set = (actor: string): UserCommand => ({ kind: 'setPassword', passwordHash: 'h', changeRequired: false, actor });
    for (const inactive of [own('lock'), own('deactivate')]) {
      expect(refusal(decider, inactive, set('u1')).reason).toBe('USER_NOT_ACTIVE');
      expect(decide(decider, inactive, set('admin')).map((e) => e.type)).toEqual(['user.password.changed']);
    }
    expect(decide(decider, history, set('u1')).map((e) => e.type)).toEqual(['user.password.changed']);
  });

  it('a reset through a mailed link: the new password and the end of every session in one write; never for a locked, deactivated or machine user', () => {
    const history = decide(decider, [], human);
    const reset: UserCommand = { kind: 'resetPassword', passwordHash: 'h2', actor: 'u1' };
    expect(decide(decider, history, reset).map((e) => [e.type, e.payload])).toEqual([
      ['user.password.changed', { passwordHash: 'h2', changeRequired: false }],
      ['user.sessions.ended', {}],
    ]);
    for (const kind of ['lock', 'deactivate'] as const) {
      expect(refusal(decider, [...history, ...decide(decider, history, { kind, actor: 'admin' })], reset).reason).toBe('USER_NOT_ACTIVE');
    }
    expect(refusal(decider, decide(decider, [], machine), reset).reason).toBe('PASSWORD_ONLY_FOR_HUMAN_USERS');
    expect(refusal(decider, [], reset).reason).toBe('USER_NOT_FOUND');
  });
});
