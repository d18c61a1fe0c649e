// The provider's and the link's deciders: given events → a command → events or the refusal.
import { describe, expect, it } from 'vitest';
import type { IdpSettings, NewEvent } from '../../../src/domain/events/index.js';
import { idpDecider } from '../../../src/domain/idp/decider.js';
import { linkDecider, linkIdOf } from '../../../src/domain/idp/link-decider.js';
import { DEFAULT_OPTIONS, DEFAULT_TRUST } from '../../../src/domain/idp/provider.js';
import { decide, refusal } from '../../support/deciders.js';

const settings: IdpSettings = { kind: 'oidc', name: 'Corp', issuer: 'https://idp.example.com', clientId: 'c', scopes: ['openid'], options: DEFAULT_OPTIONS, trust: DEFAULT_TRUST };
const d = idpDecider('i1');
const added = decide(d, [], { kind: 'add', orgId: 'o1', settings, actor: 'admin' });

describe('identity provider decider', () => {
  it('adds an org’s provider; the secret is in no event', () => {
    expect(added).toMatchObject([{ type: 'idp.added', aggregateId: 'i1', resourceOwner: 'o1', payload: { orgId: 'o1', settings } }]);
    expect(JSON.stringify(added)).not.toMatch(/secret/i);
  });
  it('refuses the settings with every field named', () => {
    const bad: IdpSettings = { kind: 'oauth', name: ' ', clientId: '', scopes: ['a b'], authorizationEndpoint: 'http://idp.example.com/a', tokenEndpoint: 'https://u:p@t', userinfoEndpoint: 'x', mapping: { id: '' }, options: { ...DEFAULT_OPTIONS, isAutoCreation: true }, trust: DEFAULT_TRUST };
    const err = refusal(d, [], { kind: 'add', settings: bad, actor: 'a' });
    expect(err.reason).toBe('INVALID_REQUEST');
    try {
      decide(d, [], { kind: 'add', settings: bad, actor: 'a' });
    } catch (e) {
      expect((e as { violations: { field: string }[] }).violations.map((v) => v.field)).toEqual(['name', 'clientId', 'scopes[0]', 'authorizationEndpoint', 'tokenEndpoint', 'userEndpoint', 'idAttribute', 'providerOptions.isAutoCreation']);
    }
  });
  it('allows http only to the loopback host', () => {
    expect(decide(d, [], { kind: 'add', settings: { ...settings, issuer: 'http://127.0.0.1:4000' }, actor: 'a' })).toHaveLength(1);
    expect(refusal(d, [], { kind: 'add', settings: { ...settings, issuer: 'http://idp.example.com' }, actor: 'a' }).reason).toBe('INVALID_REQUEST');
  });
  it('another org’s provider, or the instance’s through an org, is not found', () => {
    expect(refusal(d, added, { kind: 'remove', orgId: 'o2', actor: 'a' }).reason).toBe('IDP_NOT_FOUND');
    expect(refusal(d, added, { kind: 'remove', actor: 'a' }).reason).toBe('IDP_NOT_FOUND');
    expect(refusal(d, added, { kind: 'change', orgId: 'o2', settings, actor: 'a' }).reason).toBe('IDP_NOT_FOUND');
  });
  it('changes and removes; a removed id is not added again', () => {
    expect(decide(d, added, { kind: 'change', orgId: 'o1', settings: { ...settings, name: 'Corp 2' }, actor: 'a' })).toMatchObject([{ type: 'idp.changed', payload: { settings: { name: 'Corp 2' } } }]);
    const removed = [...added, ...decide(d, added, { kind: 'remove', orgId: 'o1', actor: 'a' })];
    expect(removed.at(-1)?.type).toBe('idp.removed');
    expect(refusal(d, removed, { kind: 'remove', orgId: 'o1', actor: 'a' }).reason).toBe('IDP_NOT_FOUND');
    expect(refusal(d, removed, { kind: 'add', orgId: 'o1', settings, actor: 'a' }).reason).toBe('IDP_ALREADY_EXISTS');
  });
  it('an OIDC provider is not changed into an OAuth one', () => {
    const oauth: IdpSettings = { kind: 'oauth', name: 'GH', clientId: 'c', scopes: [], authorizationEndpoint: 'https://a', tokenEndpoint: 'https://t', userinfoEndpoint: 'https://u', mapping: { id: 'id' }, options: DEFAULT_OPTIONS, trust: DEFAULT_TRUST };
    expect(refusal(d, added, { kind: 'change', orgId: 'o1', settings: oauth, actor: 'a' }).reason).toBe('INVALID_REQUEST');
  });
});

describe('link decider: one user per (provider, subject)', () => {
  const id = linkIdOf('i1', 'sub-1');
  const l = linkDecider(id);
  const add = (userId: string) => ({ kind: 'add' as const, idpId: 'i1', subject: 'sub-1', userId, orgId: 'o1', how: 'login' as const, actor: userId });
  const linked: NewEvent[] = decide(l, [], add('u1'));
  it('links once; the same user again changes nothing; another user is refused', () => {
    expect(linked).toMatchObject([{ type: 'idplink.added', aggregateId: id, resourceOwner: 'o1', payload: { idpId: 'i1', subject: 'sub-1', userId: 'u1', how: 'login' } }]);
    expect(decide(l, linked, add('u1'))).toEqual([]);
    expect(refusal(l, linked, add('u2')).reason).toBe('IDP_LINK_TAKEN');
  });
  it('unlinks only the user’s own link; then it may be linked again', () => {
    const remove = (userId: string) => ({ kind: 'remove' as const, idpId: 'i1', subject: 'sub-1', userId, actor: 'admin' });
    expect(refusal(l, linked, remove('u2')).reason).toBe('IDP_LINK_NOT_FOUND');
    const removed = [...linked, ...decide(l, linked, remove('u1'))];
    expect(removed.at(-1)?.type).toBe('idplink.removed');
    expect(decide(l, removed, add('u2'))).toMatchObject([{ type: 'idplink.added', payload: { userId: 'u2' } }]);
  });
  it('a login through an unlinked identity is refused; a linked one is recorded with its amr', () => {
    const use = { kind: 'use' as const, idpId: 'i1', userId: 'u1', clientId: 'app', amr: ['fed'], actor: 'u1' };
    expect(refusal(l, [], use).reason).toBe('IDP_LINK_NOT_FOUND');
    expect(decide(l, linked, use)).toMatchObject([{ type: 'idplink.used', payload: { amr: ['fed'] } }]);
  });
  it('derives distinct ids for distinct pairs, whatever the subject holds', () => {
    expect(linkIdOf('i1', 'a\u0000b')).not.toBe(linkIdOf('i1\u0000a', 'b'));
    expect(linkIdOf('i1', 's')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
