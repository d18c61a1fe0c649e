// Identity providers and links on a real store (PGlite and PostgreSQL): who
// may add an instance's or an org's provider, the secret sealed and never in
// an event, another org's provider not found; one identity linked to one
// user under 8 concurrent links over several rounds; unlinking, and a
// removed provider taking its links.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/access/caller.js';
import { createCommands } from '../../src/commands/index.js';
import type { Ports } from '../../src/commands/ports.js';
import type { IdpSettings } from '../../src/domain/events/index.js';
import { KeyholdError } from '../../src/domain/errors/keyhold-error.js';
import { DEFAULT_OPTIONS, DEFAULT_TRUST } from '../../src/domain/idp/provider.js';
import { idpSealing, idpSecretKey } from '../../src/server/oidc/keys.js';
import { createEventStore } from '../../src/store/event-store.js';
import { createIdpSecrets } from '../../src/store/idp-secrets.js';
import { createReadModel } from '../../src/store/read-model.js';
import { sql } from '../../src/store/sql.js';
import { announcePostgresSkip, freshPglite, freshPostgres, postgresAvailable, type FreshDatabase } from '../support/databases.js';

announcePostgresSkip('identity provider commands on PostgreSQL');

const ROUNDS = 3;
const CONCURRENT = 8;
const settings: IdpSettings = { kind: 'oidc', name: 'Corp', issuer: 'https://idp.example.com', clientId: 'keyhold', scopes: ['openid', 'email'], options: DEFAULT_OPTIONS, trust: DEFAULT_TRUST };

function setup(fixture: FreshDatabase) {
  const events = createEventStore(fixture.database);
  const readModel = createReadModel(fixture.database);
  let n = 0;
  const idpSecrets = createIdpSecrets(fixture.database, idpSealing(idpSecretKey(Buffer.alloc(32, 3))));
  const ports: Ports = {
    events,
    lookups: readModel,
    clock: { now: () => Date.now() },
    ids: { newId: () => `id-${process.pid}-${Date.now()}-${++n}` },
    secrets: undefined as never,
    verifyRegistration: undefined as never,
    webauthn: undefined as never,
    totp: undefined as never,
    idpSecrets: () => idpSecrets,
    invite: undefined as never,
  };
  const commands = createCommands(ports);
  const iamOwner: Caller = { userId: 'iam-owner', orgId: 'org-a', tokenId: 't', memberships: [{ scopeType: 'instance', scopeId: 'default', orgId: 'org-a', roles: ['IAM_OWNER'] }] };
  const owner = (orgId: string): Caller => ({ userId: `owner-${orgId}`, orgId, tokenId: 't', memberships: [{ scopeType: 'org', scopeId: orgId, orgId, roles: ['ORG_OWNER'] }] });
  return {
    fixture,
    commands,
    readModel,
    idpSecrets,
    iamOwner,
    owner,
    async org(orgId: string) {
      if (await readModel.orgExists(orgId)) return;
      await events.append([{ aggregateType: 'org', aggregateId: orgId, resourceOwner: orgId, creator: 'test', type: 'org.added', payload: { name: orgId } }], [{ aggregateType: 'org', aggregateId: orgId, sequence: 0 }]);
    },
    async human(orgId: string): Promise<string> {
      const userId = ports.ids.newId();
      await events.append(
        [{ aggregateType: 'user', aggregateId: userId, resourceOwner: orgId, creator: 'test', type: 'user.human.added', payload: { username: `u-${userId}`, givenName: 'G', familyName: 'F', displayName: 'G F', email: 'same@example.com' } }],
        [{ aggregateType: 'user', aggregateId: userId, sequence: 0 }],
      );
      return userId;
    },
    /** RemoveUser's event: the read model drops the user's rows, its links among them. */
    async remove(userId: string): Promise<void> {
      await events.append([{ aggregateType: 'user', aggregateId: userId, resourceOwner: 'org-a', creator: 'test', type: 'user.removed', payload: {} }], [{ aggregateType: 'user', aggregateId: userId, sequence: 1 }]);
    },
  };
}

const reasonOf = async (p: Promise<unknown>) => {
  const e = await p.then(() => undefined, (err: unknown) => err);
  if (!(e instanceof KeyholdError)) throw e ?? new Error('expected a refusal');
  return e.reason;
};

for (const backend of ['PGlite', 'PostgreSQL'] as const) {
  describe.skipIf(backend === 'PostgreSQL' && !postgresAvailable)(`identity provider commands on ${backend}`, () => {
    let w: ReturnType<typeof setup>;
    beforeAll(async () => {
      w = setup(backend === 'PGlite' ? await freshPglite() : await freshPostgres());
      await w.org('org-a');
      await w.org('org-b');
    });
    afterAll(async () => w?.fixture.cleanup());

    it('an org owner adds its org’s provider, not the instance’s; the secret is sealed and in no event', async () => {
      expect(await reasonOf(w.commands.addIdp({ caller: w.owner('org-a') }, { scope: 'instance', settings, clientSecret: 's3cret-value' }))).toBe('PERMISSION_DENIED');
      const { idpId } = await w.commands.addIdp({ caller: w.owner('org-a') }, { scope: 'org', settings, clientSecret: 's3cret-value' });
      expect(await w.readModel.identityProvider(idpId)).toMatchObject({ orgId: 'org-a', settings });
      expect(await w.idpSecrets.get(idpId)).toBe('s3cret-value');
      const stored = await w.fixture.database.sql.query(sql`select payload from events where aggregate_id = ${idpId}`);
      expect(JSON.stringify(stored)).not.toContain('s3cret-value');
      // Another org's owner: not found, as if it did not exist; the secret it sent changes nothing.
      expect(await reasonOf(w.commands.updateIdp({ caller: w.owner('org-b') }, { scope: 'org', idpId, settings, clientSecret: 'attacker' }))).toBe('IDP_NOT_FOUND');
      expect(await reasonOf(w.commands.removeIdp({ caller: w.owner('org-b') }, { scope: 'org', idpId }))).toBe('IDP_NOT_FOUND');
      expect(await w.idpSecrets.get(idpId)).toBe('s3cret-value');
      await w.commands.updateIdp({ caller: w.owner('org-a') }, { scope: 'org', idpId, settings: { ...settings, name: 'Corp SSO' } });
      expect(await w.idpSecrets.get(idpId)).toBe('s3cret-value');
      expect((await w.readModel.identityProviders('org-a')).map((p) => p.settings.name)).toEqual(['Corp SSO']);
    });

    it('refuses a provider without a secret, naming the field; an instance owner adds the instance’s, offered to every org', async () => {
      const err = await w.commands.addIdp({ caller: w.iamOwner }, { scope: 'instance', settings, clientSecret: '' }).catch((e: KeyholdError) => e);
      expect((err as KeyholdError).violations.map((v) => v.field)).toEqual(['clientSecret']);
      const { idpId } = await w.commands.addIdp({ caller: w.iamOwner }, { scope: 'instance', settings: { ...settings, name: 'Everyone' }, clientSecret: 'x' });
      expect((await w.readModel.identityProvidersOffered('org-b')).map((p) => p.idpId)).toContain(idpId);
    });

    it(`links one identity to one user: ${CONCURRENT} concurrent links × ${ROUNDS} rounds, exactly one wins`, async () => {
      const { idpId } = await w.commands.addIdp({ caller: w.owner('org-a') }, { scope: 'org', settings, clientSecret: 'x' });
      for (let round = 0; round < ROUNDS; round++) {
        const subject = `subject-${round}`;
        const users = await Promise.all(Array.from({ length: CONCURRENT }, () => w.human('org-a')));
        const results = await Promise.allSettled(users.map((userId) => w.commands.addIdpLink({ caller: w.owner('org-a') }, { userId, idpId, subject })));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results) if (r.status === 'rejected') expect(['IDP_LINK_TAKEN', 'CONCURRENT_MODIFICATION']).toContain((r.reason as KeyholdError).reason);
        const linked = await w.readModel.idpLink(idpId, subject);
        expect(users).toContain(linked?.userId);
      }
    });

    it('an identity linked to a removed user is free again; one linked to a user still there stays taken', async () => {
      const { idpId } = await w.commands.addIdp({ caller: w.owner('org-a') }, { scope: 'org', settings, clientSecret: 'x' });
      const [gone, kept, next] = [await w.human('org-a'), await w.human('org-a'), await w.human('org-a')];
      await w.commands.addIdpLink({ caller: w.owner('org-a') }, { userId: gone, idpId, subject: 'gone-upstream' });
      await w.commands.addIdpLink({ caller: w.owner('org-a') }, { userId: kept, idpId, subject: 'kept-upstream' });
      await w.remove(gone);
      expect(await w.readModel.idpLink(idpId, 'gone-upstream')).toBeUndefined();
      await w.commands.addIdpLink({ caller: w.owner('org-a') }, { userId: next, idpId, subject: 'gone-upstream' });
      expect((await w.readModel.idpLinksOf(next)).map((l) => l.subject)).toEqual(['gone-upstream']);
      expect(await reasonOf(w.commands.addIdpLink({ caller: w.owner('org-a') }, { userId: next, idpId, subject: 'kept-upstream' }))).toBe('IDP_LINK_TAKEN');
      expect((await w.readModel.idpLink(idpId, 'kept-upstream'))?.userId).toBe(kept);
    });

    it('linking an identity to the user it is linked to already changes nothing and answers the link as it stands', async () => {
      const { idpId } = await w.commands.addIdp({ caller: w.owner('org-a') }, { scope: 'org', settings, clientSecret: 'x' });
      const user = await w.human('org-a');
      const first = await w.commands.addIdpLink({ caller: w.owner('org-a') }, { userId: user, idpId, subject: 'twice-upstream' });
      const again = await w.commands.addIdpLink({ caller: w.owner('org-a') }, { userId: user, idpId, subject: 'twice-upstream' });
      expect(again.written).toEqual(first.written);
      await w.commands.linkAtLogin({ userId: user, idpId, subject: 'twice-upstream', how: 'creation' });
      expect((await w.readModel.idpLinksOf(user)).map((l) => l.subject)).toEqual(['twice-upstream']);
    });

    it('unlinks only the user’s own link; a removed provider takes its links; another org’s provider is not linked', async () => {
      const { idpId } = await w.commands.addIdp({ caller: w.owner('org-a') }, { scope: 'org', settings, clientSecret: 'x' });
      const [alice, bob] = [await w.human('org-a'), await w.human('org-a')];
      const carol = await w.human('org-b');
      await w.commands.addIdpLink({ caller: w.owner('org-a') }, { userId: alice, idpId, subject: 'alice-upstream' });
      expect(await reasonOf(w.commands.addIdpLink({ caller: w.owner('org-b') }, { userId: carol, idpId, subject: 'carol-upstream' }))).toBe('IDP_NOT_FOUND');
      expect(await reasonOf(w.commands.removeIdpLink({ caller: w.owner('org-a') }, { userId: bob, idpId, subject: 'alice-upstream' }))).toBe('IDP_LINK_NOT_FOUND');
      await w.commands.removeIdpLink({ caller: { userId: alice, orgId: 'org-a', tokenId: 't', memberships: [] } }, { userId: alice, idpId, subject: 'alice-upstream' });
      expect(await w.readModel.idpLinksOf(alice)).toEqual([]);
      // Free again: now Bob may link it (an administrator's decision, never an address's).
      await w.commands.addIdpLink({ caller: w.owner('org-a') }, { userId: bob, idpId, subject: 'alice-upstream' });
      expect((await w.readModel.idpLinksOf(bob)).map((l) => l.subject)).toEqual(['alice-upstream']);
      await w.commands.removeIdp({ caller: w.owner('org-a') }, { scope: 'org', idpId });
      expect(await w.readModel.idpLinksOf(bob)).toEqual([]);
      expect(await w.idpSecrets.has(idpId)).toBe(false);
      expect(await reasonOf(w.commands.useIdpLink({ userId: bob, idpId, subject: 'alice-upstream', clientId: 'app', amr: ['fed'] }))).toBe('IDP_NOT_FOUND');
    });
  });
}
