// Signing in through another provider, from the upstream's verified answer to
// what the login does (src/login/external.ts), with a real upstream (a bare
// oidc-provider, through openid-client) and Keyhold's commands on PGlite:
// just-in-time creation, an account holding the same address never linked,
// an upstream that changes its address claim, forceMfa with and without
// trusting the upstream's amr, an unlinked identity, a removed provider.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/access/caller.js';
import { createCommands } from '../../src/commands/index.js';
import type { Ports } from '../../src/commands/ports.js';
import type { IdpSettings } from '../../src/domain/events/index.js';
import type { ProviderConfig } from '../../src/domain/idp/provider.js';
import { DEFAULT_OPTIONS, DEFAULT_TRUST } from '../../src/domain/idp/provider.js';
import { externalSignIn, type ExternalPorts } from '../../src/login/external.js';
import { upstreamClient } from '../../src/server/idp/upstream.js';
import { idpSealing, idpSecretKey } from '../../src/server/oidc/keys.js';
import { createEventStore } from '../../src/store/event-store.js';
import { createIdpSecrets } from '../../src/store/idp-secrets.js';
import { createReadModel } from '../../src/store/read-model.js';
import { sql } from '../../src/store/sql.js';
import { freshPglite, type FreshDatabase } from '../support/databases.js';
import { oidcUpstream, throughUpstream, type Upstream } from '../support/upstreams.js';

const REDIRECT = 'http://127.0.0.1:9/ui/login/idp/callback';
const ORG = 'org-ext';
let fixture: FreshDatabase;
let up: Upstream;
let commands: ReturnType<typeof createCommands>;
let readModel: ReturnType<typeof createReadModel>;
let forceMfa = false;
// The upstreams here run on this machine: the operator's setting that allows it (KEYHOLD_IDP_PRIVATE_NETWORKS=allow).
const client = upstreamClient({ egress: { allowPrivateNetworks: true } });
const owner: Caller = { userId: 'owner', orgId: ORG, tokenId: 't', memberships: [{ scopeType: 'org', scopeId: ORG, orgId: ORG, roles: ['ORG_OWNER'] }] };

beforeAll(async () => {
  fixture = await freshPglite();
  up = await oidcUpstream([REDIRECT], { sub: 'nobody' });
  const events = createEventStore(fixture.database);
  readModel = createReadModel(fixture.database);
  let n = 0;
  const idpSecrets = createIdpSecrets(fixture.database, idpSealing(idpSecretKey(Buffer.alloc(32, 5))));
  const ports: Ports = {
    events,
    lookups: readModel,
    clock: { now: () => Date.now() },
    ids: { newId: () => `id${process.pid}x${Date.now()}x${++n}` },
    secrets: undefined as never,
    verifyRegistration: undefined as never,
    webauthn: undefined as never,
    totp: undefined as never,
    idpSecrets: () => idpSecrets,
    invite: undefined as never,
  };
  commands = createCommands(ports);
  await events.append([{ aggregateType: 'org', aggregateId: ORG, resourceOwner: ORG, creator: 'test', type: 'org.added', payload: { name: 'Ext' } }], [{ aggregateType: 'org', aggregateId: ORG, sequence: 0 }]);
});
afterAll(async () => {
  await up?.close();
  await fixture?.cleanup();
});

const ports = (): ExternalPorts => ({ read: readModel, commands, mfaRequired: async () => forceMfa });

async function addProvider(options: Partial<IdpSettings['options']>, trust: Partial<IdpSettings['trust']> = {}): Promise<{ idpId: string; config: ProviderConfig }> {
  const settings: IdpSettings = { kind: 'oidc', name: 'Upstream', issuer: up.url, clientId: up.clientId, scopes: ['openid', 'email', 'profile'], options: { ...DEFAULT_OPTIONS, ...options }, trust: { ...DEFAULT_TRUST, ...trust } };
  const { idpId } = await commands.addIdp({ caller: owner }, { scope: 'org', settings, clientSecret: up.clientSecret });
  return { idpId, config: { id: idpId, orgId: ORG, ...settings } };
}

/** A whole sign-in at the upstream as `person`, and what the login makes of it. */
async function signIn(p: { idpId: string; config: ProviderConfig }, person: Upstream['person']) {
  up.person = person;
  const kept = await client.start(p.config, up.clientSecret, REDIRECT, 'uid.x');
  const vouched = await client.finish(p.config, up.clientSecret, await throughUpstream(kept.url, REDIRECT), kept);
  return externalSignIn(ports(), { idpId: p.idpId, orgId: ORG, clientId: 'app', ...vouched });
}

const eventsOf = async (type: string) => fixture.database.sql.query<{ payload: Record<string, unknown>; creator: string }>(sql`select payload, creator from events where type = ${type} order by position`);

describe('a sign-in through another provider', () => {
  it('creates a user just in time with the upstream’s profile, links it, and signs it in again next time', async () => {
    const p = await addProvider({ isCreationAllowed: true, isAutoCreation: true });
    const first = await signIn(p, { sub: 'jit-1', email: 'jit@example.com', email_verified: true, name: 'Jo Tee', preferred_username: 'jotee' });
    expect(first).toMatchObject({ kind: 'login', amr: ['fed'], secondFactor: false, created: true });
    const userId = (first as { userId: string }).userId;
    expect(await readModel.userFacts(userId)).toMatchObject({ username: 'jotee', email: 'jit@example.com', givenName: 'Jo', familyName: 'Tee', orgId: ORG });
    expect(await signIn(p, { sub: 'jit-1', email: 'jit@example.com' })).toMatchObject({ kind: 'login', userId, created: false });
    const linked = await eventsOf('idplink.added');
    expect(linked.at(-1)?.payload).toMatchObject({ idpId: p.idpId, subject: 'jit-1', userId, how: 'creation' });
    expect((await eventsOf('idplink.used')).filter((e) => e.payload.userId === userId)).toHaveLength(2);
  });

  it('8 first sign-ins of one identity at once × 3 rounds: one user, linked, and every one signs in as it', async () => {
    const p = await addProvider({ isCreationAllowed: true, isAutoCreation: true });
    for (let round = 0; round < 3; round++) {
      const person = { sub: `twin-${round}`, email: `twin${round}@example.com`, preferred_username: `twin.${round}` };
      // Each sign-in's own exchange first (the upstream answers one at a time), then the login's decisions at once.
      const vouched = [];
      for (let i = 0; i < 8; i++) {
        up.person = person;
        const kept = await client.start(p.config, up.clientSecret, REDIRECT, `uid.${round}.${i}`);
        vouched.push(await client.finish(p.config, up.clientSecret, await throughUpstream(kept.url, REDIRECT), kept));
      }
      const results = await Promise.all(vouched.map((v) => externalSignIn(ports(), { idpId: p.idpId, orgId: ORG, clientId: 'app', ...v })));
      const userIds = new Set(results.map((r) => (r.kind === 'login' ? r.userId : r.kind)));
      expect([...userIds], JSON.stringify(results)).toHaveLength(1);
      expect(results.every((r) => r.kind === 'login')).toBe(true);
      expect(results.filter((r) => r.kind === 'login' && r.created)).toHaveLength(1);
      const found = await readModel.searchUsers({ orgIds: [ORG], userIds: [], usernames: [{ value: `twin.${round}`, method: 'equals' }], displayNames: [], emails: [], kinds: ['human'], states: [], inOrgs: [] }, { offset: 0, limit: 10, asc: true });
      expect(found.total).toBe(1);
      expect((await readModel.idpLink(p.idpId, `twin-${round}`))?.userId).toBe([...userIds][0]);
    }
  });

  it('a just-in-time user\u2019s address is verified only when the provider is trusted for it and the upstream says so', async () => {
    const trusted = await addProvider({ isCreationAllowed: true, isAutoCreation: true }, { emailVerified: true });
    const said = await signIn(trusted, { sub: 'verified-1', email: 'said@example.com', email_verified: true, preferred_username: 'said.verified' });
    const notSaid = await signIn(trusted, { sub: 'verified-2', email: 'notsaid@example.com', email_verified: false, preferred_username: 'not.said' });
    const untrusted = await addProvider({ isCreationAllowed: true, isAutoCreation: true });
    const ignored = await signIn(untrusted, { sub: 'verified-3', email: 'ignored@example.com', email_verified: true, preferred_username: 'ignored.claim' });
    const verified = async (r: Awaited<ReturnType<typeof signIn>>) => (await readModel.userFacts((r as { userId: string }).userId))?.emailVerified;
    expect([await verified(said), await verified(notSaid), await verified(ignored)]).toEqual([true, false, false]);
    expect((await eventsOf('user.email.verified')).at(-1)?.payload).toEqual({ email: 'said@example.com', by: 'provider' });
  });

  it('never links or signs in the account that holds the same address: the person is offered to sign in to link it', async () => {
    const p = await addProvider({ isCreationAllowed: true, isAutoCreation: true, isLinkingAllowed: true }, { emailVerified: true });
    const victim = await commands.addHumanUser({ caller: owner }, { userId: '', orgId: ORG, username: 'victim', profile: { givenName: 'V', familyName: 'Ictim', displayName: '' }, email: 'victim@example.com' });
    const result = await signIn(p, { sub: 'attacker-1', email: 'Victim@example.com', email_verified: true, preferred_username: 'attacker' });
    expect(result).toMatchObject({ kind: 'choose', create: true, link: true, accountWithAddress: true });
    expect(await readModel.idpLinksOf(victim.userId)).toEqual([]);
    expect(await readModel.idpLink(p.idpId, 'attacker-1')).toBeUndefined();
  });

  it('an upstream that changes its address claim to another account’s changes nothing: the link is its subject', async () => {
    const p = await addProvider({ isCreationAllowed: true, isAutoCreation: true }, { emailVerified: true });
    const mine = await signIn(p, { sub: 'changer', email: 'changer@example.com', email_verified: true, preferred_username: 'changer' });
    const other = await commands.addHumanUser({ caller: owner }, { userId: '', orgId: ORG, username: 'someone-else', profile: { givenName: 'S', familyName: 'E', displayName: '' }, email: 'someone@example.com' });
    const after = await signIn(p, { sub: 'changer', email: 'someone@example.com', email_verified: true });
    expect(after).toMatchObject({ kind: 'login', userId: (mine as { userId: string }).userId });
    expect(await readModel.idpLinksOf(other.userId)).toEqual([]);
  });

  it('refuses an unknown identity where the provider allows neither creation nor linking', async () => {
    const p = await addProvider({});
    expect(await signIn(p, { sub: 'stranger', email: 'stranger@example.com' })).toEqual({ kind: 'refused', reason: 'IDP_LINK_REQUIRED' });
  });

  it('forceMfa: Keyhold’s own factor follows unless the provider is trusted for the upstream’s amr and it reported a second factor', async () => {
    forceMfa = true;
    try {
      const untrusted = await addProvider({ isCreationAllowed: true, isAutoCreation: true });
      expect(await signIn(untrusted, { sub: 'mfa-1', email: 'mfa1@example.com', preferred_username: 'mfa1', amr: ['pwd', 'otp'] })).toMatchObject({ kind: 'login', amr: ['fed'], secondFactor: true });
      const trusted = await addProvider({ isCreationAllowed: true, isAutoCreation: true }, { upstreamAmr: true });
      expect(await signIn(trusted, { sub: 'mfa-2', email: 'mfa2@example.com', preferred_username: 'mfa2', amr: ['pwd', 'otp'] })).toMatchObject({ kind: 'login', amr: ['fed', 'pwd', 'otp'], secondFactor: false });
      expect(await signIn(trusted, { sub: 'mfa-3', email: 'mfa3@example.com', preferred_username: 'mfa3', amr: ['pwd'] })).toMatchObject({ kind: 'login', amr: ['fed', 'pwd'], secondFactor: true });
    } finally {
      forceMfa = false;
    }
  });

  it('an unlinked identity no longer signs in its former user; a removed provider signs nobody in', async () => {
    const p = await addProvider({ isLinkingAllowed: true });
    const user = await commands.addHumanUser({ caller: owner }, { userId: '', orgId: ORG, username: 'linked-by-admin', profile: { givenName: 'L', familyName: 'A', displayName: '' }, email: 'la@example.com' });
    await commands.addIdpLink({ caller: owner }, { userId: user.userId, idpId: p.idpId, subject: 'admin-linked' });
    expect(await signIn(p, { sub: 'admin-linked' })).toMatchObject({ kind: 'login', userId: user.userId });
    await commands.removeIdpLink({ caller: owner }, { userId: user.userId, idpId: p.idpId, subject: 'admin-linked' });
    expect(await signIn(p, { sub: 'admin-linked' })).toMatchObject({ kind: 'choose', create: false, link: true });
    await commands.addIdpLink({ caller: owner }, { userId: user.userId, idpId: p.idpId, subject: 'admin-linked' });
    await commands.removeIdp({ caller: owner }, { scope: 'org', idpId: p.idpId });
    expect(await signIn(p, { sub: 'admin-linked' })).toEqual({ kind: 'refused', reason: 'IDP_NOT_FOUND' });
  });
});
