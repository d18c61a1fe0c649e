// runCommand (src/store/run-command.ts) deciding on this process's copy of an
// aggregate, on real databases. Two event stores over one database stand for
// two Keyhold processes sharing it: each has its own copies, neither sees the
// other's appends. The copy may save the load; it must never change an answer.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decider } from '../../src/domain/decider.js';
import { createEventStore, type EventStore } from '../../src/store/event-store.js';
import type { NewEvent, StoredEvent } from '../../src/store/events.js';
import { appendNew, runCommand } from '../../src/store/run-command.js';
import { announcePostgresSkip, freshPglite, freshPostgres, postgresAvailable, type FreshDatabase } from '../support/databases.js';

/** The store with its loads counted. */
function counting(store: EventStore): { store: EventStore; loads: () => number } {
  let loads = 0;
  return {
    store: {
      ...store,
      load: (type, id) => {
        loads++;
        return store.load(type, id);
      },
    },
    loads: () => loads,
  };
}

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
  payload: {
    userId: 'user',
    tokenName: 'Key',
    credentialId: `cred-${randomUUID()}`,
    publicKey: 'pk',
    algorithm: -7,
    format: 'none',
    aaguid: '00000000-0000-0000-0000-000000000000',
    signCount: 0,
    transports: [],
    backupEligible: false,
    backedUp: false,
    userVerified: false,
    rpId: 'localhost',
  },
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
  describe(`runCommand on a recent copy: ${driver}`, () => {
    let fixture: FreshDatabase;
    beforeAll(async () => {
      fixture = await open();
    });
    afterAll(async () => {
      await fixture?.cleanup();
    });

    it('decides on its own fresh copy without a load', async () => {
      const { store, loads } = counting(createEventStore(fixture.database));
      const id = `u2f-${randomUUID()}`;
      await appendNew(store, [start(id)]);
      const written = await runCommand(store, { type: 'u2f', id }, finishing(id, false), 'finish');
      expect(written.map((e) => [e.sequence, e.type])).toEqual([[2, 'u2f.removed']]);
      expect(loads()).toBe(0);
      expect((await store.load('u2f', id)).map((e) => e.type)).toEqual(['u2f.registration.started', 'u2f.removed']);
    });

    it('a copy behind the database: the write conflicts and the command is decided again on a load', async () => {
      const here = counting(createEventStore(fixture.database));
      const elsewhere = createEventStore(fixture.database);
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
      expect((await elsewhere.load('u2f', id)).map((e) => e.type)).toEqual(['u2f.registration.started', 'u2f.removed']);
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
      expect(written.map((e) => [e.sequence, e.type])).toEqual([[3, 'u2f.removed']]);
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
  });
}

runCommandContract('PGlite', freshPglite);
announcePostgresSkip('runCommand on a recent copy: PostgreSQL');
describe.skipIf(!postgresAvailable)('PostgreSQL', () => {
  runCommandContract('PostgreSQL', freshPostgres);
});
