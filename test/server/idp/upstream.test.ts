// The exchange with upstream providers (src/server/idp/upstream.ts) against
// real ones: a bare oidc-provider, a GitHub-shaped OAuth 2.0 server, and a
// forging provider. The abuse cases of the exchange: a state or nonce that is
// not the one kept, a code and `iss` of another provider (mix-up), an ID token
// for another audience or from another issuer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../../src/domain/idp/provider.js';
import { DEFAULT_OPTIONS, DEFAULT_TRUST } from '../../../src/domain/idp/provider.js';
import { presetEndpoints } from '../../../src/domain/idp/presets.js';
import { identityOf } from '../../../src/domain/idp/external-identity.js';
import { guardedFetch, isNotPublic } from '../../../src/server/idp/guarded-fetch.js';
import { upstreamClient, UpstreamFailure, type Started } from '../../../src/server/idp/upstream.js';
import { forgingUpstream, gitHubUpstream, oidcUpstream, throughUpstream, type Upstream } from '../../support/upstreams.js';

const REDIRECT = 'http://127.0.0.1:9/ui/login/idp/callback';
const common = { options: DEFAULT_OPTIONS, trust: DEFAULT_TRUST, scopes: ['openid', 'email', 'profile'] };
const oidc = (id: string, up: Upstream): ProviderConfig => ({ ...common, id, name: id, kind: 'oidc', issuer: up.url, clientId: up.clientId });

let a: Upstream;
let b: Upstream;
let gh: Awaited<ReturnType<typeof gitHubUpstream>>;
let forged: { iss?: string; aud?: string; sub: string; nonce?: string } = { sub: 'forged' };
let forge: Upstream;
// The upstreams here run on this machine: the operator's setting that allows it (KEYHOLD_IDP_PRIVATE_NETWORKS=allow).
const client = upstreamClient({ egress: { allowPrivateNetworks: true } });

beforeAll(async () => {
  a = await oidcUpstream([REDIRECT], { sub: 'alice-at-a', email: 'alice@example.com', email_verified: true, name: 'Alice A', amr: ['pwd', 'otp'] });
  b = await oidcUpstream([REDIRECT], { sub: 'mallory-at-b', email: 'alice@example.com', email_verified: true });
  gh = await gitHubUpstream([REDIRECT], { sub: '', id: 583231, preferred_username: 'octocat', name: 'The Octocat', email: 'octo@example.com' });
  forge = await forgingUpstream([REDIRECT], () => forged);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close(), gh?.close(), forge?.close()]);
});

/** A whole sign-in at `up` as provider `p`: started, followed through the upstream, its callback URL. */
async function signIn(p: ProviderConfig, up: Upstream, state = `uid.${Math.random().toString(36).slice(2)}`): Promise<{ kept: Started; callback: URL }> {
  const kept = await client.start(p, up.clientSecret, REDIRECT, state);
  return { kept, callback: await throughUpstream(kept.url, REDIRECT) };
}

const failure = async (p: Promise<unknown>) => {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(UpstreamFailure);
  return err as UpstreamFailure;
};

describe('generic OpenID Connect (oidc-provider)', () => {
  it('signs in with PKCE, state and nonce; the profile comes from the userinfo, the subject from the verified ID token', async () => {
    const p = oidc('a', a);
    const { kept, callback } = await signIn(p, a);
    const url = new URL(kept.url);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('nonce')).toBe(kept.nonce);
    expect(callback.searchParams.get('iss')).toBe(a.url);
    const vouched = await client.finish(p, a.clientSecret, callback, kept);
    expect(vouched.claims).toMatchObject({ sub: 'alice-at-a', email: 'alice@example.com', email_verified: true, name: 'Alice A', iss: a.url, aud: a.clientId });
    expect(identityOf(vouched.claims, vouched.mapping, DEFAULT_TRUST)).toMatchObject({ subject: 'alice-at-a', email: 'alice@example.com', emailVerified: false, amr: ['pwd', 'otp'] });
    expect(identityOf(vouched.claims, vouched.mapping, { emailVerified: true, upstreamAmr: false })).toMatchObject({ emailVerified: true });
  });

  it('refuses a callback whose state is not the one kept, and a code used twice', async () => {
    const p = oidc('a', a);
    const { kept, callback } = await signIn(p, a);
    expect((await failure(client.finish(p, a.clientSecret, callback, { ...kept, state: 'uid.other' }))).kind).toBe('refused');
    await client.finish(p, a.clientSecret, callback, kept);
    expect((await failure(client.finish(p, a.clientSecret, callback, kept))).detail).toMatch(/invalid_grant/);
  });

  it('refuses an ID token whose nonce is not the one kept', async () => {
    const p = oidc('a', a);
    const { kept, callback } = await signIn(p, a);
    expect((await failure(client.finish(p, a.clientSecret, callback, { ...kept, nonce: 'another' }))).detail).toMatch(/nonce/);
  });

  it('mix-up: a code and iss of provider B at the callback of a sign-in with A is refused before any code is sent anywhere', async () => {
    const pa = oidc('a', a);
    const pb = oidc('b', b);
    const state = 'uid.mixup';
    const atA = await client.start(pa, a.clientSecret, REDIRECT, state);
    const atB = await signIn(pb, b, state);
    // The callback carries B's code and B's iss, with the state of the sign-in that went to A.
    const err = await failure(client.finish(pa, a.clientSecret, atB.callback, atA));
    expect(err.kind).toBe('refused');
    expect(err.detail).toMatch(/iss/);
    // And without the iss parameter (an upstream that does not send it): A's token endpoint refuses B's code.
    const stripped = new URL(atB.callback);
    stripped.searchParams.delete('iss');
    expect((await failure(client.finish(pa, a.clientSecret, stripped, atA))).kind).toBe('refused');
  });

  it('an error the upstream answers (access_denied) is a denial with its description for the log', async () => {
    const p = oidc('a', a);
    const kept = await client.start(p, a.clientSecret, REDIRECT, 'uid.denied');
    const callback = new URL(`${REDIRECT}?error=access_denied&error_description=The+person+said+no&state=uid.denied&iss=${encodeURIComponent(a.url)}`);
    const err = await failure(client.finish(p, a.clientSecret, callback, kept));
    expect(err.kind).toBe('denied');
    expect(err.detail).toBe('access_denied: The person said no');
  });

  it('an upstream that cannot be reached is unavailable', async () => {
    const p: ProviderConfig = { ...common, id: 'gone', name: 'gone', kind: 'oidc', clientId: 'x', issuer: 'http://127.0.0.1:9' };
    expect((await failure(client.start(p, 'x', REDIRECT, 'uid.x'))).kind).toBe('unavailable');
  });
});

describe('ID tokens no honest upstream sends', () => {
  const p = () => oidc('forge', forge);
  it('accepts the forging provider when it tells the truth (the control)', async () => {
    forged = { sub: 'someone' };
    const { kept, callback } = await signIn(p(), forge);
    expect((await client.finish(p(), forge.clientSecret, callback, kept)).claims.sub).toBe('someone');
  });
  it('refuses an ID token for another audience', async () => {
    forged = { sub: 'someone', aud: 'another-client' };
    const { kept, callback } = await signIn(p(), forge);
    expect((await failure(client.finish(p(), forge.clientSecret, callback, kept))).detail).toMatch(/aud/);
  });
  it('refuses an ID token from another issuer', async () => {
    forged = { sub: 'someone', iss: a.url };
    const { kept, callback } = await signIn(p(), forge);
    expect((await failure(client.finish(p(), forge.clientSecret, callback, kept))).detail).toMatch(/iss/);
  });
  it('refuses an ID token carrying another sign-in’s nonce (a replayed token)', async () => {
    forged = { sub: 'someone', nonce: 'nonce-of-an-earlier-sign-in' };
    const { kept, callback } = await signIn(p(), forge);
    expect((await failure(client.finish(p(), forge.clientSecret, callback, kept))).detail).toMatch(/nonce/);
  });
});

describe('plain OAuth 2.0 (GitHub-shaped)', () => {
  const preset = presetEndpoints('gitHub');
  if (preset.kind !== 'oauth') throw new Error('GitHub is OAuth 2.0');
  const p = (): ProviderConfig => ({
    ...common,
    id: 'gh',
    name: 'GitHub',
    kind: 'oauth',
    clientId: gh.clientId,
    scopes: preset.scopes,
    authorizationEndpoint: `${gh.url}/login/oauth/authorize`,
    tokenEndpoint: `${gh.url}/login/oauth/access_token`,
    userinfoEndpoint: `${gh.url}/user`,
    mapping: preset.mapping,
  });
  it('reads the person from /user by the mapping: the numeric id is the subject, an address never verified', async () => {
    const { kept, callback } = await signIn(p(), gh);
    expect(kept.nonce).toBeUndefined();
    const vouched = await client.finish(p(), gh.clientSecret, callback, kept);
    expect(identityOf(vouched.claims, vouched.mapping, { emailVerified: true, upstreamAmr: true })).toEqual({
      subject: '583231',
      email: 'octo@example.com',
      emailVerified: false,
      preferredUsername: 'octocat',
      name: 'The Octocat',
      givenName: undefined,
      familyName: undefined,
      amr: [],
    });
  });
  it('refuses a state that is not the one kept, and a wrong PKCE verifier at the token endpoint', async () => {
    const { kept, callback } = await signIn(p(), gh);
    expect((await failure(client.finish(p(), gh.clientSecret, callback, { ...kept, state: 'uid.other' }))).kind).toBe('refused');
    expect((await failure(client.finish(p(), gh.clientSecret, callback, { ...kept, verifier: 'x'.repeat(43) }))).detail).toMatch(/bad_verification_code/);
  });
});

describe('where Keyhold may connect (the guarded fetch)', () => {
  it('by default refuses an upstream on this machine, saying which setting allows it; nothing is fetched', async () => {
    const strict = upstreamClient();
    const err = await failure(strict.start(oidc('a', a), a.clientSecret, REDIRECT, 'uid.strict'));
    expect(err.kind).toBe('refused');
    expect(err.detail).toContain('KEYHOLD_IDP_PRIVATE_NETWORKS=allow');
    const preset = presetEndpoints('gitHub');
    if (preset.kind !== 'oauth') throw new Error('GitHub is OAuth 2.0');
    const oauth: ProviderConfig = { ...common, id: 'gh', name: 'GitHub', kind: 'oauth', clientId: gh.clientId, scopes: preset.scopes, authorizationEndpoint: `${gh.url}/login/oauth/authorize`, tokenEndpoint: `${gh.url}/login/oauth/access_token`, userinfoEndpoint: `${gh.url}/user`, mapping: preset.mapping };
    expect((await failure(strict.start(oauth, gh.clientSecret, REDIRECT, 'uid.gh'))).detail).toContain('only https is allowed');
    const kept = { state: 'uid.gh', verifier: 'v'.repeat(43) };
    expect((await failure(strict.finish(oauth, gh.clientSecret, new URL(`${REDIRECT}?code=x&state=uid.gh`), kept))).detail).toContain('only https is allowed');
  });

  it('refuses http, loopback and private addresses (literal or resolved at connect time) unless allowed', async () => {
    const strict = guardedFetch({ allowPrivateNetworks: false });
    const opts = { method: 'GET', headers: {}, body: undefined as never, redirect: 'manual' as const };
    for (const url of ['http://example.com/', 'https://127.0.0.1/', 'https://[::1]/', 'https://169.254.169.254/latest/meta-data/', 'https://10.0.0.1/', 'https://localhost/']) {
      const err = await strict(url, opts).then(() => undefined, (e: unknown) => e);
      expect(err, url).toBeInstanceOf(UpstreamFailure);
      expect((err as UpstreamFailure).detail, url).toMatch(/only https is allowed|the address is not public/);
      expect((err as UpstreamFailure).detail).not.toContain('meta-data');
    }
    const open = guardedFetch({ allowPrivateNetworks: true });
    const res = await open(`${a.url}/.well-known/openid-configuration`, opts);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { issuer: string }).issuer).toBe(a.url);
  });

  it('tells public addresses from the rest', () => {
    for (const ip of ['10.1.2.3', '172.20.0.1', '192.168.1.1', '127.0.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd12::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not an ip']) expect(isNotPublic(ip), ip).toBe(true);
    for (const ip of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isNotPublic(ip), ip).toBe(false);
  });
});
