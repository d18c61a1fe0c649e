// Signing in to an app through another identity provider, end to end over
// HTTP: a real Keyhold (PGlite), a real upstream (a bare oidc-provider) and
// an app using openid-client. The login page's "Continue with …" button, the
// upstream's sign-in, the callback at KEYHOLD_ISSUER/ui/login/idp/<provider>/callback,
// a user created just in time, and the ID token's amr. Abuse: the callback
// replayed (its state spent), and one with another sign-in's state.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../src/access/caller.js';
import { createCommands } from '../../../src/commands/index.js';
import { LOGIN_SETTINGS_TTL_MS } from '../../../src/queries/login-settings-cache.js';
import { DEFAULT_TRUST } from '../../../src/domain/idp/provider.js';
import { idpSealing, idpSecretKey, masterKeyOf } from '../../../src/server/oidc/keys.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { createIdpSecrets } from '../../../src/store/idp-secrets.js';
import { TEST_MASTER_KEY } from '../../support/databases.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, type Browser } from '../../support/oidc-login.js';
import { gitHubUpstream, oidcUpstream, throughUpstream, type Upstream } from '../../support/upstreams.js';
import { presetEndpoints } from '../../../src/domain/idp/presets.js';

let kh: TestKeyhold;
let base: string;
let up: Upstream;
let gh: Awaited<ReturnType<typeof gitHubUpstream>>;
let config: oidc.Configuration;
let commands: ReturnType<typeof createCommands>;
let iamOwner: Caller;
let gitHubId: string;
const nextId = ['idp-upstream', 'idp-github'];
const callbackOf = (idpId: string) => `${kh.issuer}/ui/login/idp/${idpId}/callback`;
const REDIRECT = 'http://localhost:5173/callback';

beforeAll(async () => {
  kh = await startTestKeyhold({ env: { KEYHOLD_MASTERKEY: TEST_MASTER_KEY, KEYHOLD_IDP_PRIVATE_NETWORKS: 'allow' } });
  base = kh.issuer;
  up = await oidcUpstream([callbackOf('idp-upstream')], { sub: 'nobody' });
  // The instance's provider, added through the commands the API will call (as an instance owner).
  const orgId = (await kh.readModel.defaultOrgId())!;
  iamOwner = { userId: 'test-admin', orgId, tokenId: 't', memberships: [{ scopeType: 'instance', scopeId: 'default', orgId, roles: ['IAM_OWNER'] }] };
  commands = createCommands({
    events: createEventStore(kh.database),
    lookups: kh.readModel,
    clock: { now: () => Date.now() },
    // The providers' ids are known before they are added: their callback URIs are registered at the upstreams first.
    ids: { newId: () => nextId.shift() ?? `idp${Date.now()}` },
    secrets: undefined as never,
    verifyRegistration: undefined as never,
    webauthn: undefined as never,
    totp: undefined as never,
    idpSecrets: () => createIdpSecrets(kh.database, idpSealing(idpSecretKey(masterKeyOf(TEST_MASTER_KEY)))),
    invite: undefined as never,
  });
  await commands.addIdp(
    { caller: iamOwner },
    {
      scope: 'instance',
      settings: { kind: 'oidc', name: 'Upstream Corp', issuer: up.url, clientId: up.clientId, scopes: ['openid', 'email', 'profile'], options: { isCreationAllowed: true, isAutoCreation: true, isLinkingAllowed: true, isAutoUpdate: false }, trust: { ...DEFAULT_TRUST, upstreamAmr: true } },
      clientSecret: up.clientSecret,
    },
  );
  // A GitHub-shaped OAuth 2.0 provider: the GitHub preset's mapping, its endpoints at the test's server.
  gh = await gitHubUpstream([callbackOf('idp-github')], { sub: '', id: 4242, preferred_username: 'octo', name: 'Octo Cat', email: 'octo@example.com' });
  const preset = presetEndpoints('gitHub');
  if (preset.kind !== 'oauth') throw new Error('GitHub is OAuth 2.0');
  gitHubId = (await commands.addIdp(
    { caller: iamOwner },
    {
      scope: 'instance',
      settings: { kind: 'oauth', name: 'GitHub', preset: 'gitHub', authorizationEndpoint: `${gh.url}/login/oauth/authorize`, tokenEndpoint: `${gh.url}/login/oauth/access_token`, userinfoEndpoint: `${gh.url}/user`, mapping: preset.mapping, clientId: gh.clientId, scopes: preset.scopes, options: { isCreationAllowed: true, isAutoCreation: true, isLinkingAllowed: false, isAutoUpdate: false }, trust: { emailVerified: true, upstreamAmr: true } },
      clientSecret: gh.clientSecret,
    },
  )).idpId;
  const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'External sign-in' })).body.id;
  const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
  config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
}, 60_000);
afterAll(async () => {
  await up?.close();
  await gh?.close();
  await kh?.close();
});

/** The app's authorization request, followed to Keyhold's first page, and its "Continue with …" button pressed: the upstream's URL. */
async function toUpstream(b: Browser, name = 'Upstream Corp') {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid profile', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
  const first = await b.follow(url);
  expect(first.html).toContain(`Continue with ${name}`);
  const action = formAction(first.html!, 'idp')!;
  const idp = new RegExp(`name="idp" value="([^"]+)"><button[^>]*>Continue with ${name}<`).exec(first.html!)![1]!;
  const sent = await b.request(new URL(action, base), { form: { form_token: formToken(first.html!), idp } });
  expect(sent.status).toBe(303);
  return { upstreamUrl: sent.headers.get('location')!, verifier };
}

/** Back at Keyhold with the upstream's answer: followed to the app (a consent page answered). */
async function backToApp(b: Browser, callback: URL): Promise<URL> {
  let step = await b.follow(callback);
  const consent = step.html && formAction(step.html, 'consent');
  if (consent) {
    const res = await b.request(new URL(consent, base), { form: { form_token: formToken(step.html!), decision: 'allow' } });
    step = await b.follow(new URL(res.headers.get('location')!, base));
  }
  if (!step.left) throw new Error(`not back at the app: ${step.url} ${step.html?.slice(0, 600)}`);
  return step.left;
}

describe('signing in through another provider', () => {
  it('creates the user just in time and signs it in; the ID token says fed and the upstream’s trusted amr', async () => {
    up.person = { sub: 'e2e-1', email: 'e2e@example.com', email_verified: true, name: 'Eve Tu', preferred_username: 'eve.e2e', amr: ['pwd', 'otp'] };
    const b = browser(base);
    const { upstreamUrl, verifier } = await toUpstream(b);
    expect(new URL(upstreamUrl).origin).toBe(up.url);
    expect(new URL(upstreamUrl).searchParams.get('redirect_uri')).toBe(callbackOf('idp-upstream'));
    const callback = await throughUpstream(upstreamUrl, callbackOf('idp-upstream'));
    const back = await backToApp(b, callback);
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });
    const claims = tokens.claims()!;
    expect(claims.amr).toEqual(['fed', 'pwd', 'otp']);
    const users = await kh.rest('POST', '/v2/users', { queries: [{ userNameQuery: { userName: 'eve.e2e' } }] });
    expect(users.body.result?.[0]?.userId ?? users.body.result?.[0]?.id).toBe(claims.sub);

    // The same callback again (a replay): its state was spent by the first, nothing signs in.
    const again = await b.follow(callback);
    expect(again.left).toBeUndefined();
    expect(again.page?.status).toBe(400);
  });

  it('spends a callback once: 8 concurrent deliveries of one answer × 3 rounds, exactly one signs in', async () => {
    for (let round = 0; round < 3; round++) {
      up.person = { sub: `race-${round}`, email: `race${round}@example.com`, preferred_username: `race.${round}` };
      const b = browser(base);
      const { upstreamUrl } = await toUpstream(b);
      const callback = await throughUpstream(upstreamUrl, callbackOf('idp-upstream'));
      const atSignIn = new URL((await b.request(callback)).headers.get('location')!);
      const answers = await Promise.all(Array.from({ length: 8 }, () => b.request(atSignIn)));
      // The one that spent it goes on (to the app, or its consent); the others find it spent.
      expect(answers.filter((r) => r.status === 303).length, answers.map((r) => r.status).join(' ')).toBe(1);
      expect(answers.filter((r) => r.status === 400)).toHaveLength(7);
    }
  });

  it('signs in through a plain OAuth 2.0 provider (GitHub-shaped): the person read from /user, amr fed only', async () => {
    const b = browser(base);
    const { upstreamUrl, verifier } = await toUpstream(b, 'GitHub');
    expect(new URL(upstreamUrl).pathname).toBe('/login/oauth/authorize');
    const back = await backToApp(b, await throughUpstream(upstreamUrl, callbackOf(gitHubId)));
    const claims = (await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier })).claims()!;
    expect(claims.amr).toEqual(['fed']);
    const user = await kh.rest('GET', `/v2/users/${claims.sub}`);
    expect(user.body.user?.username ?? user.body.user?.userName).toBe('octo');
  });

  it('tells the person in plain words when the upstream says no, and the upstream’s error to the log', async () => {
    const b = browser(base);
    const { upstreamUrl } = await toUpstream(b);
    const state = new URL(upstreamUrl).searchParams.get('state')!;
    const denied = new URL(callbackOf('idp-upstream'));
    for (const [k, v] of Object.entries({ error: 'access_denied', error_description: 'The person cancelled', state, iss: up.url })) denied.searchParams.set(k, v);
    const answer = await b.follow(denied);
    expect(answer.left).toBeUndefined();
    expect(answer.html).toContain('Upstream Corp did not sign you in');
    expect(answer.html).not.toContain('access_denied');
    expect(kh.logLines.some((l) => l.includes('access_denied: The person cancelled'))).toBe(true);
  });

  it('a removed provider is no longer offered, and its sign-in in flight signs nobody in', async () => {
    const b = browser(base);
    const { upstreamUrl } = await toUpstream(b, 'GitHub');
    // Removed by another process (these commands' own event store): the callback reads the provider afresh.
    await commands.removeIdp({ caller: iamOwner }, { scope: 'instance', idpId: gitHubId });
    const answer = await b.follow(await throughUpstream(upstreamUrl, callbackOf(gitHubId)));
    expect(answer.left).toBeUndefined();
    expect(answer.html).toContain('could not be accepted');
    // The buttons come from the login's settings cache: gone within its bound on a process that did not remove it.
    await new Promise((r) => setTimeout(r, LOGIN_SETTINGS_TTL_MS + 100));
    const loginPage = /action="(\/ui\/login\/[^/"]+)\/username"/.exec(answer.html!)![1]!;
    const again = await b.follow(new URL(loginPage, base));
    expect(again.html).toContain('Continue with Upstream Corp');
    expect(again.html).not.toContain('Continue with GitHub');
  });

  it('mix-up: an answer at another provider\u2019s callback URI is refused before any code is sent anywhere; the sign-in\u2019s own answer still works', async () => {
    up.person = { sub: 'mixup-1', email: 'mixup@example.com', preferred_username: 'mix.up' };
    const b = browser(base);
    const { upstreamUrl, verifier } = await toUpstream(b);
    const callback = await throughUpstream(upstreamUrl, callbackOf('idp-upstream'));
    // The same answer (code, state, iss) delivered at the GitHub provider's URI, as an upstream that
    // relayed the person to another provider would have it arrive.
    const elsewhere = new URL(callbackOf('idp-github'));
    elsewhere.search = callback.search;
    const tokenRequestsBefore = up.tokenRequests!();
    const refused = await b.follow(elsewhere);
    expect(refused.left).toBeUndefined();
    expect(refused.page?.status).toBe(400);
    expect(up.tokenRequests!()).toBe(tokenRequestsBefore);
    // Nothing was spent: the answer at its own provider's URI signs in.
    const back = await backToApp(b, callback);
    expect((await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier })).claims()?.amr).toContain('fed');
  });

  it('refuses a callback whose state is not the sign-in’s', async () => {
    up.person = { sub: 'e2e-2', email: 'e2e2@example.com', preferred_username: 'e2e.two' };
    const b = browser(base);
    const { upstreamUrl } = await toUpstream(b);
    const callback = await throughUpstream(upstreamUrl, callbackOf('idp-upstream'));
    const [uid] = callback.searchParams.get('state')!.split('.');
    callback.searchParams.set('state', `${uid}.not-the-kept-one`);
    const answer = await b.follow(callback);
    expect(answer.left).toBeUndefined();
    expect(answer.page?.status).toBe(400);
  });

  it('refuses the answer in a browser that did not press the button: without its binding cookie the sign-in has expired, and the upstream is asked nothing', async () => {
    up.person = { sub: 'e2e-3', email: 'e2e3@example.com', preferred_username: 'e2e.three' };
    let dropBinding = false;
    // The same browser, but what an attacker's planted sign-in lacks: the cookie set when the button was pressed.
    const b = browser(base, {}, (url, method, headers, body) => {
      const cookie = dropBinding ? headers.cookie?.split('; ').filter((c) => !c.startsWith('keyhold_external=')).join('; ') : headers.cookie;
      return fetch(url, { method, headers: { ...headers, ...(cookie !== undefined ? { cookie } : {}) }, body, redirect: 'manual' });
    });
    const { upstreamUrl } = await toUpstream(b);
    const callback = await throughUpstream(upstreamUrl, callbackOf('idp-upstream'));
    const exchanged = up.tokenRequests!();
    dropBinding = true;
    const answer = await b.follow(callback);
    expect(answer.left).toBeUndefined();
    expect(answer.page?.status).toBe(400);
    expect(up.tokenRequests!()).toBe(exchanged);
  });

  // Last: it makes the default org require a second factor.
  it('forceMfa: a trusted upstream that reported a second factor signs in; after one that did not, Keyhold\u2019s own factor follows (no login before it)', async () => {
    expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: true })).status).toBe(200);
    const attempt = async (person: Upstream['person']) => {
      up.person = person;
      const b = browser(base);
      const { upstreamUrl } = await toUpstream(b);
      return b.follow(await throughUpstream(upstreamUrl, callbackOf('idp-upstream')));
    };
    // The org's policy reaches the login within its cache's second.
    let refused = await attempt({ sub: 'mfa-e2e-1', email: 'mfa1@example.com', preferred_username: 'mfa.one', amr: ['pwd'] });
    for (let i = 0; i < 20 && refused.left; i++) {
      await new Promise((r) => setTimeout(r, 200));
      refused = await attempt({ sub: 'mfa-e2e-1', email: 'mfa1@example.com', preferred_username: 'mfa.one', amr: ['pwd'] });
    }
    expect(refused.left).toBeUndefined();
    // A user made just in time has no factor yet: the forced enrolment's page, as after a password.
    expect(refused.html).toContain('Add a security key');
    const passed = await attempt({ sub: 'mfa-e2e-2', email: 'mfa2@example.com', preferred_username: 'mfa.two', amr: ['pwd', 'hwk'] });
    // Past the upstream's own second factor: on to the app (or its consent form), never the refusal.
    expect(passed.html ?? '').not.toContain('Add a security key');
    expect(Boolean(passed.left) || formAction(passed.html ?? '', 'consent') !== undefined).toBe(true);
  });
});
