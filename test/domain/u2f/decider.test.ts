// A security key's rules (src/domain/u2f/decider.ts): RegisterU2F (start, and
// replacing the oldest pending one at the cap), VerifyU2FRegistration, RemoveU2F.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../../src/domain/events/index.js';
import { u2fDecider, type U2fCommand } from '../../../src/domain/u2f/decider.js';
import type { VerifiedCredential } from '../../../src/domain/webauthn/index.js';
import { decide, refusal } from '../../support/deciders.js';
import { verifiedPayload } from '../../support/events.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const decider = u2fDecider('k1', 'u1', () => NOW);
const own = { aggregateType: 'u2f', aggregateId: 'k1', resourceOwner: 'org' } as const;
const start: U2fCommand = { kind: 'start', orgId: 'org', rpId: 'localhost', challenge: 'c', expiresAt: new Date(NOW + 60_000).toISOString(), actor: 'u1' };
const credential: VerifiedCredential = {
  credentialId: 'cred',
  publicKey: Uint8Array.from([1, 2, 3]),
  algorithm: -7,
  format: 'none',
  aaguid: '00000000-0000-0000-0000-000000000000',
  signCount: 0,
  transports: ['usb'],
  backupEligible: false,
  backedUp: false,
  userVerified: false,
  rpId: 'localhost',
};
const verify: U2fCommand = { kind: 'verify', credential, tokenName: 'Key', actor: 'u1' };
const started = (command: U2fCommand = start) => decide(decider, [], command);
const then = (history: NewEvent[], command: U2fCommand) => [...history, ...decide(decider, history, command)];

describe('u2f decider', () => {
  it('renaming: a ready key of the user gets its new name once; a pending, removed or foreign one is not found', () => {
    const rename = (tokenName: string): U2fCommand => ({ kind: 'rename', tokenName, actor: 'u1' });
    const verified = then(started(), verify);
    expect(decide(decider, verified, rename('Desk'))).toEqual([{ ...own, type: 'u2f.renamed', payload: { userId: 'u1', tokenName: 'Desk' }, creator: 'u1' }]);
    expect(decide(decider, then(verified, rename('Desk')), rename('Desk'))).toEqual([]);
    expect(decide(decider, verified, rename('Key'))).toEqual([]);
    expect(refusal(decider, started(), rename('Desk'))).toMatchObject({ reason: 'U2F_NOT_FOUND' });
    expect(refusal(decider, then(verified, { kind: 'remove', actor: 'u1' }), rename('Desk'))).toMatchObject({ reason: 'U2F_NOT_FOUND' });
    expect(refusal(u2fDecider('k1', 'someone else', () => NOW), verified, rename('Desk'))).toMatchObject({ reason: 'U2F_NOT_FOUND' });
  });

  it('RegisterU2F: a pending registration of the user, with its challenge and expiry', () => {
    expect(started()).toEqual([
      { ...own, type: 'u2f.registration.started', payload: { userId: 'u1', rpId: 'localhost', challenge: 'c', expiresAt: start.kind === 'start' ? start.expiresAt : '' }, creator: 'u1' },
    ]);
    expect(refusal(decider, started(), start)).toEqual({ reason: 'ID_TAKEN', metadata: { id: 'k1' } });
  });

  it('RegisterU2F at the cap: a pending registration is replaced; one that ended meanwhile is left alone', () => {
    expect(decide(decider, started(), { kind: 'replace', by: 'k2', actor: 'u1' })).toEqual([
      { ...own, type: 'u2f.registration.replaced', payload: { userId: 'u1', by: 'k2' }, creator: 'u1' },
    ]);
    const verified = then(started(), verify);
    expect(decide(decider, verified, { kind: 'replace', by: 'k2', actor: 'u1' })).toEqual([]);
    const replaced = then(started(), { kind: 'replace', by: 'k2', actor: 'u1' });
    expect(decide(decider, replaced, { kind: 'replace', by: 'k3', actor: 'u1' })).toEqual([]);
    expect(decide(u2fDecider('k1', 'someone-else', () => NOW), started(), { kind: 'replace', by: 'k2', actor: 'x' })).toEqual([]);
  });

  it('VerifyU2FRegistration: the credential as stored (public key base64url), the token name', () => {
    expect(decide(decider, started(), verify)).toEqual([
      { ...own, type: 'u2f.verified', payload: verifiedPayload({ userId: 'u1', publicKey: 'AQID', transports: ['usb'] }), creator: 'u1' },
    ]);
  });

  it('VerifyU2FRegistration refused: another user’s or no registration, verified, replaced, expired', () => {
    expect(refusal(decider, [], verify)).toEqual({ reason: 'U2F_NOT_FOUND', metadata: { u2fId: 'k1' } });
    expect(refusal(u2fDecider('k1', 'someone-else', () => NOW), started(), verify).reason).toBe('U2F_NOT_FOUND');
    expect(refusal(decider, then(started(), verify), verify).reason).toBe('U2F_ALREADY_VERIFIED');
    expect(refusal(decider, then(started(), { kind: 'replace', by: 'k2', actor: 'u1' }), verify).reason).toBe('U2F_REGISTRATION_REPLACED');
    expect(refusal(decider, started({ ...start, expiresAt: new Date(NOW).toISOString() } as U2fCommand), verify).reason).toBe('U2F_REGISTRATION_EXPIRED');
  });

  it('RemoveU2F: a ready or pending key of the user; a replaced, removed or foreign one is not found', () => {
    const remove: U2fCommand = { kind: 'remove', actor: 'admin' };
    expect(decide(decider, then(started(), verify), remove)).toEqual([{ ...own, type: 'u2f.removed', payload: { userId: 'u1' }, creator: 'admin' }]);
    expect(decide(decider, started(), remove).map((e) => e.type)).toEqual(['u2f.removed']);
    expect(refusal(decider, then(started(), { kind: 'replace', by: 'k2', actor: 'u1' }), remove).reason).toBe('U2F_NOT_FOUND');
    expect(refusal(decider, then(then(started(), verify), remove), remove).reason).toBe('U2F_NOT_FOUND');
    expect(refusal(u2fDecider('k1', 'someone-else', () => NOW), started(), remove).reason).toBe('U2F_NOT_FOUND');
  });
});

describe('RemoveAllU2F (a lost key)', () => {
  it('remove ifPresent: a key is removed as by RemoveU2F; one already removed is nothing to do instead of U2F_NOT_FOUND', () => {
    const history = then(started(), verify);
    const removed = decide(decider, history, { kind: 'remove', actor: 'admin', ifPresent: true });
    expect(removed).toEqual([{ ...own, creator: 'admin', type: 'u2f.removed', payload: { userId: 'u1' } }]);
    const gone = [...history, ...removed];
    expect(decide(decider, gone, { kind: 'remove', actor: 'admin', ifPresent: true })).toEqual([]);
    expect(refusal(decider, gone, { kind: 'remove', actor: 'admin' }).reason).toBe('U2F_NOT_FOUND');
  });
});
