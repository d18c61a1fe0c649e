// The runner (src/commands/run.ts) deciding on this process's copy of an
// aggregate (the recent-copies decorator, src/commands/recent-copies.ts), on
// real databases. Two event stores over one database stand for two Keyhold
// processes sharing it: each has its own copies, neither sees the other's
// appends. The copy may save the load; it must never change an answer.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decider } from '../../src/domain/decider.js';
import { withRecentCopies } from '../../src/commands/recent-copies.js';
import { runCommand, runCommands, target } from '../../src/commands/run.js';
import type { NewEvent, StoredEvent } from '../../src/domain/events/index.js';
import { KeyholdError } from '../../src/domain/errors/keyhold-error.js';
import { projectDecider } from '../../src/domain/project/decider.js';
import { createEventStore, type EventStore } from '../../src/store/event-store.js';
import { verifiedPayload } from '../support/events.js';
import { announcePostgresSkip, freshPglite, freshPostgres, postgresAvailable, type FreshDatabase, knownOrgs } from '../support/databases.js';

/** A process's event store: its loads counted, with copies of every U2F history (the decorator the U2F commands use). */
function counting(store: EventStore): { store: EventStore; loads: () => number } {
  let loads = 0;
  const counted: EventStore = {
    ...store,
    load: (type, id) => {
      loads++;
      return store.load(type, id);
    },
  };
  return { store: withRecentCopies(counted, (last) => last.aggregateType === 'u2f'), loads: () => loads };
}

/** Appends the first events of a new aggregate. */
const appendNew = (store: EventStore, events: NewEvent[]) =>
  store.append(events, [{ aggregateType: events[0]!.aggregateType, aggregateId: events[0]!.aggregateId, sequence: 0 }]);

const start = (id: string): NewEvent => ({
  type: 'u2f.registration.started',
  aggregateType: 'u2f',
  aggregateId: id,
  payload: { userId: 'user', rpId: 'localhost', challenge: randomUUID(), expiresAt: new Date(Date.now() + 60_000).toISOString() },
  resourceOwner: 'org',
  creator: 'u',
});

const verify = (id: string): NewEvent => ({
  type: 'u2f.verified',
  aggregateType: 'u2f',
  aggregateId: id,
  payload: verifiedPayload({ credentialId: `cred-${randomUUID()}` }),
  resourceOwner: 'org',
  creator: 'u',
});

interface State {
  verified: boolean;
  removed: boolean;
}

/**
 * A test decider on a U2F aggregate: "finish" writes u2f.removed; it is refused
 * once removed, and before verification when `needsVerified`. (Deciders are
 * pure; the events are only data here.)
 */
function finishing(id: string, needsVerified: boolean, decided: State[] = []): Decider<State, 'finish'> {
  return {
    initialState: () => ({ verified: false, removed: false }),
    evolve: (state, event: StoredEvent) =>
      event.type === 'u2f.verified' ? { ...state, verified: true } : event.type === 'u2f.removed' ? { ...state, removed: true } : state,
    decide(_command, state) {
      decided.push(state);
      if (state.removed) throw new Error('already finished');
      if (needsVerified && !state.verified) throw new Error('not verified yet');
      return [{ type: 'u2f.removed', aggregateType: 'u2f', aggregateId: id, payload: { userId: 'user' }, resourceOwner: 'org', creator: 'u' }];
    },
  };
}

function runCommandContract(driver: string, open: () => Promise<FreshDatabase>): void {
  describe(`the runner on a recent copy: ${driver}`, () => {
    let fixture: FreshDatabase;
    beforeAll(async () => {
      fixture = await open();
      // The users and projects below name this org (the read model refers each to its org).
      await knownOrgs(fixture.database, 'org');
    });
    afterAll(async () => {
      await fixture?.cleanup();
    });

    it('decides on its own fresh copy without a load', async () => {
      const { store, loads } = counting(createEventStore(fixture.database));
      const id = `u2f-${randomUUID()}`;
      await appendNew(store, [start(id)]);
      const written = await runCommand(store, { type: 'u2f', id }, finishing(id, false), 'finish');
      expect(written.map((e: StoredEvent) => [e.sequence, e.type])).toEqual([[2, 'u2f.removed']]);
      expect(loads()).toBe(0);
      expect((await store.load('u2f', id)).map((e: StoredEvent) => e.type)).toEqual(['u2f.registration.started', 'u2f.removed']);
    });

    it('a copy behind the database: the write conflicts and the command is decided again on a load', async () => {
      const here = counting(createEventStore(fixture.database));
      const elsewhere = counting(createEventStore(fixture.database)).store;
      const id = `u2f-${randomUUID()}`;
      await appendNew(here.store, [start(id)]);
      // The other process finishes it first.
      await runCommand(elsewhere, { type: 'u2f', id }, finishing(id, false), 'finish');
      const decided: State[] = [];
      await expect(runCommand(here.store, { type: 'u2f', id }, finishing(id, false, decided), 'finish')).rejects.toThrow('already finished');
      // First on the copy (still pending: a write, refused by the database), then on the load.
      expect(decided).toEqual([
        { verified: false, removed: false },
        { verified: false, removed: true },
      ]);
      expect(here.loads()).toBe(1);
      expect((await elsewhere.load('u2f', id)).map((e: StoredEvent) => e.type)).toEqual(['u2f.registration.started', 'u2f.removed']);
    });

    it('a refusal decided on a copy that is behind is decided again on a load', async () => {
      const here = counting(createEventStore(fixture.database));
      const elsewhere = createEventStore(fixture.database);
      const id = `u2f-${randomUUID()}`;
      await appendNew(here.store, [start(id)]);
      // The other process verifies it; this one's copy still says pending.
      await elsewhere.append([verify(id)], [{ aggregateType: 'u2f', aggregateId: id, sequence: 1 }]);
      const decided: State[] = [];
      const written = await runCommand(here.store, { type: 'u2f', id }, finishing(id, true, decided), 'finish');
      expect(written.map((e: StoredEvent) => [e.sequence, e.type])).toEqual([[3, 'u2f.removed']]);
      // Refused on the copy, decided again on the one load that showed the copy was behind.
      expect(decided).toEqual([
        { verified: false, removed: false },
        { verified: true, removed: false },
      ]);
      expect(here.loads()).toBe(1);
    });

    it('a refusal decided on a copy that is current is answered after one load, the command built once', async () => {
      const here = counting(createEventStore(fixture.database));
      const id = `u2f-${randomUUID()}`;
      await appendNew(here.store, [start(id)]);
      let built = 0;
      const command = async () => {
        built++;
        return 'finish' as const;
      };
      await expect(runCommand(here.store, { type: 'u2f', id }, finishing(id, true), command)).rejects.toThrow('not verified yet');
      expect(built).toBe(1);
      expect(here.loads()).toBe(1);
    });

    it('a create is decided on the initial state without a load; on an id in use the decider refuses it after the conflict’s load', async () => {
      const here = counting(createEventStore(fixture.database));
      const id = `project-${randomUUID()}`;
      const add = { kind: 'add' as const, orgId: 'org', name: 'P', actor: 'u' };
      const written = await runCommand(here.store, { type: 'project', id }, projectDecider(id), add, { creates: true });
      expect(written.map((e) => [e.sequence, e.type])).toEqual([[1, 'project.added']]);
      expect(here.loads()).toBe(0);
      const again = runCommand(here.store, { type: 'project', id }, projectDecider(id), add, { creates: true });
      await expect(again).rejects.toBeInstanceOf(KeyholdError);
      await expect(again).rejects.toMatchObject({ reason: 'ID_TAKEN', metadata: { id } });
      expect(here.loads()).toBe(1);
    });

    it('a command on several aggregates appends once, each expected at the sequence it was decided on', async () => {
      const here = counting(createEventStore(fixture.database));
      const elsewhere = createEventStore(fixture.database);
      const [a, b] = [`project-${randomUUID()}`, `project-${randomUUID()}`];
      for (const id of [a, b]) await runCommand(here.store, { type: 'project', id }, projectDecider(id), { kind: 'add', orgId: 'org', name: 'P', actor: 'u' }, { creates: true });
      let decided = 0;
      const grant = (userId: string, meanwhile?: () => Promise<unknown>) => async () => {
        // Another process grants on b after the first loads, before the first append: that append conflicts.
        if (decided++ === 1) await meanwhile?.();
        return { kind: 'addMember' as const, userId, roles: ['PROJECT_OWNER'], actor: 'u' };
      };
      const otherGrant = () =>
        elsewhere.append(
          [{ aggregateType: 'project', aggregateId: b, type: 'project.member.added', payload: { userId: 'x', roles: ['PROJECT_OWNER'] }, resourceOwner: 'org', creator: 'u' }],
          [{ aggregateType: 'project', aggregateId: b, sequence: 1 }],
        );
      const written = await runCommands(here.store, [
        target({ type: 'project', id: a }, projectDecider(a), grant('y')),
        target({ type: 'project', id: b }, projectDecider(b), grant('y', otherGrant)),
      ]);
      // Decided twice (a second time on fresh loads), appended once: a at 2, b at 3 after the other grant.
      expect(decided).toBe(4);
      expect(written.map((e) => [e.aggregateId, e.sequence])).toEqual([
        [a, 2],
        [b, 3],
      ]);
      expect(new Set(written.map((e) => e.position)).size).toBe(2);
      expect((await elsewhere.load('project', a)).map((e) => e.sequence)).toEqual([1, 2]);
      expect((await elsewhere.load('project', b)).map((e) => e.sequence)).toEqual([1, 2, 3]);
    });
  });
}

runCommandContract('PGlite', freshPglite);
announcePostgresSkip('the runner on a recent copy: PostgreSQL');
describe.skipIf(!postgresAvailable)('PostgreSQL', () => {
  runCommandContract('PostgreSQL', freshPostgres);
});
