// The runner on a kept fold (src/commands/folded-states.ts), on real databases:
// a user's commands fold only the events appended since the last one, and what
// another process appended meanwhile (a second event store over the same
// database) is folded in, never missed. The kept fold may save reading and
// folding a history that grows with every login; it must never change an answer.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldedStates } from '../../src/commands/folded-states.js';
import { runCommand, runCommands, target } from '../../src/commands/run.js';
import { KeyholdError } from '../../src/domain/errors/keyhold-error.js';
import type { NewEvent, StoredEvent } from '../../src/domain/events/index.js';
import { userDecider, type UserCommand, type UserState } from '../../src/domain/user/decider.js';
import { createEventStore, type EventStore } from '../../src/store/event-store.js';
import { announcePostgresSkip, freshPglite, freshPostgres, postgresAvailable, type FreshDatabase, knownOrgs } from '../support/databases.js';

/** A process's event store, counting the events its loads and tails read. */
function counting(store: EventStore) {
  const read = { loads: 0, tails: 0, events: 0 };
  const counted: EventStore = {
    ...store,
    load: async (type, id) => {
      read.loads++;
      const events = await store.load(type, id);
      read.events += events.length;
      return events;
    },
    loadAfter: async (type, id, sequence) => {
      read.tails++;
      const events = await store.loadAfter!(type, id, sequence);
      read.events += events.length;
      return events;
    },
  };
  return { store: counted, read };
}

const added = (userId: string): NewEvent => ({
  type: 'user.human.added',
  aggregateType: 'user',
  aggregateId: userId,
  payload: { username: `fold-${userId}`, givenName: 'F', familyName: 'Old', displayName: 'F Old', email: 'f@example.com' },
  resourceOwner: 'org',
  creator: 'u',
});

const login: UserCommand = { kind: 'recordLogin', clientId: 'app', amr: ['pwd'], actor: 'u' };
const wrong = (maxPasswordAttempts: number): UserCommand => ({ kind: 'recordPasswordFailure', clientId: 'app', actor: 'u', maxPasswordAttempts });
const types = (events: readonly StoredEvent[]) => events.map((e) => e.type);

function foldedStatesContract(driver: string, open: () => Promise<FreshDatabase>): void {
  describe(`the runner on a kept fold: ${driver}`, () => {
    let fixture: FreshDatabase;
    beforeAll(async () => {
      fixture = await open();
      await knownOrgs(fixture.database, 'org');
    });
    afterAll(async () => {
      await fixture?.cleanup();
    });

    async function newUser(store: EventStore): Promise<string> {
      const id = `user-${randomUUID()}`;
      await store.append([added(id)], [{ aggregateType: 'user', aggregateId: id, sequence: 0 }]);
      return id;
    }

    it('after the first load, each command reads only what was appended since its last one', async () => {
      const here = counting(createEventStore(fixture.database));
      const id = await newUser(here.store);
      for (let i = 0; i < 4; i++) await runCommand(here.store, { type: 'user', id }, userDecider(id), login);
      // One load (the user's first event), then nothing: each later login is a write decided on the kept
      // fold, appended at its sequence (this process wrote everything after the load).
      expect(here.read).toEqual({ loads: 1, tails: 0, events: 1 });
      expect(types(await here.store.load('user', id))).toEqual(['user.human.added', ...Array(4).fill('user.login.succeeded')]);
    });

    it("another process's events in between are folded in: its wrong passwords count towards the lock here", async () => {
      const here = counting(createEventStore(fixture.database));
      const elsewhere = createEventStore(fixture.database);
      const id = await newUser(here.store);
      await runCommand(here.store, { type: 'user', id }, userDecider(id), login);
      // Two wrong passwords at the other process; the third, here, reaches the policy's 3.
      for (let i = 0; i < 2; i++) await runCommand(elsewhere, { type: 'user', id }, userDecider(id), wrong(3));
      const written = await runCommand(here.store, { type: 'user', id }, userDecider(id), wrong(3));
      expect(types(written)).toEqual(['user.password.check.failed', 'user.locked']);
      expect(written.map((e) => e.sequence)).toEqual([5, 6]);
      expect(here.read).toMatchObject({ loads: 1, tails: 1, events: 1 + 2 });
    });

    it("a refusal decided on the kept fold is confirmed: another process's unlock is seen, the login goes through", async () => {
      const here = counting(createEventStore(fixture.database));
      const elsewhere = createEventStore(fixture.database);
      const id = await newUser(here.store);
      await runCommand(here.store, { type: 'user', id }, userDecider(id), { kind: 'lock', actor: 'u' } as UserCommand);
      await runCommand(elsewhere, { type: 'user', id }, userDecider(id), { kind: 'unlock', actor: 'u' } as UserCommand);
      // Kept here: locked. The login is refused on that, then confirmed against the tail, which holds the unlock.
      const written = await runCommand(here.store, { type: 'user', id }, userDecider(id), login);
      expect(types(written)).toEqual(['user.login.succeeded']);
      expect(written[0]!.sequence).toBe(4);
      expect(here.read).toMatchObject({ loads: 1, tails: 2 });
    });

    it("a write decided on a kept fold that another process moved past is not appended: decided again on the tail", async () => {
      const here = counting(createEventStore(fixture.database));
      const elsewhere = createEventStore(fixture.database);
      const id = await newUser(here.store);
      await runCommand(here.store, { type: 'user', id }, userDecider(id), login);
      await runCommand(elsewhere, { type: 'user', id }, userDecider(id), { kind: 'lock', actor: 'u' } as UserCommand);
      // Kept here: active. The login decided on that meets the lock's sequence, is decided again, and is refused.
      await expect(runCommand(here.store, { type: 'user', id }, userDecider(id), login)).rejects.toMatchObject({ reason: 'USER_NOT_ACTIVE' });
      expect(types(await here.store.load('user', id))).toEqual(['user.human.added', 'user.login.succeeded', 'user.locked']);
    });

    it("a target that only has a say beside another's write is confirmed: another process's lock refuses the command", async () => {
      const here = counting(createEventStore(fixture.database));
      const elsewhere = createEventStore(fixture.database);
      const holder = await newUser(here.store);
      const other = await newUser(here.store);
      await runCommand(here.store, { type: 'user', id: holder }, userDecider(holder), login);
      await runCommand(elsewhere, { type: 'user', id: holder }, userDecider(holder), { kind: 'lock', actor: 'u' } as UserCommand);
      // As a passkey's use: the holder must still be active (no event of its own), the write goes elsewhere.
      const base = userDecider(holder);
      const mustBeActive = { ...base, decide: (_: UserCommand, state: UserState) => {
        if (state.state !== 'active') throw new KeyholdError('USER_NOT_ACTIVE', { userId: holder });
        return [];
      } };
      const run = runCommands(here.store, [target({ type: 'user', id: holder }, mustBeActive, login), target({ type: 'user', id: other }, userDecider(other), login)]);
      await expect(run).rejects.toMatchObject({ reason: 'USER_NOT_ACTIVE' });
      expect(types(await here.store.load('user', other))).toEqual(['user.human.added']);
    });

    it('an append that meets a write of another process is decided again on the tail that holds it', async () => {
      const here = counting(createEventStore(fixture.database));
      const elsewhere = createEventStore(fixture.database);
      const id = await newUser(here.store);
      await runCommand(here.store, { type: 'user', id }, userDecider(id), login);
      const decided: UserState[] = [];
      const written = await runCommand(here.store, { type: 'user', id }, userDecider(id), async (state: UserState) => {
        decided.push(state);
        // The other process's wrong password lands between this decision and its append.
        if (decided.length === 1) await runCommand(elsewhere, { type: 'user', id }, userDecider(id), wrong(2));
        return wrong(2);
      });
      expect(decided.map((s) => s.failedPasswordAttempts)).toEqual([0, 1]);
      expect(types(written)).toEqual(['user.password.check.failed', 'user.locked']);
      expect(types(await elsewhere.load('user', id))).toEqual(['user.human.added', 'user.login.succeeded', 'user.password.check.failed', 'user.password.check.failed', 'user.locked']);
    });
  });
}

describe('foldedStates', () => {
  it('keeps the latest fold of each aggregate, never an older one over it, at most maxKept (least recently used out)', () => {
    const kept = foldedStates(2);
    kept.keep('user', 'user', 'a', { state: 'a@2', sequence: 2 });
    kept.keep('user', 'user', 'a', { state: 'a@1', sequence: 1 });
    expect(kept.get('user', 'user', 'a')).toEqual({ state: 'a@2', sequence: 2 });
    // Another fold of the same aggregate is kept apart.
    expect(kept.get('other', 'user', 'a')).toBeUndefined();
    kept.keep('user', 'user', 'b', { state: 'b@1', sequence: 1 });
    kept.get('user', 'user', 'a');
    kept.keep('user', 'user', 'c', { state: 'c@1', sequence: 1 });
    expect(kept.get('user', 'user', 'b')).toBeUndefined();
    expect(kept.get('user', 'user', 'a')?.sequence).toBe(2);
    expect(kept.get('user', 'user', 'c')?.sequence).toBe(1);
  });
});

foldedStatesContract('PGlite', freshPglite);
announcePostgresSkip('the runner on a kept fold: PostgreSQL');
describe.skipIf(!postgresAvailable)('PostgreSQL', () => {
  foldedStatesContract('PostgreSQL', freshPostgres);
});
