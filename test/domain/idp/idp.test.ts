// The rules of signing in through another provider: what links (the subject,
// never an address), what is believed of the upstream (its verified address,
// its amr: only when trusted), and the presets' endpoints.
import { describe, expect, it } from 'vitest';
import { externalAmr, satisfiesMfa, withSecondFactor } from '../../../src/domain/idp/amr.js';
import { identityOf } from '../../../src/domain/idp/external-identity.js';
import { decideLink } from '../../../src/domain/idp/linking.js';
import { isTenant, presetEndpoints } from '../../../src/domain/idp/presets.js';
import { DEFAULT_OPTIONS, OIDC_MAPPING, offeredTo, type LinkingOptions, type ProviderConfig } from '../../../src/domain/idp/provider.js';

const TRUSTED = { emailVerified: true, upstreamAmr: true };
const UNTRUSTED = { emailVerified: false, upstreamAmr: false };

describe('linking: by (provider, subject) alone', () => {
  const opts = (o: Partial<LinkingOptions>): LinkingOptions => ({ ...DEFAULT_OPTIONS, ...o });
  it.each([
    // linked, address held by an account, options → decision
    ['u1', false, {}, { kind: 'linked', userId: 'u1' }],
    ['u1', true, { isCreationAllowed: true, isAutoCreation: true }, { kind: 'linked', userId: 'u1' }],
    [undefined, false, { isCreationAllowed: true, isAutoCreation: true }, { kind: 'create' }],
    // An account holding the address never gets linked, and no twin is created without asking: the person chooses.
    [undefined, true, { isCreationAllowed: true, isAutoCreation: true, isLinkingAllowed: true }, { kind: 'choose', create: true, link: true, accountWithAddress: true }],
    [undefined, true, { isLinkingAllowed: true }, { kind: 'choose', create: false, link: true, accountWithAddress: true }],
    [undefined, false, { isCreationAllowed: true }, { kind: 'choose', create: true, link: false, accountWithAddress: false }],
    [undefined, true, {}, { kind: 'refused', reason: 'IDP_LINK_REQUIRED' }],
    [undefined, false, {}, { kind: 'refused', reason: 'IDP_LINK_REQUIRED' }],
  ] as const)('linked %s, address held %s, options %j → %j', (linkedUserId, accountWithAddress, o, expected) => {
    expect(decideLink({ linkedUserId, accountWithAddress, options: opts(o) })).toEqual(expected);
  });
});

describe('the identity of an upstream’s claims', () => {
  it('believes an address verified only when the upstream says so and the provider is trusted for it', () => {
    const claims = { sub: 's', email: 'a@example.com', email_verified: true };
    expect(identityOf(claims, OIDC_MAPPING, TRUSTED)).toMatchObject({ email: 'a@example.com', emailVerified: true });
    expect(identityOf(claims, OIDC_MAPPING, UNTRUSTED)).toMatchObject({ emailVerified: false });
    expect(identityOf({ ...claims, email_verified: false }, OIDC_MAPPING, TRUSTED)).toMatchObject({ emailVerified: false });
    expect(identityOf({ ...claims, email_verified: 'true' }, OIDC_MAPPING, TRUSTED)).toMatchObject({ emailVerified: true });
    expect(identityOf({ ...claims, email_verified: 'yes' }, OIDC_MAPPING, TRUSTED)).toMatchObject({ emailVerified: false });
    // No mapping for the verification (GitHub): never verified.
    expect(identityOf({ id: 1, email: 'a@example.com', email_verified: true }, { id: 'id', email: 'email' }, TRUSTED)).toMatchObject({ emailVerified: false });
  });
  it('an upstream that changes the address keeps the same subject (the link does not move)', () => {
    const before = identityOf({ sub: 's', email: 'old@example.com' }, OIDC_MAPPING, TRUSTED);
    const after = identityOf({ sub: 's', email: 'victim@example.com', email_verified: true }, OIDC_MAPPING, TRUSTED);
    expect(typeof before !== 'string' && typeof after !== 'string' && before.subject === after.subject).toBe(true);
  });
  it.each([[{}], [{ sub: '' }], [{ sub: 1.5 }], [{ sub: {} }], [{ sub: 'a\u0000b' }], [{ sub: 'x'.repeat(256) }]])('names nobody without a usable subject: %j', (claims) => {
    expect(identityOf(claims, OIDC_MAPPING, TRUSTED)).toBe('SUBJECT_MISSING');
  });
  it('reads a numeric id as text', () => {
    expect(identityOf({ id: 583231 }, { id: 'id' }, TRUSTED)).toMatchObject({ subject: '583231' });
  });
});

describe('amr of an external login', () => {
  it.each([
    [['pwd', 'otp', 'mfa'], TRUSTED, ['fed', 'pwd', 'otp', 'mfa'], true],
    [['pwd', 'otp', 'mfa'], UNTRUSTED, ['fed'], false],
    [['pwd'], TRUSTED, ['fed', 'pwd'], false],
    [['hwk', 'made-up', 'fed'], TRUSTED, ['fed', 'hwk'], true],
    [[], TRUSTED, ['fed'], false],
  ] as const)('upstream %j, trust %j → amr %j, satisfies forceMfa %s', (upstream, trust, amr, mfa) => {
    expect(externalAmr(upstream, trust)).toEqual(amr);
    expect(satisfiesMfa(upstream, trust)).toBe(mfa);
  });
  it('Keyhold’s own second factor after it adds its methods and mfa', () => {
    expect(withSecondFactor(['fed'], ['pwd', 'otp', 'mfa'])).toEqual(['fed', 'otp', 'mfa']);
  });
});

describe('presets and offers', () => {
  it('fill in the endpoints', () => {
    expect(presetEndpoints('google')).toMatchObject({ kind: 'oidc', issuer: 'https://accounts.google.com' });
    expect(presetEndpoints('azureAD', { tenant: '8eaef023-2b34-4da1-9baa-8bc8c9d6a490' })).toMatchObject({ issuer: 'https://login.microsoftonline.com/8eaef023-2b34-4da1-9baa-8bc8c9d6a490/v2.0' });
    expect(presetEndpoints('azureAD', { tenant: '../evil' })).toMatchObject({ issuer: 'https://login.microsoftonline.com/organizations/v2.0' });
    expect(presetEndpoints('gitLab', { baseUrl: 'https://gitlab.example.com/' })).toMatchObject({ issuer: 'https://gitlab.example.com' });
    expect(presetEndpoints('gitHub')).toMatchObject({ kind: 'oauth', userinfoEndpoint: 'https://api.github.com/user', mapping: { id: 'id' } });
    expect(isTenant('common')).toBe(true);
  });
  it('an app of an org is offered the instance’s providers and its own org’s, not another org’s', () => {
    const p = (id: string, orgId?: string) => ({ id, orgId }) as ProviderConfig;
    expect(offeredTo([p('i'), p('o1', 'o1'), p('o2', 'o2')], 'o1').map((x) => x.id)).toEqual(['i', 'o1']);
  });
});
