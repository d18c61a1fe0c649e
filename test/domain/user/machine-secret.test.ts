// A machine user's client credentials (src/domain/user/decider.ts):
// AddMachineUser's access token type, GenerateMachineSecret (the client id kept
// when regenerated, only the hash in the event), RemoveMachineSecret.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../../src/domain/events/index.js';
import { userDecider, type UserCommand } from '../../../src/domain/user/decider.js';
import { decide, refusal } from '../../support/deciders.js';

const decider = userDecider('u1');
const machine: UserCommand = { kind: 'addMachine', orgId: 'org', username: 'bot', name: 'Bot', description: '', actor: 'admin' };
const human: UserCommand = { kind: 'addHuman', orgId: 'org', username: 'ada', givenName: 'Ada', familyName: 'L', displayName: '', email: 'a@example.com', actor: 'admin' };
const secret = (clientId: string, clientSecretHash: string): UserCommand => ({ kind: 'setMachineSecret', clientId, clientSecretHash, actor: 'admin' });
const remove: UserCommand = { kind: 'removeMachineSecret', actor: 'admin' };

describe('machine user client credentials', () => {
  it('AddMachineUser records the access token type JWT; BEARER (the default) leaves the event as before', () => {
    expect(decide(decider, [], { ...machine, accessTokenType: 'JWT' })[0]!.payload).toEqual({ username: 'bot', name: 'Bot', description: '', accessTokenType: 'JWT' });
    expect(decide(decider, [], machine)[0]!.payload).toEqual({ username: 'bot', name: 'Bot', description: '' });
  });

  it('GenerateMachineSecret: the new client id and the hash; a regenerated secret keeps the client id', () => {
    const history: NewEvent[] = decide(decider, [], machine);
    const first = decide(decider, history, secret('machine-1', 'hash-1'));
    expect(first).toEqual([{ aggregateType: 'user', aggregateId: 'u1', resourceOwner: 'org', creator: 'admin', type: 'user.machine.secret.set', payload: { clientId: 'machine-1', clientSecretHash: 'hash-1' } }]);
    const again = decide(decider, [...history, ...first], secret('machine-2', 'hash-2'));
    expect(again[0]!.payload).toEqual({ clientId: 'machine-1', clientSecretHash: 'hash-2' });
  });

  it('refuses a secret for a human (MACHINE_SECRET_ONLY_FOR_MACHINE_USERS) and for no user, or a removed one (USER_NOT_FOUND)', () => {
    expect(refusal(decider, decide(decider, [], human), secret('m', 'h'))).toEqual({ reason: 'MACHINE_SECRET_ONLY_FOR_MACHINE_USERS', metadata: { userId: 'u1' } });
    expect(refusal(decider, [], secret('m', 'h')).reason).toBe('USER_NOT_FOUND');
    const added = decide(decider, [], machine);
    const removed = [...added, ...decide(decider, added, { kind: 'remove', actor: 'admin' })];
    expect(refusal(decider, removed, secret('m', 'h')).reason).toBe('USER_NOT_FOUND');
  });

  it('RemoveMachineSecret: removed once; then, or without a secret, MACHINE_SECRET_NOT_FOUND; a new secret gets a new client id', () => {
    const added = decide(decider, [], machine);
    expect(refusal(decider, added, remove)).toEqual({ reason: 'MACHINE_SECRET_NOT_FOUND', metadata: { userId: 'u1' } });
    const withSecret = [...added, ...decide(decider, added, secret('machine-1', 'h1'))];
    const removal = decide(decider, withSecret, remove);
    expect(removal.map((e) => [e.type, e.payload])).toEqual([['user.machine.secret.removed', {}]]);
    expect(refusal(decider, [...withSecret, ...removal], remove).reason).toBe('MACHINE_SECRET_NOT_FOUND');
    expect(decide(decider, [...withSecret, ...removal], secret('machine-2', 'h2'))[0]!.payload).toEqual({ clientId: 'machine-2', clientSecretHash: 'h2' });
  });
});
