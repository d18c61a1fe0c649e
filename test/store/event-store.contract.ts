// One behavioural contract for the event store (emmett-style), run against every
// driver by event-store.test.ts. Each test works on its own fresh aggregate ids,
// so one database per driver serves the whole suite.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/database.js';
import { createEventStore, type EventStore } from '../../src/store/event-store.js';
import { ConcurrencyConflict, UniqueViolation } from '../../src/store/errors.js';
import {
  INSTANCE_ID,
  type AggregateType,
  type EventPayloads,
  type EventTypeName,
  type NewEventOf,
} from '../../src/domain/events/index.js';
import type { OidcConfig } from '../../src/domain/oidc/types.js';
import * as q from '../../src/store/queries/index.js';
import { knownOrgs, type FreshDatabase } from '../support/databases.js';
import { verifiedPayload } from '../support/events.js';

const id = (prefix: string) => `${prefix}-${randomUUID()}`;

function event<K extends EventTypeName>(
  type: K,
  aggregateType: AggregateType,
  aggregateId: string,
  payload: EventPayloads[K],
  resourceOwner = 'org-owner',
  creator = 'user-creator',
): NewEventOf<K> {
  // Any aggregate type: some tests append an event to the wrong one on purpose.
  return { type, aggregateType: aggregateType as NewEventOf<K>['aggregateType'], aggregateId, payload, resourceOwner, creator };
}

/** The store keeps a payload as given: a partial OIDC config stands for a whole one here. */
const PARTIAL_CONFIG = { appType: 'WEB' } as unknown as OidcConfig;

const fresh = (aggregateType: AggregateType, aggregateId: string) => ({ aggregateType, aggregateId, sequence: 0 });

/** The error a promise rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function eventStoreContract(driver: string, open: () => Promise<FreshDatabase>): void {
  describe(`event store contract: ${driver}`, () => {
    let fixture: FreshDatabase;
    let database: Database;
    let store: EventStore;

    beforeAll(async () => {
      fixture = await open();
      database = fixture.database;
      store = createEventStore(database);
    });
    afterAll(async () => {
      await fixture?.cleanup();
    });

    /** Add a project and return its id. */
    async function addProject(orgId: string, name = 'Project'): Promise<string> {
      const projectId = id('project');
      await store.append([event('project.added', 'project', projectId, { name }, orgId)], [fresh('project', projectId)]);
      return projectId;
    }

    /** Add an app with its OIDC config in one append, as AddOIDCApp does. */
    function addApp(orgId: string, projectId: string, name: string, appId = id('app'), clientId = id('client')) {
      return store.append(
        [
          event('app.added', 'app', appId, { projectId, name }, orgId),
          event('app.oidc.config.added', 'app', appId, { clientId, clientSecretHash: 'h', config: PARTIAL_CONFIG }, orgId),
        ],
        [fresh('app', appId)],
      );
    }

    it('appends and loads events with every field intact', async () => {
      const orgId = id('org');
      const appended = await store.append(
        [
          event('org.added', 'org', orgId, { name: 'Acme' }, orgId, 'creator-1'),
          event('org.member.added', 'org', orgId, { userId: 'u1', roles: ['ORG_OWNER'] }, orgId, 'creator-1'),
        ],
        [fresh('org', orgId)],
      );
      const loaded = await store.load('org', orgId);
      expect(loaded).toEqual(appended);
      expect(loaded.map((e) => [e.type, e.sequence])).toEqual([
        ['org.added', 1],
        ['org.member.added', 2],
      ]);
      expect(loaded[0]).toMatchObject({
        aggregateType: 'org',
        aggregateId: orgId,
        payload: { name: 'Acme' },
        resourceOwner: orgId,
        creator: 'creator-1',
      });
      expect(loaded[1].payload).toEqual({ userId: 'u1', roles: ['ORG_OWNER'] });
      expect(loaded[0].createdAt).toBeInstanceOf(Date);
      expect(typeof loaded[0].position).toBe('bigint');
      expect(loaded[1].position).toBeGreaterThan(loaded[0].position);
    });

    it('loads [] for an aggregate that does not exist', async () => {
      expect(await store.load('org', id('missing'))).toEqual([]);
    });

    it('numbers each aggregate 1..N across appends, and several aggregates independently in one append', async () => {
      const orgId = id('org');
      await store.append([event('org.added', 'org', orgId, { name: 'N' }, orgId)], [fresh('org', orgId)]);
      for (let current = 1; current <= 4; current++) {
        await store.append(
          [event('org.member.added', 'org', orgId, { userId: `u${current}`, roles: ['ORG_OWNER'] }, orgId)],
          [{ aggregateType: 'org', aggregateId: orgId, sequence: current }],
        );
      }
      expect((await store.load('org', orgId)).map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5]);

      const projectA = id('project');
      const projectB = id('project');
      const both = await store.append(
        [
          event('project.added', 'project', projectA, { name: 'A' }, orgId),
          event('project.added', 'project', projectB, { name: 'B' }, orgId),
          event('project.member.added', 'project', projectA, { userId: 'u1', roles: ['PROJECT_OWNER'] }, orgId),
        ],
        [fresh('project', projectA), fresh('project', projectB)],
      );
      expect(both.map((e) => [e.aggregateId, e.sequence])).toEqual([
        [projectA, 1],
        [projectB, 1],
        [projectA, 2],
      ]);
    });

    it('stamps every event of one append with the same created_at', async () => {
      const orgId = id('org');
      const projectId = id('project');
      const appended = await store.append(
        [
          event('org.added', 'org', orgId, { name: 'T' }, orgId),
          event('org.member.added', 'org', orgId, { userId: 'u1', roles: ['ORG_OWNER'] }, orgId),
          event('project.added', 'project', projectId, { name: 'P' }, orgId),
        ],
        [fresh('org', orgId), fresh('project', projectId)],
      );
      const stamps = new Set(appended.map((e) => e.createdAt.getTime()));
      expect(stamps.size).toBe(1);
      const loaded = [...(await store.load('org', orgId)), ...(await store.load('project', projectId))];
      expect(new Set(loaded.map((e) => e.createdAt.getTime()))).toEqual(stamps);
      // The read models carry the same instant.
      expect((await q.findOrg(database.sql, orgId))?.createdAt.getTime()).toBe([...stamps][0]);
    });

    it('rejects a stale expected sequence with ConcurrencyConflict and writes nothing', async () => {
      const orgId = id('org');
      await store.append([event('org.added', 'org', orgId, { name: 'C' }, orgId)], [fresh('org', orgId)]);
      const err = await rejection(
        store.append([event('org.added', 'org', orgId, { name: 'again' }, orgId)], [fresh('org', orgId)]),
      );
      expect(err).toBeInstanceOf(ConcurrencyConflict);

      // A stale aggregate among fresh ones sinks the whole append.
      const projectId = id('project');
      const err2 = await rejection(
        store.append(
          [
            event('project.added', 'project', projectId, { name: 'P' }, orgId),
            event('org.member.added', 'org', orgId, { userId: 'u1', roles: ['ORG_OWNER'] }, orgId),
          ],
          [fresh('project', projectId), fresh('org', orgId)],
        ),
      );
      expect(err2).toBeInstanceOf(ConcurrencyConflict);
      expect(await store.load('project', projectId)).toEqual([]);
      expect(await q.findProject(database.sql, projectId)).toBeUndefined();
      expect((await store.load('org', orgId)).map((e) => e.type)).toEqual(['org.added']);
      expect(await q.membershipsOfUser(database.db, 'u1').then((ms) => ms.filter((m) => m.scopeId === orgId))).toEqual(
        [],
      );

      // The current sequence still works.
      await store.append(
        [event('org.member.added', 'org', orgId, { userId: 'u1', roles: ['ORG_OWNER'] }, orgId)],
        [{ aggregateType: 'org', aggregateId: orgId, sequence: 1 }],
      );
      expect((await store.load('org', orgId)).map((e) => e.sequence)).toEqual([1, 2]);
    });

    it('refuses events without an expectation or of the wrong aggregate type before writing', async () => {
      const orgId = id('org');
      await expect(store.append([event('org.added', 'org', orgId, { name: 'X' }, orgId)], [])).rejects.toThrow(
        /no expected sequence/,
      );
      await expect(
        store.append([event('org.added', 'project', orgId, { name: 'X' }, orgId)], [fresh('project', orgId)]),
      ).rejects.toThrow(/does not belong/);
      expect(await store.load('org', orgId)).toEqual([]);
      expect(await store.append([], [])).toEqual([]);
    });

    it('reports a read-model unique violation by constraint name and leaves nothing half-written', async () => {
      const orgId = id('org');
      // Its projects and users refer to the org in the read model.
      await knownOrgs(database, orgId);
      const projectId = await addProject(orgId);
      const otherProjectId = await addProject(orgId);
      const [first] = await addApp(orgId, projectId, 'App');

      const appId = id('app');
      const err = await rejection(addApp(orgId, projectId, 'app', appId));
      expect(err).toBeInstanceOf(UniqueViolation);
      expect((err as UniqueViolation).constraint).toBe('apps_project_name_key');
      expect(await store.load('app', appId)).toEqual([]);
      expect(await q.findApp(database.db, appId)).toBeUndefined();
      expect((await q.listApps(database.db, projectId)).map((a) => a.name)).toEqual(['App']);

      // A violation in a later event's projection also undoes the earlier events of the append.
      const userId = id('user');
      const appId2 = id('app');
      const err2 = await rejection(
        store.append(
          [
            event('user.machine.added', 'user', userId, { username: 'bot', name: 'Bot', description: '' }, orgId),
            event('app.added', 'app', appId2, { projectId, name: 'APP' }, orgId),
          ],
          [fresh('user', userId), fresh('app', appId2)],
        ),
      );
      expect((err2 as UniqueViolation).constraint).toBe('apps_project_name_key');
      expect(await store.load('user', userId)).toEqual([]);
      expect(await q.findUser(database.sql, userId)).toBeUndefined();

      // The same name is fine in another project, and free again once the app is removed.
      await addApp(orgId, otherProjectId, 'App');
      await store.append(
        [event('app.removed', 'app', first.aggregateId, { projectId }, orgId)],
        [{ aggregateType: 'app', aggregateId: first.aggregateId, sequence: 2 }],
      );
      expect(await q.findApp(database.db, first.aggregateId)).toBeUndefined();
      await addApp(orgId, projectId, 'APP');
      expect((await q.listApps(database.db, projectId)).map((a) => a.name)).toEqual(['APP']);
    });

    it('names every read-model unique constraint it reports', async () => {
      const orgId = id('org');
      // Its projects and users refer to the org in the read model.
      await knownOrgs(database, orgId);
      const projectId = await addProject(orgId);

      // users: username per org, by its key (case, NFC/NFD and width folded)
      const u1 = id('user');
      await store.append(
        [event('user.machine.added', 'user', u1, { username: 'Robot', name: 'R', description: '' }, orgId)],
        [fresh('user', u1)],
      );
      const u2 = id('user');
      const human = event(
        'user.human.added',
        'user',
        u2,
        { username: 'robot', givenName: 'G', familyName: 'F', displayName: 'G F', email: 'g@example.com' },
        orgId,
      );
      expect(((await rejection(store.append([human], [fresh('user', u2)]))) as UniqueViolation).constraint).toBe(
        'users_org_username_key',
      );
      // … and across the instance, as a login name.
      expect(((await rejection(store.append([{ ...human, resourceOwner: id('other-org') }], [fresh('user', u2)]))) as UniqueViolation).constraint).toBe(
        'users_login_name_key',
      );

      // apps: client id
      const clientId = id('client');
      await addApp(orgId, projectId, 'one', id('app'), clientId);
      expect(((await rejection(addApp(orgId, projectId, 'two', id('app'), clientId))) as UniqueViolation).constraint).toBe(
        'apps_client_id_key',
      );

      // personal access tokens: hash
      const hash = id('hash');
      const pat = (tokenId: string, sequence: number) =>
        store.append(
          [event('user.pat.added', 'user', u1, { tokenId, tokenHash: hash, expiresAt: null }, orgId)],
          [{ aggregateType: 'user', aggregateId: u1, sequence }],
        );
      await pat(id('pat'), 1);
      expect(((await rejection(pat(id('pat'), 2))) as UniqueViolation).constraint).toBe(
        'personal_access_tokens_token_hash_key',
      );
    });

    it('keeps a gap-free sequence under 50 concurrent writers to one aggregate', async () => {
      const orgId = id('org');
      await store.append([event('org.added', 'org', orgId, { name: 'Hot' }, orgId)], [fresh('org', orgId)]);
      let conflicts = 0;

      // Each writer: load, decide, append with the loaded sequence; on conflict reload and retry.
      const writer = async (n: number) => {
        for (let attempt = 0; attempt < 1000; attempt++) {
          const current = (await store.load('org', orgId)).length;
          try {
            await store.append(
              [event('org.member.added', 'org', orgId, { userId: `writer-${n}`, roles: ['ORG_OWNER'] }, orgId)],
              [{ aggregateType: 'org', aggregateId: orgId, sequence: current }],
            );
            return;
          } catch (err) {
            if (!(err instanceof ConcurrencyConflict)) throw err;
            conflicts++;
            await sleep(Math.random() * 3);
          }
        }
        throw new Error(`writer ${n} gave up`);
      };
      await Promise.all(Array.from({ length: 50 }, (_, n) => writer(n)));

      const loaded = await store.load('org', orgId);
      expect(loaded.map((e) => e.sequence)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
      const writers = loaded.slice(1).map((e) => (e.payload as { userId: string }).userId);
      expect(new Set(writers).size).toBe(50);
      expect(conflicts).toBeGreaterThan(0); // the writers really raced
      expect((await q.findOrg(database.sql, orgId))?.sequence).toBe(51);
    });

    it('makes the read models reflect an append as soon as it returns', async () => {
      const db = database.db;
      const orgId = id('org');
      const [orgAdded] = await store.append(
        [
          event('org.added', 'org', orgId, { name: 'Read' }, orgId),
          event('org.member.added', 'org', orgId, { userId: 'owner', roles: ['ORG_OWNER'] }, orgId),
        ],
        [fresh('org', orgId)],
      );
      expect(await q.findOrg(database.sql, orgId)).toEqual({
        id: orgId,
        name: 'Read',
        state: 'active',
        createdAt: orgAdded.createdAt,
        changedAt: orgAdded.createdAt,
        sequence: 2,
      });

      const projectId = await addProject(orgId, 'Proj');
      await store.append(
        [event('project.member.added', 'project', projectId, { userId: 'owner', roles: ['PROJECT_OWNER'] }, orgId)],
        [{ aggregateType: 'project', aggregateId: projectId, sequence: 1 }],
      );
      expect(await q.findProject(database.sql, projectId)).toMatchObject({ orgId, name: 'Proj', state: 'active', sequence: 2 });
      expect((await q.listProjects(db, orgId)).map((p) => p.id)).toEqual([projectId]);
      expect(
        (await q.membershipsOfUser(db, 'owner'))
          .filter((m) => m.orgId === orgId)
          .map((m) => [m.scopeType, m.scopeId, m.roles])
          .sort(),
      ).toEqual([
        ['org', orgId, ['ORG_OWNER']],
        ['project', projectId, ['PROJECT_OWNER']],
      ]);

      const userId = id('user');
      const expiresAt = '2031-01-02T03:04:05.000Z';
      await store.append(
        [
          event(
            'user.human.added',
            'user',
            userId,
            { username: 'Ada', givenName: 'Ada', familyName: 'L', displayName: 'Ada L', email: 'ada@example.com' },
            orgId,
          ),
          event('user.pat.added', 'user', userId, { tokenId: 'tok-' + userId, tokenHash: 'hash-' + userId, expiresAt }, orgId),
        ],
        [fresh('user', userId)],
      );
      expect(await q.findUser(database.sql, userId)).toMatchObject({ kind: 'human', username: 'Ada', email: 'ada@example.com', sequence: 2 });
      expect((await q.findUserByUsername(db, orgId, 'aDA'))?.id).toBe(userId);
      expect((await q.findUserByUsername(db, orgId, '\uFF21\uFF24\uFF21'))?.id).toBe(userId); // full-width ＡＤＡ
      expect(await q.findUserByUsername(db, id('org'), 'ada')).toBeUndefined();
      const pat = await q.findPatByHash(db, 'hash-' + userId);
      expect(pat?.pat).toMatchObject({ id: 'tok-' + userId, userId, orgId, expiresAt: new Date(expiresAt) });
      expect(pat?.user.orgId).toBe(orgId);
      expect(await q.findPatByHash(db, 'nope')).toBeUndefined();

      const [appAdded] = await addApp(orgId, projectId, 'Web', undefined, 'client-' + userId);
      const app = await q.findApp(db, appAdded.aggregateId);
      expect(app).toMatchObject({
        projectId,
        orgId,
        name: 'Web',
        clientId: 'client-' + userId,
        clientSecretHash: 'h',
        config: { appType: 'WEB' },
        sequence: 2,
      });
      // The token endpoint's plain-SQL finder reads the same row as drizzle's, with its project's login checks.
      expect(await q.findAppByClientId(database.sql, 'client-' + userId)).toEqual({ ...app, projectRoleCheck: false, hasProjectCheck: false });
      expect(await q.findAppByClientId(database.sql, 'client-nobody')).toBeUndefined();
      await store.append(
        [event('app.oidc.secret.changed', 'app', appAdded.aggregateId, { clientSecretHash: 'h2' }, orgId)],
        [{ aggregateType: 'app', aggregateId: appAdded.aggregateId, sequence: 2 }],
      );
      expect(await q.findApp(db, appAdded.aggregateId)).toMatchObject({ clientSecretHash: 'h2', sequence: 3 });
    });

    it('tracks a U2F token from pending to ready, guards its credential id, and frees it on removal', async () => {
      const db = database.db;
      const orgId = id('org');
      const userId = id('user');
      const started = (u2fId: string) =>
        store.append(
          [
            event(
              'u2f.registration.started',
              'u2f',
              u2fId,
              { userId, rpId: 'localhost', challenge: 'c-' + u2fId, expiresAt: '2030-01-01T00:00:00.000Z' },
              orgId,
            ),
          ],
          [fresh('u2f', u2fId)],
        );
      const credentialId = id('cred');
      const verified = (u2fId: string) =>
        store.append(
          [
            event(
              'u2f.verified',
              'u2f',
              u2fId,
              verifiedPayload({ userId, credentialId, transports: ['usb'] }),
              orgId,
            ),
          ],
          [{ aggregateType: 'u2f', aggregateId: u2fId, sequence: 1 }],
        );

      const a = id('u2f');
      const b = id('u2f');
      await started(a);
      await started(b);
      expect(await q.findU2f(db, a)).toMatchObject({ state: 'pending', userId, orgId, challenge: 'c-' + a, credentialId: null });
      expect(await q.verifiedCredentialIdsOfUser(db, userId, 'localhost')).toEqual([]);

      await verified(a);
      expect(await q.findU2f(db, a)).toMatchObject({
        state: 'ready',
        name: 'Key',
        credentialId,
        algorithm: -7,
        signCount: 0,
        transports: ['usb'],
        sequence: 2,
      });
      expect(await q.verifiedCredentialIdsOfUser(db, userId, 'localhost')).toEqual([credentialId]);
      expect(await q.verifiedCredentialIdsOfUser(db, userId, 'example.com')).toEqual([]);

      // The same authenticator credential on a second registration is refused; b stays pending.
      expect(((await rejection(verified(b))) as UniqueViolation).constraint).toBe('u2f_tokens_credential_id_key');
      expect((await q.findU2f(db, b))?.state).toBe('pending');
      expect((await q.listU2fOfUser(db, userId)).map((t) => t.id).sort()).toEqual([a, b].sort());

      await store.append(
        [event('u2f.removed', 'u2f', a, { userId }, orgId)],
        [{ aggregateType: 'u2f', aggregateId: a, sequence: 2 }],
      );
      expect(await q.findU2f(db, a)).toBeUndefined();
      await verified(b);
      expect(await q.verifiedCredentialIdsOfUser(db, userId, 'localhost')).toEqual([credentialId]);
    });

    it('lets exactly one of several racing bootstraps win', async () => {
      expect(await q.isBootstrapped(database.db)).toBe(false);
      const attempts = await Promise.allSettled(
        Array.from({ length: 8 }, (_, n) =>
          store.append(
            [
              event('instance.added', 'instance', INSTANCE_ID, { defaultOrgId: `org-${n}` }, `org-${n}`),
              event('instance.member.added', 'instance', INSTANCE_ID, { userId: `admin-${n}`, roles: ['IAM_OWNER'] }, `org-${n}`),
            ],
            [fresh('instance', INSTANCE_ID)],
          ),
        ),
      );
      const won = attempts.filter((a) => a.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const lost of attempts.filter((a) => a.status === 'rejected')) {
        expect((lost as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyConflict);
      }
      expect(await q.isBootstrapped(database.db)).toBe(true);
      const instance = await q.findInstance(database.db);
      const winner = instance!.defaultOrgId.slice('org-'.length);
      expect(instance?.sequence).toBe(2);
      expect((await store.load('instance', INSTANCE_ID)).map((e) => e.sequence)).toEqual([1, 2]);
      const admins = (await q.membershipsOfUser(database.db, `admin-${winner}`)).filter((m) => m.scopeType === 'instance');
      expect(admins).toEqual([
        { scopeType: 'instance', scopeId: INSTANCE_ID, userId: `admin-${winner}`, orgId: `org-${winner}`, roles: ['IAM_OWNER'] },
      ]);
    });

    it('answers ping', async () => {
      await expect(database.ping()).resolves.toBeUndefined();
    });
  });
}
